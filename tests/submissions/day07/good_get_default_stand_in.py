# expect: full
# style: execute_tool looks the tool up with tool_impl.get(name, fallback), the fallback a stand-in
# style: tool that returns the unknown-tool error; the loop drains a deque of pending calls; the
# style: fallback message quotes the latest tool result.
"""Day 07 — native function calling: the model's own `tool_calls` instead of a text protocol.

You describe each tool with a JSON Schema; the model answers either with text (done) or with
`tool_calls`: structured requests "call get_quote with {"ticker": "AAPL"}", each with an id. Your
code runs them and sends each result back as a `tool` message carrying that id:

    messages = [system, user]
    response = client.chat.completions.create(model=MODEL, messages=messages, tools=get_tools())
    no tool_calls?  -> response.choices[0].message.content is the answer
    tool_calls?     -> append the assistant message (with its tool_calls), then for each call one
                       {"role": "tool", "tool_call_id": call.id, "content": result}; ask again

`client` is a genuine openai.OpenAI client. Here its transport is the kit's mock model (offline,
no key); pointed at a real provider, the same code works unchanged (day12).

Fill in the five TODOs, then run `python validate.py day07`; run this file to watch your agent.
"""
from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Callable

from mock_llm.http import openai_client

client = openai_client("day07")
MODEL = "mock-react-1"

SYSTEM_PROMPT = ("You are a research assistant. Whenever you need a price, a P/E ratio or a "
                 "performance figure, call the get_quote tool instead of relying on memory. "
                 "Keep final answers short.")


# ---------------------------------------------------------------- given: the tool and its data

QUOTES = {
    "AAPL": {"price": 195.3, "pe": 31.2, "change_1y_pct": 24.5, "currency": "USD"},
    "TSLA": {"price": 178.6, "pe": 65.4, "change_1y_pct": -8.3, "currency": "USD"},
    "NVDA": {"price": 1180.0, "pe": 72.1, "change_1y_pct": 198.0, "currency": "USD"},
}


def get_quote(ticker: str) -> dict:
    """Made-up market data. An unknown ticker is an error result, which the model should read."""
    key = ticker.upper()
    if key not in QUOTES:
        return {"error": f"unknown ticker: {ticker}"}
    return {"ticker": key, **QUOTES[key]}


TOOL_IMPL: dict[str, Callable[..., dict]] = {"get_quote": get_quote}


@dataclass
class ToolRequest:
    """One tool call the model asked for."""
    id: str  # the tool_call_id its result must carry
    name: str
    arguments: str  # JSON text, exactly as the model wrote it


# ---------------------------------------------------------------- your part: five TODOs

from collections import deque


def get_tools() -> list[dict]:
    """TODO 1.1"""
    return [{"type": "function", "function": {
        "name": "get_quote",
        "description": "Market data for a stock ticker (price, P/E, 1-year change). Call once per ticker.",
        "parameters": {"type": "object", "properties": {"ticker": {"type": "string"}}, "required": ["ticker"]}}}]


def execute_tool(tool_impl: dict[str, Callable[..., dict]], name: str, arguments: str) -> str:
    """TODO 1.2"""
    def not_a_tool(**_ignored) -> dict:
        return {"error": f"unknown tool: {name} (available: {', '.join(tool_impl) or 'none'})"}

    func = tool_impl.get(name, not_a_tool)
    try:
        kwargs = json.loads(arguments)
    except json.JSONDecodeError as exc:
        return json.dumps({"error": f"arguments are not valid JSON: {exc}"})
    try:
        return json.dumps(func(**kwargs))
    except Exception as exc:
        return json.dumps({"error": f"{name} failed: {exc}"})


def build_messages(user_query: str) -> list[dict]:
    """TODO 2.1"""
    return [{"role": "system", "content": SYSTEM_PROMPT}, {"role": "user", "content": user_query}]


def read_tool_calls(response) -> list[ToolRequest]:
    """TODO 3.1"""
    calls = response.choices[0].message.tool_calls
    if calls is None:
        return []
    return list(map(lambda c: ToolRequest(c.id, c.function.name, c.function.arguments), calls))


def run_agent(user_query: str, tool_impl: dict[str, Callable[..., dict]], max_iter: int = 5) -> str:
    """TODO 4.1"""
    messages = build_messages(user_query)
    latest = None
    for _ in range(max_iter):
        response = client.chat.completions.create(model=MODEL, messages=messages, tools=get_tools())
        pending = deque(read_tool_calls(response))
        if not pending:
            return response.choices[0].message.content or ""
        messages.append(response.choices[0].message.model_dump(exclude_none=True))
        while pending:
            call = pending.popleft()
            latest = execute_tool(tool_impl, call.name, call.arguments)
            messages.append({"role": "tool", "tool_call_id": call.id, "content": latest})
    return f"I ran out of steps ({max_iter}) before the model answered. Latest data I fetched: {latest}"


if __name__ == "__main__":
    for question in ["How does AAPL look right now in terms of valuation and 1-year performance? "
                     "Give a short take.", "Compare AAPL and NVDA: which looks more reasonably valued?",
                     "What is a P/E ratio?"]:
        print(question, "\n->", run_agent(question, TOOL_IMPL), "\n")
