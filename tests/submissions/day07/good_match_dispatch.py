# expect: full
# style: execute_tool with a match statement; a counted for loop from 1; the assistant turn from
# style: model_dump(exclude_none=True) with setdefault for a content left out.
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


# ---------------------------------------------------------------- my part
def get_tools() -> list[dict]:
    tool = {
        "type": "function",
        "function": {
            "name": "get_quote",
            "description": "Fetches a stock quote. Input: a ticker symbol like AAPL. Output: price, pe, change_1y_pct, currency.",
            "parameters": {
                "type": "object",
                "properties": {"ticker": {"type": "string"}},
                "required": ["ticker"],
            },
        },
    }
    return [tool]


def execute_tool(tool_impl: dict[str, Callable[..., dict]], name: str, arguments: str) -> str:
    match tool_impl.get(name):
        case None:
            return json.dumps({"error": f"no tool named '{name}' is available"})
        case func:
            try:
                args = json.loads(arguments)
            except json.JSONDecodeError as err:
                return json.dumps({"error": f"arguments are not JSON: {err}"})
            try:
                value = func(**args)
            except Exception as err:
                return json.dumps({"error": repr(err)})
            return json.dumps(value, ensure_ascii=False)


def build_messages(user_query: str) -> list[dict]:
    return [
        {"role": "system", "content": SYSTEM_PROMPT},
        {"role": "user", "content": user_query},
    ]


def read_tool_calls(response) -> list[ToolRequest]:
    requests: list[ToolRequest] = []
    for call in response.choices[0].message.tool_calls or []:
        fn = call.function
        requests.append(ToolRequest(call.id, fn.name, fn.arguments))
    return requests


def run_agent(user_query: str, tool_impl: dict[str, Callable[..., dict]], max_iter: int = 5) -> str:
    messages = build_messages(user_query)
    for attempt in range(1, max_iter + 1):
        completion = client.chat.completions.create(model=MODEL, messages=messages, tools=get_tools())
        reply = completion.choices[0].message
        pending = read_tool_calls(completion)
        if not pending:
            return reply.content or ""
        turn = reply.model_dump(exclude_none=True)
        turn.setdefault("content", "")
        messages.append(turn)
        for request in pending:
            messages.append({
                "role": "tool",
                "tool_call_id": request.id,
                "content": execute_tool(tool_impl, request.name, request.arguments),
            })
    return "Max iterations reached without a final answer."


if __name__ == "__main__":
    for question in ["How does AAPL look right now in terms of valuation and 1-year performance? "
                     "Give a short take.", "Compare AAPL and NVDA: which looks more reasonably valued?",
                     "What is a P/E ratio?"]:
        print(question, "\n->", run_agent(question, TOOL_IMPL), "\n")
