# expect: full
# style: execute_tool raises its own exceptions (an UnknownTool, bad JSON) and a decorator turns
# style: every exception into a JSON error result; a while loop with a request counter.
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
import functools


class UnknownTool(LookupError):
    pass


def json_errors(func):
    """Whatever goes wrong inside becomes {"error": "..."} JSON text instead of an exception."""
    @functools.wraps(func)
    def wrapper(*args, **kwargs):
        try:
            return func(*args, **kwargs)
        except UnknownTool as exc:
            return json.dumps({"error": str(exc)})
        except json.JSONDecodeError as exc:
            return json.dumps({"error": f"bad arguments, not JSON: {exc.msg}"})
        except Exception as exc:
            return json.dumps({"error": f"{type(exc).__name__}: {exc}"})
    return wrapper


QUOTE_SCHEMA = {
    "type": "object",
    "properties": {"ticker": {"type": "string", "description": "Exchange ticker symbol, e.g. NVDA"}},
    "required": ["ticker"],
}


def get_tools() -> list[dict]:
    return [{"type": "function",
             "function": {"name": "get_quote",
                          "description": "Look up a stock by ticker: current price, P/E ratio, 1-year change in percent.",
                          "parameters": QUOTE_SCHEMA}}]


@json_errors
def execute_tool(tool_impl: dict[str, Callable[..., dict]], name: str, arguments: str) -> str:
    func = tool_impl.get(name)
    if func is None:
        raise UnknownTool(f"unknown tool: {name}")
    params = json.loads(arguments)
    return json.dumps(func(**params))


def build_messages(user_query: str) -> list[dict]:
    messages = []
    messages.append({"role": "system", "content": SYSTEM_PROMPT})
    messages.append({"role": "user", "content": user_query})
    return messages


def read_tool_calls(response) -> list[ToolRequest]:
    message = response.choices[0].message
    result = []
    if message.tool_calls is None:
        return result
    for tc in message.tool_calls:
        result.append(ToolRequest(tc.id, tc.function.name, tc.function.arguments))
    return result


def run_agent(user_query: str, tool_impl: dict[str, Callable[..., dict]], max_iter: int = 5) -> str:
    messages = build_messages(user_query)
    requests_sent = 0
    while requests_sent < max_iter:
        response = client.chat.completions.create(model=MODEL, messages=messages, tools=get_tools())
        requests_sent += 1
        message = response.choices[0].message
        tool_requests = read_tool_calls(response)
        if len(tool_requests) == 0:
            return message.content
        turn = message.model_dump(exclude_none=True)
        turn["content"] = message.content or ""
        messages.append(turn)
        for tr in tool_requests:
            messages.append({"role": "tool", "tool_call_id": tr.id,
                             "content": execute_tool(tool_impl, tr.name, tr.arguments)})
    return f"No final answer after {requests_sent} requests; giving up."


if __name__ == "__main__":
    for question in ["How does AAPL look right now in terms of valuation and 1-year performance? "
                     "Give a short take.", "Compare AAPL and NVDA: which looks more reasonably valued?",
                     "What is a P/E ratio?"]:
        print(question, "\n->", run_agent(question, TOOL_IMPL), "\n")
