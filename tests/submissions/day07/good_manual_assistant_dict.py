# expect: full
# style: the assistant message is rebuilt by hand from the ToolRequest list, no model_dump.
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

def get_tools() -> list[dict]:
    """TODO 1.1 — the get_quote tool as a JSON Schema."""
    ticker = {"type": "string", "description": "The exchange symbol, e.g. AAPL, TSLA, NVDA"}
    function = {
        "name": "get_quote",
        "description": "Returns price, P/E and one-year percentage change for one stock.",
        "parameters": {"type": "object", "properties": {"ticker": ticker}, "required": ["ticker"]},
    }
    return [{"type": "function", "function": function}]


def execute_tool(tool_impl: dict[str, Callable[..., dict]], name: str, arguments: str) -> str:
    """TODO 1.2 — errors as {"error": ...}, never raise."""
    try:
        func = tool_impl[name]
    except KeyError:
        return json.dumps({"error": "unknown tool: " + name})
    try:
        kwargs = json.loads(arguments) if arguments else {}
        if not isinstance(kwargs, dict):
            raise ValueError("arguments must be a JSON object")
    except ValueError as problem:  # JSONDecodeError is a ValueError
        return json.dumps({"error": "invalid arguments: " + str(problem)})
    try:
        output = func(**kwargs)
    except Exception as problem:
        return json.dumps({"error": f"{name} raised {type(problem).__name__}: {problem}"})
    return json.dumps(output, ensure_ascii=False)


def build_messages(user_query: str) -> list[dict]:
    """TODO 2.1"""
    system = {"role": "system", "content": SYSTEM_PROMPT}
    user = {"role": "user", "content": user_query}
    return [system, user]


def read_tool_calls(response) -> list[ToolRequest]:
    """TODO 3.1"""
    tool_calls = response.choices[0].message.tool_calls
    if tool_calls is None:
        return []
    return [ToolRequest(c.id, c.function.name, c.function.arguments) for c in tool_calls]


def assistant_message(content, requests: list[ToolRequest]) -> dict:
    """The assistant turn as the API expects it back, built from our own records."""
    return {
        "role": "assistant",
        "content": content,
        "tool_calls": [
            {"id": r.id, "type": "function", "function": {"name": r.name, "arguments": r.arguments}}
            for r in requests
        ],
    }


def run_agent(user_query: str, tool_impl: dict[str, Callable[..., dict]], max_iter: int = 5) -> str:
    """TODO 4.1"""
    messages = build_messages(user_query)
    for _ in range(max_iter):
        completion = client.chat.completions.create(model=MODEL, messages=messages, tools=get_tools())
        requests = read_tool_calls(completion)
        content = completion.choices[0].message.content
        if not requests:
            return content or ""
        messages.append(assistant_message(content, requests))
        for r in requests:
            messages.append({"role": "tool", "tool_call_id": r.id,
                             "content": execute_tool(tool_impl, r.name, r.arguments)})
    return f"No final answer after {max_iter} requests to the model."


if __name__ == "__main__":
    for question in ["How does AAPL look right now in terms of valuation and 1-year performance? "
                     "Give a short take.", "Compare AAPL and NVDA: which looks more reasonably valued?",
                     "What is a P/E ratio?"]:
        print(question, "\n->", run_agent(question, TOOL_IMPL), "\n")
