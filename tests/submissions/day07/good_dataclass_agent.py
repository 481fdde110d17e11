# expect: full
# style: dataclass agent (from a hunt)
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
from dataclasses import dataclass, field
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

def _function_tool(name: str, description: str, **properties: tuple[str, str]) -> dict:
    """One tool in the Chat Completions format; every property is required."""
    return {
        "type": "function",
        "function": {
            "name": name,
            "description": description,
            "parameters": {
                "type": "object",
                "properties": {key: {"type": kind, "description": text} for key, (kind, text) in properties.items()},
                "required": list(properties),
            },
        },
    }


def get_tools() -> list[dict]:
    return [_function_tool("get_quote",
                           "Returns the latest price, P/E ratio and 1-year % change of a stock. "
                           "Pass the ticker symbol in capitals, like AAPL.",
                           ticker=("string", "Stock ticker symbol, e.g. NVDA"))]


def _as_json(value) -> str:
    return json.dumps(value, indent=2, sort_keys=True)


def execute_tool(tool_impl: dict[str, Callable[..., dict]], name: str, arguments: str) -> str:
    if name not in tool_impl:
        return _as_json({"error": f"There is no tool called {name!r}."})
    try:
        kwargs = json.loads(arguments) if arguments.strip() else {}
    except ValueError as exc:
        return _as_json({"error": f"Could not parse the arguments {arguments!r}: {exc}"})
    if not isinstance(kwargs, dict):
        return _as_json({"error": "arguments must be a JSON object"})
    try:
        result = tool_impl[name](**kwargs)
    except Exception as exc:  # noqa: BLE001 - any tool failure goes back to the model
        return _as_json({"error": f"{type(exc).__name__}: {exc}"})
    return _as_json(result)


def build_messages(user_query: str) -> list[dict]:
    system = {"role": "system", "content": SYSTEM_PROMPT}
    user = {"role": "user", "content": user_query}
    return [system, user]


def read_tool_calls(response) -> list[ToolRequest]:
    message = response.choices[0].message
    if not message.tool_calls:
        return []
    requests = []
    for call in message.tool_calls:
        requests.append(ToolRequest(id=call.id, name=call.function.name, arguments=call.function.arguments))
    return requests


@dataclass
class Agent:
    tool_impl: dict
    max_iter: int = 5
    messages: list = field(default_factory=list)

    def ask_model(self):
        return client.chat.completions.create(model=MODEL, messages=self.messages, tools=get_tools())

    def remember_turn(self, message) -> None:
        turn = {"role": "assistant", "content": message.content or "",
                "tool_calls": [call.model_dump() for call in message.tool_calls]}
        self.messages.append(turn)

    def answer(self, user_query: str) -> str:
        self.messages = build_messages(user_query)
        for round_number in range(1, self.max_iter + 1):
            response = self.ask_model()
            calls = read_tool_calls(response)
            if not calls:
                return response.choices[0].message.content
            self.remember_turn(response.choices[0].message)
            if round_number == self.max_iter:
                break  # nobody would read these results
            for call in calls:
                self.messages.append({"role": "tool", "tool_call_id": call.id,
                                      "content": execute_tool(self.tool_impl, call.name, call.arguments)})
        return f"Gave up: the model still wanted tools after {self.max_iter} rounds, so I have no answer."


def run_agent(user_query: str, tool_impl: dict[str, Callable[..., dict]], max_iter: int = 5) -> str:
    return Agent(tool_impl, max_iter).answer(user_query)


if __name__ == "__main__":
    print(run_agent("How does AAPL look?", TOOL_IMPL))
