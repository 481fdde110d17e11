# expect-lose: 1.2 4.1
# expect-keep: 1.1 2.1 3.1
# expect-message: Broken failed: the service is down (HTTP 503)
# why: execute_tool looks the tool up in the module's TOOL_IMPL instead of the tool_impl it is given,
# why: so the tools handed in by the caller are never used.
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

ERRORS = {
    "unknown": "unknown tool: {name}",
    "json": "arguments are not valid JSON ({detail})",
    "raised": "{name} failed: {detail}",
}


def get_tools() -> list[dict]:
    """TODO 1.1"""
    schema = dict(type="object", properties=dict(ticker=dict(type="string")), required=["ticker"])
    return [dict(type="function",
                 function=dict(name="get_quote",
                               description="Stock quote lookup (price, pe, change_1y_pct, currency) by ticker symbol.",
                               parameters=schema))]


def _error(kind: str, **fields) -> str:
    return json.dumps({"error": ERRORS[kind].format(**fields)})


def execute_tool(tool_impl: dict[str, Callable[..., dict]], name: str, arguments: str) -> str:
    """TODO 1.2"""
    func = TOOL_IMPL.get(name)
    if func is None:
        return _error("unknown", name=name)
    try:
        kwargs = json.loads(arguments)
    except ValueError as e:
        return _error("json", detail=e)
    try:
        return json.dumps(func(**kwargs))
    except Exception as e:  # noqa: BLE001 — every failure becomes a result the model can read
        return _error("raised", name=name, detail=e)


def build_messages(user_query: str) -> list[dict]:
    """TODO 2.1"""
    return [dict(role="system", content=SYSTEM_PROMPT), dict(role="user", content=user_query)]


def read_tool_calls(response) -> list[ToolRequest]:
    """TODO 3.1"""
    out: list[ToolRequest] = []
    for call in response.choices[0].message.tool_calls or ():
        out.append(ToolRequest(call.id, call.function.name, call.function.arguments))
    return out


def _answer(messages, response, calls, tool_impl):
    return response.choices[0].message.content or ""


def _run_calls(messages, response, calls, tool_impl):
    messages.append(response.choices[0].message.model_dump(exclude_none=True))
    for call in calls:
        messages.append({"role": "tool", "tool_call_id": call.id,
                         "content": execute_tool(tool_impl, call.name, call.arguments)})
    return None  # keep looping


NEXT = {False: _answer, True: _run_calls}


def run_agent(user_query: str, tool_impl: dict[str, Callable[..., dict]], max_iter: int = 5) -> str:
    """TODO 4.1"""
    messages = build_messages(user_query)
    iteration = 0
    while iteration < max_iter:
        iteration += 1
        response = client.chat.completions.create(model=MODEL, messages=messages, tools=get_tools())
        calls = read_tool_calls(response)
        answer = NEXT[bool(calls)](messages, response, calls, tool_impl)
        if answer is not None:
            return answer
    return "I stopped after %d model calls without a final answer." % iteration


if __name__ == "__main__":
    for question in ["How does AAPL look right now in terms of valuation and 1-year performance? "
                     "Give a short take.", "Compare AAPL and NVDA: which looks more reasonably valued?",
                     "What is a P/E ratio?"]:
        print(question, "\n->", run_agent(question, TOOL_IMPL), "\n")
