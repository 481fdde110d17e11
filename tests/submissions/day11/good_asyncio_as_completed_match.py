# expect: full
# style: asyncio.to_thread tasks read with asyncio.as_completed into a dict by id, returned in call order; execute_tool with match; hand-built assistant turn; Chinese errors; screen ids kind/ticker
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
import asyncio


def execute_tool(tool_impl: dict[str, Callable[..., dict]], call: ToolRequest) -> dict:
    def message(content: dict) -> dict:
        return {"role": "tool", "tool_call_id": call.id, "content": json.dumps(content, ensure_ascii=False)}

    match tool_impl.get(call.name):
        case None:
            return message({"error": f"未知工具 (unknown tool): {call.name}"})
        case func:
            try:
                kwargs = json.loads(call.arguments) if call.arguments else {}
            except ValueError as error:
                return message({"error": f"参数不是合法的 JSON: {error}"})
            try:
                return message(func(**kwargs))
            except Exception as error:  # the tool's own failure stays inside its call
                return message({"error": f"{call.name} 出错: {error}"})


async def _run_all(tool_impl, calls: list[ToolRequest]) -> list[dict]:
    tasks = {asyncio.ensure_future(asyncio.to_thread(execute_tool, tool_impl, c)): c.id for c in calls}
    by_id: dict[str, dict] = {}
    for finished in asyncio.as_completed(list(tasks)):
        msg = await finished
        by_id[msg["tool_call_id"]] = msg
    return [by_id[c.id] for c in calls]


def run_calls(tool_impl: dict[str, Callable[..., dict]], calls: list[ToolRequest]) -> list[dict]:
    if not calls:
        return []
    return asyncio.run(_run_all(tool_impl, calls))


def run_agent(user_query: str, tool_impl: dict[str, Callable[..., dict]], max_iter: int = 5) -> str:
    messages = build_messages(user_query)
    tools = get_tools()
    for _ in range(max_iter):
        response = client.chat.completions.create(model=MODEL, messages=messages, tools=tools)
        message = response.choices[0].message
        calls = read_tool_calls(response)
        if not calls:
            return message.content or ""
        messages.append({"role": "assistant", "content": message.content or "",
                         "tool_calls": [{"id": c.id, "type": "function",
                                         "function": {"name": c.name, "arguments": c.arguments}} for c in calls]})
        messages += run_calls(tool_impl, calls)
    return f"没有得到最终答案：已经请求了 {max_iter} 次。"


def passes(fundamentals: dict, news: dict) -> bool:
    if "error" in fundamentals or "error" in news:
        return False
    return all([
        fundamentals["pe"] <= MAX_PE,
        fundamentals["revenue_growth_pct"] >= MIN_REVENUE_GROWTH,
        not any(i["sentiment"] == "negative" and i["impact"] == "major" for i in news["items"]),
    ])


def screen(tool_impl: dict[str, Callable[..., dict]], tickers: list[str]) -> list[str]:
    kinds = {"fundamentals": "get_fundamentals", "news": "get_news"}
    calls = [ToolRequest(f"{kind}/{t}", tool, json.dumps({"ticker": t}))
             for t in tickers for kind, tool in kinds.items()]
    data = {m["tool_call_id"]: json.loads(m["content"]) for m in run_calls(tool_impl, calls)}
    return [t for t in tickers if passes(data[f"fundamentals/{t}"], data[f"news/{t}"])]
