"""The tools the grader runs for day11's agent, their data for one seed, and the rounds of calls.

Each tool stands for a call over the network, and each (tool, ticker) has a wait of its own, 0.15
to 0.6 s (an unknown ticker's, 0.2 s), but nobody waits it: a check opens a Round of the calls it
expects at once, and the grader holds them at a barrier, releasing them in the order of their waits
(calls that start together end in an order of their own, never the order they were made in). The
news service is down for META: get_news("META") raises.

How many calls were at the barrier together tells calls run side by side from calls run one after
another whatever the machine's load: a sequential program never sends its second call while the
first is unanswered. No round is timed.
"""
import itertools
import random
import re
import threading
import time

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
    """How long one call would take over the network: for every (tool, ticker) of the table its own
    time, so calls held together end in one order (see Round), the same every time."""
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


GRACE = 0.15  # seconds a round waits for one more call; stretched on a busy machine (see Round)
STRETCH = 8  # times the slowest gap between the round's calls so far that it waits at least
LONGEST = 5.0  # seconds a round waits at most for a learner's process that is never idle (a spin)
LOOK_AGAIN = 0.01  # seconds between looks at a learner's process that is not idle yet
LOOK_SOON = 0.0001  # seconds between looks while an answer is on its way to the learner's code
TAKE_LONGEST = 0.05  # seconds an answer gets at most to be taken before the next ends (a thread that never waits)


class Round:
    """The `size` calls a check expects the learner's code to make at once, held at a barrier.

    Nothing is answered until all of them have arrived, or no new call has come for the grace
    period and none is on its way (`_all_in`: every thread of the learner's process blocked, every
    call it made read by the grader and held here). Code that runs the calls side by side sends
    them all while the first is held, so the barrier opens when the last arrives, on a fast
    machine or a busy one: until then a thread of it is running or ready to run, or a call it sent
    waits for the grader to read it, however long the machine makes either wait for a CPU. Code
    that waits for each result sends the second call only once the first is answered: its process
    sits idle while the first waits out the grace period alone, and the round is settled as it
    was, its later calls answered at once. The grace period grows with the gaps between the calls
    that did come. Once `enough` calls are held (what the check asks of the round), it settles as
    soon as none is on its way: a pool narrower than the round but wide enough (asyncio.to_thread's
    default, a handful of threads) waits no grace period for calls that can't come before an answer.
    Rounds sets `enough` lower for a function whose earlier round waited out its grace period: see
    Rounds.open.

    The held calls end one by one in the order of their waits: the first once the learner's process
    waits, each next once the answer before it has been sent and taken (the process idle again), so
    the results reach the learner's code in an order of their own, the same on every run, and no
    sooner than its code can take them."""

    def __init__(self, size: int, idle=lambda: True, unanswered=lambda: 0, enough: int | None = None):
        self.size, self.idle, self.unanswered = size, idle, unanswered
        self.enough = size if enough is None else min(enough, size)
        self.lock = threading.Condition()
        self.calls: list[tuple[str, str, float]] = []  # (tool, ticker, its wait), in the order they came
        self.held: list[tuple[float, int]] = []  # (wait, arrival) of the calls at the barrier
        self.together: int | None = None  # how many were at the barrier when it opened
        self.ended = 0  # how many of the held calls have ended
        self.last = time.monotonic()  # when the last call came (at first: when the round opened)
        self.grace = GRACE
        self.waited_grace = False  # settled short of `enough` once its grace period had passed

    @property
    def peak(self) -> int:
        """The most calls that were running at the same moment: those held together."""
        with self.lock:
            return self.together if self.together is not None else len(self.held)

    def call(self, tool: str, ticker: str, wait: float) -> None:
        """Hold a call until it is its turn to end."""
        with self.lock:
            self.calls.append((tool, ticker, wait))
            if self.together is not None:  # settled: the calls after the first ones pass at once
                return
            now = time.monotonic()
            if self.held:  # the gaps between the calls that came; not the wait for the first (the agent's model turn)
                self.grace = max(self.grace, STRETCH * (now - self.last))
            self.last = now
            me = (wait, len(self.calls))
            self.held.append(me)
            self.lock.notify_all()  # the others' grace period starts again
            while self.together is None and len(self.held) < self.size:
                now = time.monotonic()
                grace_left = left = self.last + self.grace - now
                if len(self.held) >= self.enough and self.held[-1] == me:  # enough held: the latest call
                    left = min(left, self.last + LOOK_AGAIN - now)  # looks once no other came for a moment
                if left <= 0:
                    if self._all_in():
                        self.waited_grace = grace_left <= 0 and len(self.held) < self.enough
                        break
                    if grace_left <= 0 and now > self.last + LONGEST:
                        break
                    left = LOOK_AGAIN  # a thread of it is still running, or ready to: a call may be on its way
                self.lock.wait(left)
            if self.together is None:
                self.together = len(self.held)
                self.held.sort()
                self.lock.notify_all()
            turn = self.held.index(me)
            while self.ended < turn:
                self.lock.wait()
        self._wait_until_taken(self.together - turn)  # the first too: no answer while the code that made
        # the calls still runs (a call that returns before its threads end does, the same every run)
        with self.lock:
            self.ended += 1
            self.lock.notify_all()

    def _all_in(self) -> bool:
        """No call on its way: the learner's process waits, every call it made received (`idle`),
        and each one received is here (a call read by the grader may wait for a thread to run it)."""
        return self.idle() and self.unanswered() <= len(self.held)

    def _wait_until_taken(self, still_held: int) -> None:
        """Until the answers of the calls that ended before mine are sent (no call unanswered but
        the `still_held` ones, mine included) and the learner's code has taken them: every thread
        of it waiting again. TAKE_LONGEST at most: a thread that never waits can't be told apart."""
        deadline = time.monotonic() + TAKE_LONGEST
        while not (self.unanswered() <= still_held and self.idle()) and time.monotonic() < deadline:
            time.sleep(LOOK_SOON)

    def serial(self) -> float:
        """How long the round's calls take one after another: the sum of their waits, as set."""
        with self.lock:
            return round(sum(wait for *_, wait in self.calls), 1)


class Rounds:
    """The round a check opened last; calls outside any round pass at once."""

    def __init__(self, world):
        self.world = world  # its learner_idle: set by the grader for the learner's run in progress
        self.current: Round | None = None
        self.func: str | None = None  # the learner's function the current round is for
        self.most_at_once: dict[str, int] = {}  # the learner's function -> the calls it held together, at most

    def open(self, size: int, enough: int | None = None, func: str | None = None) -> Round:
        """A round of `size` calls of the learner's function `func`. Once a round of it waited out
        its grace period with k calls held, its process idle, its code runs k calls at most at once
        (a pool of k threads, or one call after another): its later rounds settle as soon as k are
        held and none is on its way, as one `enough` wide does. A sequential file then waits one
        grace period, not one per round; the number held, and so every result, is the same."""
        last = self.current
        if last is not None and self.func is not None and last.waited_grace:
            self.most_at_once[self.func] = last.peak
        if func in self.most_at_once:
            enough = min(size if enough is None else enough, self.most_at_once[func])
        self.current, self.func = Round(size, lambda: self.world.learner_idle(),
                                        lambda: self.world.learner_unanswered(), enough), func
        return self.current

    def call(self, tool: str, ticker: str, wait: float) -> None:
        current = self.current
        if current is not None:
            current.call(tool, ticker, wait)


def tools(world) -> dict:
    rounds = world.data.setdefault("rounds", Rounds(world))

    def lookup(tool: str, table: dict, ticker) -> dict:
        key = str(ticker).strip().upper()
        wait = wait_of(tool, key)
        rounds.call(tool, key, wait)
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
