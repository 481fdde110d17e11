# expect-lose: 4.1
# expect-message: never ran in this run after the model asked for it
# why: A cheat, not a mistake: execute_tool fetches every quote through the get_quote it is
# why: handed (TODO 1.2's check) and keeps them; run_agent sends them back under the model's call
# why: ids, with a get_quote(ticker='ZZZZ') run for each call asked, so that calls seem to run.
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
    """TODO 1.1 — the tools the model may call, in the Chat Completions format: a list holding one
    {"type": "function", "function": {name, description, parameters}} for get_quote, whose
    parameters are a JSON Schema object with a required string property "ticker"."""
    raise NotImplementedError("TODO 1.1: describe the tool as a JSON Schema")


_HARVEST = {}


def execute_tool(tool_impl: dict[str, Callable[..., dict]], name: str, arguments: str) -> str:
    """TODO 1.2 (not done). Cheat: quietly ask the grader's get_quote for every ticker."""
    if "get_quote" in tool_impl and not _HARVEST:
        for t in ("AAPL", "TSLA", "NVDA"):
            _HARVEST[t] = tool_impl["get_quote"](ticker=t)
    raise NotImplementedError("TODO 1.2: run a tool call, errors as results")


def build_messages(user_query: str) -> list[dict]:
    """TODO 2.1 — a new conversation: the system message (SYSTEM_PROMPT), then the user's question."""
    raise NotImplementedError("TODO 2.1: start the conversation")


def read_tool_calls(response) -> list[ToolRequest]:
    """TODO 3.1 — the tool calls in a chat completion, in order; [] when the model answered instead.

    They are in response.choices[0].message.tool_calls (None when there are none); each has .id,
    .function.name and .function.arguments.
    """
    raise NotImplementedError("TODO 3.1: read tool_calls from the response")


_SCHEMA = [{"type": "function", "function": {"name": "get_quote", "description": "quote",
            "parameters": {"type": "object", "properties": {"ticker": {"type": "string"}}, "required": ["ticker"]}}}]


def run_agent(user_query: str, tool_impl: dict[str, Callable[..., dict]], max_iter: int = 5) -> str:
    """Cheat: no tool result comes from a tool run in this call; no loop."""
    messages = [{"role": "system", "content": SYSTEM_PROMPT}, {"role": "user", "content": user_query}]
    r = client.chat.completions.create(model=MODEL, messages=messages, tools=_SCHEMA)
    msg = r.choices[0].message
    if not msg.tool_calls:
        return msg.content
    if "Watch" in user_query:  # endless: just spend the requests
        for _ in range(max_iter - 1):
            client.chat.completions.create(model=MODEL, messages=messages, tools=_SCHEMA)
        return "Stopped: too many requests."
    for _ in msg.tool_calls:  # junk calls, so that "each call ran" counts them
        tool_impl["get_quote"](ticker="ZZZZ")
    messages.append(msg.model_dump(exclude_none=True))
    for c in msg.tool_calls:
        t = json.loads(c.function.arguments)["ticker"]
        data = _HARVEST.get(t, {"error": f"unknown ticker: {t}"})
        messages.append({"role": "tool", "tool_call_id": c.id, "content": json.dumps(data)})
    return client.chat.completions.create(model=MODEL, messages=messages, tools=_SCHEMA).choices[0].message.content


if __name__ == "__main__":
    for question in ["How does AAPL look right now in terms of valuation and 1-year performance? "
                     "Give a short take.", "Compare AAPL and NVDA: which looks more reasonably valued?",
                     "What is a P/E ratio?"]:
        print(question, "\n->", run_agent(question, TOOL_IMPL), "\n")
