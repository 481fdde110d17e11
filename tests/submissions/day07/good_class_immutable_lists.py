# expect: full
# style: Agent class; messages never mutated (new list each round via +); unknown-tool wording 'tool_impl has nothing registered under'; error via repr-like type name; dataclass fields by name
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


TOOLS_SPEC = [{
    "type": "function",
    "function": {
        "name": "get_quote",
        "description": "Returns a stock's current price, P/E ratio and 1-year change in percent. "
                       "Pass the exchange ticker symbol (e.g. AAPL, NVDA), not the company name.",
        "parameters": {"type": "object", "properties": {"ticker": {"type": "string"}}, "required": ["ticker"]},
    },
}]


def get_tools() -> list[dict]:
    import copy
    return copy.deepcopy(TOOLS_SPEC)


def execute_tool(tool_impl: dict[str, Callable[..., dict]], name: str, arguments: str) -> str:
    try:
        func = tool_impl[name]
    except KeyError:
        return json.dumps({"error": f"tool_impl has nothing registered under {name!r}"})
    try:
        parsed = json.loads(arguments)
    except json.JSONDecodeError as err:
        return json.dumps({"error": f"could not parse arguments {arguments!r}: {err.msg}"})
    try:
        return json.dumps(func(**parsed))
    except Exception as err:
        return json.dumps({"error": f"{type(err).__name__}: {err}"})


def build_messages(user_query: str) -> list[dict]:
    return list(({"role": "system", "content": SYSTEM_PROMPT}, {"role": "user", "content": user_query}))


def read_tool_calls(response) -> list[ToolRequest]:
    tool_calls = response.choices[0].message.tool_calls
    if tool_calls is None:
        return []
    return [ToolRequest(id=tc.id, name=tc.function.name, arguments=tc.function.arguments) for tc in tool_calls]


class Agent:
    def __init__(self, tool_impl: dict[str, Callable[..., dict]], max_iter: int):
        self.tool_impl = tool_impl
        self.max_iter = max_iter

    def ask_model(self, messages: list[dict]):
        return client.chat.completions.create(model=MODEL, messages=messages, tools=get_tools())

    def results(self, calls: list[ToolRequest]) -> list[dict]:
        return [{"role": "tool", "tool_call_id": c.id, "content": execute_tool(self.tool_impl, c.name, c.arguments)}
                for c in calls]

    def run(self, user_query: str) -> str:
        messages = build_messages(user_query)
        for _ in range(self.max_iter):
            response = self.ask_model(messages)
            calls = read_tool_calls(response)
            if not calls:
                return response.choices[0].message.content
            msg = response.choices[0].message
            turn = msg.model_dump(exclude_none=True) | {"content": msg.content or ""}
            messages = messages + [turn] + self.results(calls)
        return "No final answer: the step limit was reached before the model finished."


def run_agent(user_query: str, tool_impl: dict[str, Callable[..., dict]], max_iter: int = 5) -> str:
    return Agent(tool_impl, max_iter).run(user_query)
