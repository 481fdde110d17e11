# expect: full
# style: a richer schema (additionalProperties false, a pattern, a long description), and errors
# style: that keep the exception's type; the loop keeps a transcript through a small helper.
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

QUOTE_SCHEMA = {
    "type": "object",
    "properties": {
        "ticker": {
            "type": "string",
            "description": ("The stock's ticker symbol as listed on its exchange, upper case, "
                            "without a market prefix: AAPL for Apple, NVDA for Nvidia, TSLA for Tesla."),
            "minLength": 1,
            "maxLength": 10,
            "pattern": "^[A-Za-z.\\-]+$",
        },
    },
    "required": ["ticker"],
    "additionalProperties": False,
}


def get_tools() -> list[dict]:
    """TODO 1.1"""
    description = (
        "Fetch the latest market quote of one stock. Returns a JSON object with the ticker, the last "
        "price, the trailing P/E ratio (pe), the percentage change over the past year "
        "(change_1y_pct) and the currency, or {\"error\": ...} when the ticker is unknown. Use it "
        "for any question about a price, a valuation or a performance figure; call it once per "
        "ticker, in parallel when several stocks are compared."
    )
    return [{"type": "function",
             "function": {"name": "get_quote", "description": description, "parameters": QUOTE_SCHEMA}}]


def execute_tool(tool_impl: dict[str, Callable[..., dict]], name: str, arguments: str) -> str:
    """TODO 1.2"""
    def error(text: str) -> str:
        return json.dumps({"error": text}, ensure_ascii=False)

    if name not in tool_impl:
        return error(f"unknown tool: {name}")
    try:
        kwargs = json.loads(arguments)
    except (TypeError, ValueError) as exc:
        return error(f"arguments are not valid JSON: {exc}")
    if not isinstance(kwargs, dict):
        return error("arguments must be a JSON object")
    try:
        value = tool_impl[name](**kwargs)
    except Exception as exc:
        return error(f"{type(exc).__name__}: {exc}")
    return json.dumps(value, ensure_ascii=False)


def build_messages(user_query: str) -> list[dict]:
    """TODO 2.1"""
    return list(({"role": "system", "content": SYSTEM_PROMPT}, {"role": "user", "content": user_query}))


def read_tool_calls(response) -> list[ToolRequest]:
    """TODO 3.1"""
    choice = response.choices[0]
    calls = getattr(choice.message, "tool_calls", None) or []
    return list(map(lambda c: ToolRequest(c.id, c.function.name, c.function.arguments), calls))


def _remember(transcript: list[dict], message: dict) -> None:
    transcript.append(message)


def run_agent(user_query: str, tool_impl: dict[str, Callable[..., dict]], max_iter: int = 5) -> str:
    """TODO 4.1"""
    transcript = build_messages(user_query)
    tools = get_tools()
    for attempt in range(1, max_iter + 1):
        response = client.chat.completions.create(model=MODEL, messages=transcript, tools=tools)
        reply = response.choices[0]
        pending = read_tool_calls(response)
        if not pending:
            return reply.message.content or "(empty answer)"
        _remember(transcript, reply.message.model_dump(exclude_none=True))
        for request in pending:
            _remember(transcript, {"role": "tool", "tool_call_id": request.id,
                                   "content": execute_tool(tool_impl, request.name, request.arguments)})
    return f"Stopped after {max_iter} attempts without an answer."


if __name__ == "__main__":
    for question in ["How does AAPL look right now in terms of valuation and 1-year performance? "
                     "Give a short take.", "Compare AAPL and NVDA: which looks more reasonably valued?",
                     "What is a P/E ratio?"]:
        print(question, "\n->", run_agent(question, TOOL_IMPL), "\n")
