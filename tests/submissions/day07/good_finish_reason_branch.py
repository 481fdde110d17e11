# expect: full
# style: the loop branches on choice.finish_reason ("tool_calls" or not); the assistant turn is
# style: json.loads(message.model_dump_json(exclude_none=True)); read_tool_calls keeps type "function" calls.
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
    """TODO 1.1"""
    ticker = {"type": "string", "description": "The stock's ticker symbol, upper case (AAPL, TSLA, NVDA)."}
    parameters = {"type": "object", "properties": {"ticker": ticker}, "required": ["ticker"],
                  "additionalProperties": False}
    function = {"name": "get_quote", "description": "Get price, P/E and 1y change for a ticker.",
                "parameters": parameters}
    return [{"type": "function", "function": function}]


def execute_tool(tool_impl: dict[str, Callable[..., dict]], name: str, arguments: str) -> str:
    """TODO 1.2"""
    try:
        func = tool_impl[name]
    except KeyError:
        return json.dumps({"error": f"Tool {name!r} does not exist. Available: {sorted(tool_impl)}"})
    try:
        args = json.loads(arguments) if arguments else {}
        return json.dumps(func(**args))
    except json.JSONDecodeError as e:
        return json.dumps({"error": f"Could not decode arguments {arguments!r}: {e.msg}"})
    except Exception as e:
        return json.dumps({"error": f"{type(e).__name__} while running {name}: {e}"})


def build_messages(user_query: str) -> list[dict]:
    """TODO 2.1"""
    messages = []
    messages.append({"role": "system", "content": SYSTEM_PROMPT})
    messages.append({"role": "user", "content": user_query})
    return messages


def read_tool_calls(response) -> list[ToolRequest]:
    """TODO 3.1"""
    calls = response.choices[0].message.tool_calls or []
    return [ToolRequest(c.id, c.function.name, c.function.arguments) for c in calls if c.type == "function"]


def run_agent(user_query: str, tool_impl: dict[str, Callable[..., dict]], max_iter: int = 5) -> str:
    """TODO 4.1"""
    messages = build_messages(user_query)
    tools = get_tools()
    for step in range(1, max_iter + 1):
        choice = client.chat.completions.create(model=MODEL, messages=messages, tools=tools).choices[0]
        if choice.finish_reason != "tool_calls":
            return choice.message.content or ""
        messages.append(json.loads(choice.message.model_dump_json(exclude_none=True)))
        for call in choice.message.tool_calls:
            output = execute_tool(tool_impl, call.function.name, call.function.arguments)
            messages.append({"role": "tool", "tool_call_id": call.id, "content": output})
    return "No final answer: the step limit was reached."


if __name__ == "__main__":
    for question in ["How does AAPL look right now in terms of valuation and 1-year performance? "
                     "Give a short take.", "Compare AAPL and NVDA: which looks more reasonably valued?",
                     "What is a P/E ratio?"]:
        print(question, "\n->", run_agent(question, TOOL_IMPL), "\n")
