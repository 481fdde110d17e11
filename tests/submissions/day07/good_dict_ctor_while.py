# expect: full
# style: dict() constructors, helper builders, hand-built assistant dict, while counter, compact separators, ensure_ascii=False
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


def _tool_schema(name: str, description: str, **params: str) -> dict:
    properties = {p: dict(type="string", description=d) for p, d in params.items()}
    return dict(type="function",
                function=dict(name=name, description=description,
                              parameters=dict(type="object", properties=properties, required=list(params))))


def get_tools() -> list[dict]:
    return [_tool_schema("get_quote",
                         "Latest quote of a stock: price, P/E ratio and 1-year % change. Ticker like AAPL.",
                         ticker="Ticker symbol, e.g. AAPL")]


def _as_json(obj) -> str:
    return json.dumps(obj, ensure_ascii=False, separators=(",", ":"))


def execute_tool(tool_impl: dict[str, Callable[..., dict]], name: str, arguments: str) -> str:
    if name not in tool_impl:
        return _as_json(dict(error=f"unknown tool: {name}"))
    try:
        kwargs = json.loads(arguments)
    except ValueError as exc:
        return _as_json(dict(error=f"invalid JSON arguments: {exc}"))
    try:
        result = tool_impl[name](**kwargs)
    except Exception as exc:  # noqa: BLE001
        return _as_json(dict(error=f"{name} raised {type(exc).__name__}: {exc}"))
    return _as_json(result)


def _system(text: str) -> dict:
    return dict(role="system", content=text)


def _user(text: str) -> dict:
    return dict(role="user", content=text)


def build_messages(user_query: str) -> list[dict]:
    return [_system(SYSTEM_PROMPT), _user(user_query)]


def read_tool_calls(response) -> list[ToolRequest]:
    message = response.choices[0].message
    if not message.tool_calls:
        return []
    return [ToolRequest(id=c.id, name=c.function.name, arguments=c.function.arguments) for c in message.tool_calls]


def _assistant(message, calls: list[ToolRequest]) -> dict:
    return dict(role="assistant", content=message.content or "",
                tool_calls=[dict(id=c.id, type="function", function=dict(name=c.name, arguments=c.arguments))
                            for c in calls])


def _tool_result(call_id: str, content: str) -> dict:
    return dict(role="tool", tool_call_id=call_id, content=content)


def run_agent(user_query: str, tool_impl: dict[str, Callable[..., dict]], max_iter: int = 5) -> str:
    messages = build_messages(user_query)
    sent = 0
    while sent < max_iter:
        response = client.chat.completions.create(model=MODEL, messages=messages, tools=get_tools())
        sent += 1
        calls = read_tool_calls(response)
        if not calls:
            return response.choices[0].message.content
        messages.append(_assistant(response.choices[0].message, calls))
        for call in calls:
            messages.append(_tool_result(call.id, execute_tool(tool_impl, call.name, call.arguments)))
    return f"Sorry, I could not find an answer within {max_iter} requests."
