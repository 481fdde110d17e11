# expect: full
# style: the assistant turn via the openai object's to_dict(), content made a string; the tool
# style: messages added with one extend() of a list comprehension; no type hints.
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
def get_tools():
    return [{
        "type": "function",
        "function": {
            "name": "get_quote",
            "description": "Current quote of a listed stock (price, P/E, 1y % change). Use the ticker, e.g. NVDA.",
            "parameters": {"type": "object", "properties": {"ticker": {"type": "string"}}, "required": ["ticker"]},
        },
    }]


def execute_tool(tool_impl, name, arguments):
    if name not in tool_impl:
        return json.dumps({"error": f"Unknown tool '{name}'. Available tools: {', '.join(tool_impl)}"})
    try:
        kwargs = json.loads(arguments) if arguments.strip() else {}
    except ValueError as exc:
        return json.dumps({"error": "arguments are not valid JSON: " + str(exc)})
    try:
        return json.dumps(tool_impl[name](**kwargs))
    except Exception as exc:
        return json.dumps({"error": f"{type(exc).__name__}: {exc}"})


def build_messages(user_query):
    return list(({"role": "system", "content": SYSTEM_PROMPT}, {"role": "user", "content": user_query}))


def read_tool_calls(response):
    calls = response.choices[0].message.tool_calls
    return [] if calls is None else [ToolRequest(c.id, c.function.name, c.function.arguments) for c in calls]


def run_agent(user_query, tool_impl, max_iter=5):
    messages = build_messages(user_query)
    for _ in range(max_iter):
        response = client.chat.completions.create(model=MODEL, messages=messages, tools=get_tools())
        message = response.choices[0].message
        calls = read_tool_calls(response)
        if not calls:
            return message.content
        turn = message.to_dict()
        turn["content"] = message.content or ""
        messages.append(turn)
        messages.extend([{"role": "tool", "tool_call_id": c.id,
                          "content": execute_tool(tool_impl, c.name, c.arguments)} for c in calls])
    return "The agent hit its iteration limit before answering."


if __name__ == "__main__":
    for question in ["How does AAPL look right now in terms of valuation and 1-year performance? "
                     "Give a short take.", "Compare AAPL and NVDA: which looks more reasonably valued?",
                     "What is a P/E ratio?"]:
        print(question, "\n->", run_agent(question, TOOL_IMPL), "\n")
