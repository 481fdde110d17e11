# expect: full
# style: everything as plain dicts: the response is turned into a dict with model_dump() once, the
# style: calls are read from it, and the assistant turn is the dict with its None fields dropped.
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
    ticker = {"type": "string", "description": "Stock ticker symbol in capitals, like AAPL, TSLA or NVDA"}
    schema = {"type": "object", "properties": {"ticker": ticker}, "required": ["ticker"]}
    function = {"name": "get_quote",
                "description": "Returns the latest price, P/E ratio and 1-year % change for one stock ticker.",
                "parameters": schema}
    return [{"type": "function", "function": function}]


def execute_tool(tool_impl: dict[str, Callable[..., dict]], name: str, arguments: str) -> str:
    if name not in tool_impl:
        return json.dumps({"error": f"unknown tool: {name}"})
    try:
        kwargs = json.loads(arguments)
    except ValueError as exc:
        return json.dumps({"error": f"invalid JSON arguments ({exc})"})
    try:
        result = tool_impl[name](**kwargs)
    except Exception as exc:
        return json.dumps({"error": str(exc)})
    return json.dumps(result)


def build_messages(user_query: str) -> list[dict]:
    system = {"role": "system", "content": SYSTEM_PROMPT}
    user = {"role": "user", "content": user_query}
    return [system, user]


def _message_dict(response) -> dict:
    return response.model_dump()["choices"][0]["message"]


def read_tool_calls(response) -> list[ToolRequest]:
    raw_calls = _message_dict(response).get("tool_calls") or []
    return [ToolRequest(id=c["id"], name=c["function"]["name"], arguments=c["function"]["arguments"])
            for c in raw_calls]


def run_agent(user_query: str, tool_impl: dict[str, Callable[..., dict]], max_iter: int = 5) -> str:
    messages = build_messages(user_query)
    for _ in range(max_iter):
        response = client.chat.completions.create(model=MODEL, messages=messages, tools=get_tools())
        msg = _message_dict(response)
        requests = read_tool_calls(response)
        if not requests:
            return msg["content"]
        assistant = {key: value for key, value in msg.items() if value is not None}
        assistant["content"] = msg.get("content") or ""
        messages.append(assistant)
        for req in requests:
            output = execute_tool(tool_impl, req.name, req.arguments)
            messages.append({"role": "tool", "tool_call_id": req.id, "content": output})
    return "Sorry, I could not reach a final answer within the step limit."


if __name__ == "__main__":
    for question in ["How does AAPL look right now in terms of valuation and 1-year performance? "
                     "Give a short take.", "Compare AAPL and NVDA: which looks more reasonably valued?",
                     "What is a P/E ratio?"]:
        print(question, "\n->", run_agent(question, TOOL_IMPL), "\n")
