"""The tools the grader runs for day11's agent, their data for one seed, and a timeline of the calls.

Each tool waits a little before it answers, as a call over the network does: between 0.15 and
0.6 s, each (tool, ticker) its own time, so calls that start together end in an order of their own
(never the order they were made in); an unknown ticker's call waits 0.2 s. The news service is down
for META: get_news("META") raises, after its wait.

`world.timeline` records when each call started and ended, in the grader's clock, from every
thread: a check asks how many calls were running at the same moment, which tells calls run side
by side from calls run one after another whatever the machine's load (it never times a round).
"""
import itertools
import random
import re
import threading
import time
from contextlib import contextmanager

TICKERS = ["AAPL", "NVDA", "MSFT", "AMZN", "GOOG", "META"]  # the index gives each call its wait
DOWN = "META"  # whose news service is down
# Pairs of tickers that both screens (AAPL, NVDA, MSFT, AMZN or META, GOOG) ask about in this order,
# though it is not the alphabetical one. At every seed both of one pair pass, so the stocks that pass,
# "in the order given", are never in alphabetical order too, where a screen that sorts them would hide.
IN_BOTH_SCREENS = ["AAPL", "NVDA", "MSFT", "GOOG"]
OUT_OF_ORDER = [(a, b) for a, b in itertools.combinations(IN_BOTH_SCREENS, 2) if a > b]
QUOTE_WAIT = 0.2
NEWS_ERROR = "the news service timed out (HTTP 504)"

HEADLINES = {  # for seeds other than 0: (headline, sentiment, impact), {name} the ticker
    "positive": ["{name} beats revenue estimates", "{name} raises its dividend", "{name} wins a large contract"],
    "neutral": ["{name} names a new finance chief", "{name} opens a new office"],
    "negative": ["{name} delays a product update", "A regulator sues {name} over its fees",
                 "{name} recalls a product line"],
}


def wait_of(tool: str, ticker: str) -> float:
    """How long one call takes: for every (tool, ticker) of the table its own time, at least 25 ms
    from any other's, so calls that start together end in the same order every time."""
    if ticker not in TICKERS:
        return QUOTE_WAIT
    i = TICKERS.index(ticker)
    return {"get_fundamentals": 0.15 + 0.05 * i, "get_news": 0.425 - 0.05 * i,
            "get_quote": 0.45 + 0.025 * i}[tool]


def tables(data: dict, rng: random.Random, seed: int) -> dict:
    """quotes, fundamentals, news: ticker -> the tool's result. Seed 0 keeps the lesson's numbers."""
    quotes, fundamentals, news = {}, {}, {}
    for ticker, company in data["companies"].items():
        quote, basics, items = dict(company["quote"]), dict(company["fundamentals"]), list(company["news"])
        if seed != 0:
            quote["price"] = round(quote["price"] * rng.uniform(0.6, 1.4), 1)
            quote["change_1y_pct"] = round(rng.uniform(-30, 120), 1)
            basics = {"pe": round(rng.uniform(12, 75), 1), "revenue_growth_pct": round(rng.uniform(-8, 40), 1)}
            if ticker == DOWN:  # it would pass on its numbers: only the outage keeps it out
                basics = {"pe": round(rng.uniform(15, 39), 1), "revenue_growth_pct": round(rng.uniform(11, 40), 1)}
            items = []
            for _ in range(rng.choice([1, 2, 2, 3])):
                sentiment = rng.choice(["positive", "positive", "neutral", "negative", "negative"])
                impact = rng.choice(["minor", "major"])
                headline = rng.choice(HEADLINES[sentiment]).format(name=ticker)
                items.append({"headline": headline, "sentiment": sentiment, "impact": impact})
        quotes[ticker] = {"ticker": ticker, **quote}
        fundamentals[ticker] = {"ticker": ticker, **basics}
        news[ticker] = {"ticker": ticker, "latest": items[0]["headline"], "items": items}
    if seed != 0:  # seed 0's screens pass MSFT, then GOOG: already out of alphabetical order
        for ticker in rng.choice(OUT_OF_ORDER):
            fundamentals[ticker] = {"ticker": ticker, "pe": round(rng.uniform(15, 39), 1),
                                    "revenue_growth_pct": round(rng.uniform(11, 40), 1)}
            for item in news[ticker]["items"]:
                if item["sentiment"] == "negative":
                    item["impact"] = "minor"  # bad news, but never the major kind that fails a screen
    return {"quotes": quotes, "fundamentals": fundamentals, "news": news}


class Timeline:
    """When each tool call started and ended (time.monotonic(), in the grader), thread-safe."""

    def __init__(self):
        self.lock = threading.Lock()
        self.spans: list[tuple[float, float, str, str, float]] = []  # (start, end, tool, ticker, its wait)

    @staticmethod
    def mark() -> float:
        return time.monotonic()

    @contextmanager
    def call(self, tool: str, ticker: str, wait: float):
        start = time.monotonic()
        try:
            yield
        finally:
            with self.lock:
                self.spans.append((start, time.monotonic(), tool, ticker, wait))

    def since(self, mark: float) -> list[tuple[float, float, str, str, float]]:
        """The calls that started after `mark` (a call of an earlier check still ending is left out)."""
        with self.lock:
            return sorted(span for span in self.spans if span[0] >= mark)

    @staticmethod
    def peak(spans) -> int:
        """The most calls running at the same moment."""
        events = sorted([(start, 1) for start, *_ in spans] + [(end, -1) for _, end, *_ in spans])
        running = most = 0
        for _, step in events:  # at a tie, an end (-1) sorts before a start (+1): touching isn't overlapping
            running += step
            most = max(most, running)
        return most


def tools(world) -> dict:
    timeline = world.data.setdefault("timeline", Timeline())

    def lookup(tool: str, table: dict, ticker) -> dict:
        key = str(ticker).strip().upper()
        wait = wait_of(tool, key)
        with timeline.call(tool, key, wait):
            time.sleep(wait)
            if tool == "get_news" and key == DOWN:
                raise RuntimeError(NEWS_ERROR)
            if key not in table:
                return {"error": f"unknown ticker: {ticker}"}  # an error *result*, not an exception
            return dict(table[key])

    def get_quote(ticker: str) -> dict:
        return lookup("get_quote", world.quotes, ticker)

    def get_fundamentals(ticker: str) -> dict:
        return lookup("get_fundamentals", world.fundamentals, ticker)

    def get_news(ticker: str) -> dict:
        return lookup("get_news", world.news, ticker)

    return {"get_quote": get_quote, "get_fundamentals": get_fundamentals, "get_news": get_news}


def plan(question: str, world) -> dict | None:
    """How the mock answers a question no scenario scripts, so a learner can play: for every ticker
    of the table named in the question, fundamentals and news when it asks to screen, else a quote;
    all the calls in one reply."""
    tickers = [t for t in world.quotes if re.search(rf"\b{t}\b", question.upper())]
    if not tickers:
        return None
    if re.search(r"screen|fundamental|news|筛|基本面|新闻", question, re.IGNORECASE):
        turn, parts = [], []
        for t in tickers:
            n = len(turn) + 1
            turn += [{"tool": "get_fundamentals", "args": {"ticker": t}}, {"tool": "get_news", "args": {"ticker": t}}]
            parts.append(f"{t}: P/E {{obs{n}.pe}}, revenue growth {{obs{n}.revenue_growth_pct}}%, "
                         f"latest news: {{obs{n + 1}.latest}}.")
    else:
        turn = [{"tool": "get_quote", "args": {"ticker": t}} for t in tickers]
        parts = [f"{t}: price {{obs{n}.price}} {{obs{n}.currency}}." for n, t in enumerate(tickers, start=1)]
    turn[0]["thought"] = "I'll fetch them all at once."
    return {"calls": [turn], "answer": " ".join(parts)}
