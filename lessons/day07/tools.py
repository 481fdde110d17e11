"""The tools the grader runs for day07's agent, and their data for one seed."""
import random
import re


def tables(data: dict, rng: random.Random, seed: int) -> dict:
    """The quotes, ticker -> quote. Seed 0 keeps the lesson text's numbers; others move them."""
    def quote(ticker: str, base: dict) -> dict:
        if seed == 0:
            return {"ticker": ticker, **base}
        return {"ticker": ticker, **base, "price": round(base["price"] * rng.uniform(0.5, 1.5), 1),
                "pe": round(base["pe"] * rng.uniform(0.6, 1.4), 1),
                "change_1y_pct": round(rng.uniform(-40, 120), 1)}

    return {"quotes": {ticker: quote(ticker, base) for ticker, base in data["quotes"].items()}}


def tools(world) -> dict:
    def get_quote(ticker: str) -> dict:
        """Like the lesson's own tool: an unknown ticker is an error *result*, not an exception."""
        key = str(ticker).strip().upper()
        if key not in world.quotes:
            return {"error": f"unknown ticker: {ticker}"}
        return dict(world.quotes[key])

    def broken(*args, **kwargs) -> str:
        raise RuntimeError("the service is down (HTTP 503)")

    return {"get_quote": get_quote, "Broken": broken}


def plan(question: str, world) -> dict | None:
    """How the mock answers a question no scenario scripts, so a learner can play: every ticker of
    the quotes table named in the question -> get_quote, all in one reply (parallel calls)."""
    tickers = [t for t in world.quotes if re.search(rf"\b{t}\b", question.upper())]
    if not tickers:
        return None
    turn = [{"tool": "get_quote", "args": {"ticker": t}, "thought": "Let me fetch the quotes."} for t in tickers]
    answer = " ".join(f"{t}: price {{obs{n}.price}}, P/E {{obs{n}.pe}}." for n, t in enumerate(tickers, start=1))
    return {"calls": [turn], "answer": answer}
