# expect: full
# style: messages built with the openai package's TypedDicts (ChatCompletionSystemMessageParam,
# style: ChatCompletionToolMessageParam...); execute_tool bound to its tool_impl with functools.partial.
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

import functools

from openai.types.chat import (ChatCompletionAssistantMessageParam, ChatCompletionMessageParam,
                               ChatCompletionSystemMessageParam, ChatCompletionToolMessageParam,
                               ChatCompletionToolParam, ChatCompletionUserMessageParam)


def get_tools() -> list[ChatCompletionToolParam]:
    """TODO 1.1"""
    return [ChatCompletionToolParam(type="function", function={
        "name": "get_quote",
        "description": "Returns price, P/E ratio and 1-year % change of a stock, by ticker symbol.",
        "parameters": {"type": "object", "properties": {"ticker": {"type": "string"}}, "required": ["ticker"]},
    })]


def execute_tool(tool_impl: dict[str, Callable[..., dict]], name: str, arguments: str) -> str:
    """TODO 1.2"""
    tool = tool_impl.get(name)
    if not callable(tool):
        return json.dumps({"error": f"no tool called {name}"})
    try:
        parsed = json.loads(arguments)
    except ValueError as error:
        return json.dumps({"error": f"bad arguments JSON: {error}"})
    try:
        output = tool(**parsed)
    except Exception as error:  # the model gets the failure as data, never a crash
        return json.dumps({"error": f"{name} raised {error.__class__.__name__}: {error}"})
    return json.dumps(output)


def build_messages(user_query: str) -> list[ChatCompletionMessageParam]:
    """TODO 2.1"""
    return [ChatCompletionSystemMessageParam(role="system", content=SYSTEM_PROMPT),
            ChatCompletionUserMessageParam(role="user", content=user_query)]


def read_tool_calls(response) -> list[ToolRequest]:
    """TODO 3.1"""
    requests = []
    for tool_call in response.choices[0].message.tool_calls or []:
        fn = tool_call.function
        requests.append(ToolRequest(tool_call.id, fn.name, fn.arguments))
    return requests


def run_agent(user_query: str, tool_impl: dict[str, Callable[..., dict]], max_iter: int = 5) -> str:
    """TODO 4.1"""
    run_tool = functools.partial(execute_tool, tool_impl)
    messages = build_messages(user_query)
    for _ in range(max_iter):
        completion = client.chat.completions.create(model=MODEL, messages=messages, tools=get_tools())
        reply = completion.choices[0].message
        requests = read_tool_calls(completion)
        if not requests:
            return reply.content or ""
        messages.append(ChatCompletionAssistantMessageParam(
            role="assistant", content=reply.content,
            tool_calls=[{"id": r.id, "type": "function", "function": {"name": r.name, "arguments": r.arguments}}
                        for r in requests]))
        messages.extend(ChatCompletionToolMessageParam(role="tool", tool_call_id=r.id,
                                                       content=run_tool(r.name, r.arguments))
                        for r in requests)
    return f"I gave up after {max_iter} requests to the model without getting a final answer."


if __name__ == "__main__":
    for question in ["How does AAPL look right now in terms of valuation and 1-year performance? "
                     "Give a short take.", "Compare AAPL and NVDA: which looks more reasonably valued?",
                     "What is a P/E ratio?"]:
        print(question, "\n->", run_agent(question, TOOL_IMPL), "\n")
