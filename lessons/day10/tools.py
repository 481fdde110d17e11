"""The tools the grader runs for day10's agent, and their data for one seed: the quotes, and the
price table of prices.yaml (seed 0: the file as it is; other seeds: other prices, same shape)."""
import random
import re
from pathlib import Path

import yaml

PRICE_FILE = Path(__file__).with_name("prices.yaml")


def tables(data: dict, rng: random.Random, seed: int) -> dict:
    """quotes: ticker -> quote; prices: model -> {input_per_1m, output_per_1m}; price_file: the
    YAML text the learner's load_prices reads, for these prices."""
    def quote(ticker: str, base: dict) -> dict:
        if seed == 0:
            return {"ticker": ticker, **base}
        return {"ticker": ticker, **base, "price": round(base["price"] * rng.uniform(0.5, 1.5), 1),
                "pe": round(base["pe"] * rng.uniform(0.6, 1.4), 1),
                "change_1y_pct": round(rng.uniform(-40, 120), 1)}

    text = PRICE_FILE.read_text(encoding="utf-8")
    prices = yaml.safe_load(text)["models"]
    if seed != 0:  # other prices, two decimals, output dearer than input as everywhere
        prices = {}
        for model in yaml.safe_load(text)["models"]:
            given = round(rng.uniform(0.02, 4.0), 2)
            prices[model] = {"input_per_1m": given, "output_per_1m": round(given * rng.choice([3, 4, 5]), 2)}
        text = price_text(prices)
    quotes = {ticker: quote(ticker, base) for ticker, base in data["quotes"].items()}
    return {"quotes": quotes, "prices": prices, "price_file": text}


def price_text(prices: dict) -> str:
    """A price file in the shape of prices.yaml."""
    lines = ["# US dollars per 1 million tokens (input: prompt tokens; output: completion tokens).",
             "models:"]
    lines += [f"  {model}: {{input_per_1m: {p['input_per_1m']}, output_per_1m: {p['output_per_1m']}}}"
              for model, p in prices.items()]
    return "\n".join(lines) + "\n"


def tools(world) -> dict:
    def get_quote(ticker: str) -> dict:
        """Like the lesson's own tool: an unknown ticker is an error *result*, not an exception."""
        key = str(ticker).strip().upper()
        if key not in world.quotes:
            return {"error": f"unknown ticker: {ticker}"}
        return dict(world.quotes[key])

    return {"get_quote": get_quote}


def plan(question: str, world) -> dict | None:
    """How the mock answers a question no scenario scripts, so a learner can play: every ticker of
    the quotes table named in the question -> one get_quote call per reply, so each one adds a
    round to the conversation (and to the bill)."""
    tickers = [t for t in world.quotes if re.search(rf"\b{t}\b", question.upper())]
    if not tickers:
        return None
    calls = [{"tool": "get_quote", "args": {"ticker": t}, "thought": f"Let me fetch {t}."} for t in tickers]
    answer = " ".join(f"{t}: price {{obs{n}.price}}, P/E {{obs{n}.pe}}." for n, t in enumerate(tickers, start=1))
    return {"calls": calls, "answer": answer}
