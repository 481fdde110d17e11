# expect: full
# style: while True with a request counter checked before each request; tools built once before
# style: the loop; no type hints; nested try blocks in execute_tool; extra request options.
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
    description = ("Returns a JSON quote for a stock ticker: price (USD), pe (price/earnings ratio) and "
                   "change_1y_pct (1-year change in percent). The ticker is an upper-case symbol like AAPL.")
    return [{"type": "function",
             "function": {"name": "get_quote", "description": description,
                          "parameters": {"type": "object",
                                         "properties": {"ticker": {"type": "string", "description": "symbol"}},
                                         "required": ["ticker"]}}}]


def execute_tool(tool_impl, name, arguments):
    if name in tool_impl:
        try:
            args = json.loads(arguments)
        except json.JSONDecodeError as problem:
            return json.dumps({"error": "invalid arguments JSON: %s" % problem})
        else:
            try:
                result = tool_impl[name](**args)
            except Exception as problem:
                return json.dumps({"error": "tool %s failed: %s" % (name, problem)})
            else:
                return json.dumps(result)
    return json.dumps({"error": "unknown tool: %s" % name})


def build_messages(user_query):
    system_message = {"role": "system", "content": SYSTEM_PROMPT}
    return [system_message, {"role": "user", "content": user_query}]


def read_tool_calls(response):
    message = response.choices[0].message
    if not message.tool_calls:
        return []
    return list(map(lambda c: ToolRequest(c.id, c.function.name, c.function.arguments), message.tool_calls))


def run_agent(user_query, tool_impl, max_iter=5):
    messages = build_messages(user_query)
    tools = get_tools()
    sent = 0
    while True:
        if sent >= max_iter:
            return "I gave up: too many tool rounds without a final answer."
        response = client.chat.completions.create(model=MODEL, messages=messages, tools=tools,
                                                  temperature=0, parallel_tool_calls=True)
        sent += 1
        message = response.choices[0].message
        calls = read_tool_calls(response)
        if not calls:
            return message.content if message.content is not None else ""
        messages.append(message.model_dump(exclude_none=True) | {"content": message.content or ""})
        for call in calls:
            messages.append({"role": "tool", "tool_call_id": call.id,
                             "content": execute_tool(tool_impl, call.name, call.arguments)})


if __name__ == "__main__":
    for question in ["How does AAPL look right now in terms of valuation and 1-year performance? "
                     "Give a short take.", "Compare AAPL and NVDA: which looks more reasonably valued?",
                     "What is a P/E ratio?"]:
        print(question, "\n->", run_agent(question, TOOL_IMPL), "\n")
