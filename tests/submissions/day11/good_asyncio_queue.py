# expect: full
# style: an asyncio.Queue of (index, call) drained by one worker coroutine per call, each running
# style: execute_tool with asyncio.to_thread; screen ids are plain numbers, read back by position
"""Day 11 — many tools at once: a screening agent whose tool calls run side by side.

Asked to screen five stocks, the model answers with ten tool calls in one response: fundamentals
and news for each. They don't depend on one another, so there is no reason to wait for one before
starting the next. Run one after another, ten calls of 0.2 s take 2 s; run side by side, about as
long as the slowest one. Each result still goes back under the id of its own call, and a call
that fails becomes an error result without taking the other nine down with it.

    execute_tool(tool_impl, call)  -> the tool message for one call; never raises
    run_calls(tool_impl, calls)    -> every call at the same time; one message per call, by id
    run_agent(question, tool_impl) -> day 07's loop, with run_calls for each response's calls
    passes(fundamentals, news)     -> the screening rule, in code
    screen(tool_impl, tickers)     -> your own fan-out: no model needed when you know the calls

Fill in the five TODOs, then run `python validate.py day11`; run this file to time the screen.
"""
from __future__ import annotations

import json
import time
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from typing import Callable

import asyncio

from mock_llm.http import openai_client

client = openai_client("day11")
MODEL = "mock-react-1"

SYSTEM_PROMPT = ("You are a stock screening assistant. Use get_quote for prices, get_fundamentals for "
                 "P/E and revenue growth, get_news for recent headlines. When you need data on several "
                 "stocks, request all the calls at once. Keep final answers short.")

MAX_PE = 40.0  # the screen: a P/E of at most this,
MIN_REVENUE_GROWTH = 10.0  # revenue growth of at least this many percent, and no major negative news


# ---------------------------------------------------------------- given: the tools and their data

LATENCY = 0.2  # seconds: each tool waits this long, as a call over the network would

QUOTES = {"AAPL": 195.3, "NVDA": 1180.0, "MSFT": 415.2, "AMZN": 182.4, "GOOG": 171.9, "META": 492.6}
FUNDAMENTALS = {"AAPL": (31.2, 6.1), "NVDA": (72.1, 122.4), "MSFT": (35.4, 15.2), "AMZN": (38.9, 11.0),
                "GOOG": (23.6, 14.1), "META": (27.4, 22.1)}  # (P/E, revenue growth %)
NEWS = {
    "AAPL": [("iPhone sales slip in one region", "negative", "minor"), ("Apple raises its dividend", "positive", "minor")],
    "NVDA": [("Data-centre revenue beats estimates", "positive", "major")],
    "MSFT": [("A one-hour cloud outage in one region", "negative", "minor"), ("A large new AI contract", "positive", "major")],
    "AMZN": [("A regulator sues over marketplace fees", "negative", "major")],
    "GOOG": [("Search ad revenue grows in every region", "positive", "minor")],
    "META": [("A new data centre opens", "neutral", "minor")],
}


def get_quote(ticker: str) -> dict:
    time.sleep(LATENCY)
    key = ticker.upper()
    if key not in QUOTES:
        return {"error": f"unknown ticker: {ticker}"}
    return {"ticker": key, "price": QUOTES[key], "currency": "USD"}


def get_fundamentals(ticker: str) -> dict:
    time.sleep(LATENCY)
    key = ticker.upper()
    if key not in FUNDAMENTALS:
        return {"error": f"unknown ticker: {ticker}"}
    pe, growth = FUNDAMENTALS[key]
    return {"ticker": key, "pe": pe, "revenue_growth_pct": growth}


def get_news(ticker: str) -> dict:
    time.sleep(LATENCY)
    key = ticker.upper()
    if key not in NEWS:
        return {"error": f"unknown ticker: {ticker}"}
    items = [{"headline": h, "sentiment": s, "impact": i} for h, s, i in NEWS[key]]
    return {"ticker": key, "latest": items[0]["headline"], "items": items}


TOOL_IMPL: dict[str, Callable[..., dict]] = {"get_quote": get_quote, "get_fundamentals": get_fundamentals,
                                             "get_news": get_news}


@dataclass
class ToolRequest:
    """One tool call the model asked for."""
    id: str  # the tool_call_id its result must carry
    name: str
    arguments: str  # JSON text, exactly as the model wrote it


def _tool(name: str, description: str) -> dict:
    return {"type": "function", "function": {
        "name": name, "description": description,
        "parameters": {"type": "object", "properties": {"ticker": {"type": "string", "description": "e.g. AAPL"}},
                       "required": ["ticker"]}}}


def get_tools() -> list[dict]:
    return [_tool("get_quote", "Latest quote of a stock: price and currency."),
            _tool("get_fundamentals", "Fundamentals of a stock: P/E ratio and revenue growth over the last year, in %."),
            _tool("get_news", "Recent news about a stock: headlines, each with its sentiment (positive, neutral, "
                              "negative) and impact (minor, major).")]


def build_messages(user_query: str) -> list[dict]:
    return [{"role": "system", "content": SYSTEM_PROMPT}, {"role": "user", "content": user_query}]


def read_tool_calls(response) -> list[ToolRequest]:
    calls = response.choices[0].message.tool_calls or []
    return [ToolRequest(call.id, call.function.name, call.function.arguments) for call in calls]


# ---------------------------------------------------------------- your part: five TODOs

def execute_tool(tool_impl: dict[str, Callable[..., dict]], call: ToolRequest) -> dict:
    """TODO 1.1 — run one call; return its tool message, {"role": "tool", "tool_call_id": call.id,
    "content": the result as JSON text}. Never raise: an unknown tool, arguments that are not JSON,
    or a tool that raises all give {"error": "..."} as the content, under the same id."""
    func = tool_impl.get(call.name)
    try:
        if func is None:
            result = {"error": f"unknown tool: {call.name}"}
        else:
            result = func(**json.loads(call.arguments or "{}"))
    except json.JSONDecodeError as error:
        result = {"error": f"arguments are not valid JSON: {error}"}
    except Exception as error:
        result = {"error": f"{call.name} failed: {error}"}
    return {"role": "tool", "tool_call_id": call.id, "content": json.dumps(result)}


def run_calls(tool_impl: dict[str, Callable[..., dict]], calls: list[ToolRequest]) -> list[dict]:
    """TODO 2.1 — run all the calls at the same time (threads or asyncio); return one tool message
    per call, each under its own call's id, a call that fails with its error message and the others
    with their results. Keep the order of `calls`: the API takes any order, but the same order every
    run keeps the transcript (and its token count) the same."""
    async def fan_out() -> list[dict]:
        queue: asyncio.Queue = asyncio.Queue()
        for item in enumerate(calls):
            queue.put_nowait(item)
        messages: list = [None] * len(calls)

        async def worker() -> None:
            while not queue.empty():
                i, call = queue.get_nowait()
                messages[i] = await asyncio.to_thread(execute_tool, tool_impl, call)

        await asyncio.gather(*(worker() for _ in calls))
        return messages

    return asyncio.run(fan_out())


def run_agent(user_query: str, tool_impl: dict[str, Callable[..., dict]], max_iter: int = 5) -> str:
    """TODO 3.1 — day 07's loop: at most max_iter requests; after the assistant message that asks
    for tools, the tool messages of run_calls for all its calls; the answer when there are none."""
    messages = build_messages(user_query)
    for _ in range(max_iter):
        response = client.chat.completions.create(model=MODEL, messages=messages, tools=get_tools())
        message = response.choices[0].message
        calls = read_tool_calls(response)
        if not calls:
            return message.content or ""
        messages.append(message.model_dump(exclude_none=True) | {"content": message.content or ""})
        messages.extend(run_calls(tool_impl, calls))
    return f"No answer after {max_iter} requests."


def passes(fundamentals: dict, news: dict) -> bool:
    """TODO 4.1 — the screen for one stock, from its get_fundamentals and get_news results: a P/E
    of at most MAX_PE, revenue growth of at least MIN_REVENUE_GROWTH, and no news item that is both
    negative and major. A result that is an error ({"error": ...}) never passes."""
    if "error" in fundamentals or "error" in news:
        return False
    bad = any(i["sentiment"] == "negative" and i["impact"] == "major" for i in news["items"])
    return fundamentals["pe"] <= MAX_PE and fundamentals["revenue_growth_pct"] >= MIN_REVENUE_GROWTH and not bad


def screen(tool_impl: dict[str, Callable[..., dict]], tickers: list[str]) -> list[str]:
    """TODO 4.2 — screen the tickers without a model: make a get_fundamentals and a get_news call
    for each, each with an id of your own; run them all with run_calls; read each result back by
    its id; return the tickers that pass, in the order given."""
    plan = [(t, kind) for t in tickers for kind in ("get_fundamentals", "get_news")]
    calls = [ToolRequest(str(n), kind, json.dumps({"ticker": t})) for n, (t, kind) in enumerate(plan)]
    found = {}
    for message in run_calls(tool_impl, calls):
        t, kind = plan[int(message["tool_call_id"])]
        found[t, kind] = json.loads(message["content"])
    return [t for t in tickers if passes(found[t, "get_fundamentals"], found[t, "get_news"])]


if __name__ == "__main__":
    question = ("Screen AAPL, NVDA, MSFT, AMZN and GOOG: P/E at most 40, revenue growth at least 10%, "
                "no major negative news.")
    started = time.monotonic()
    print(question, "\n->", run_agent(question, TOOL_IMPL))
    print(f"   ({time.monotonic() - started:.2f} s; ten calls of {LATENCY} s one after another: "
          f"{10 * LATENCY:.1f} s)\n")
    started = time.monotonic()
    print("screen:", screen(TOOL_IMPL, ["AAPL", "NVDA", "MSFT", "AMZN", "GOOG"]),
          f"({time.monotonic() - started:.2f} s)")
