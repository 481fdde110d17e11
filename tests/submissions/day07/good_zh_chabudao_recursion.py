# expect: full
# style: recursive loop helper with remaining counter, Chinese unknown-tool wording 查不到工具, read via model_dump dict
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


def get_tools() -> list[dict]:
    ticker = {"type": "string", "description": "股票代码，如 AAPL"}
    parameters = {"type": "object", "properties": {"ticker": ticker}, "required": ["ticker"]}
    return [{"type": "function", "function": {"name": "get_quote", "description": "查询股票价格、市盈率和一年涨跌幅",
                                              "parameters": parameters}}]


def execute_tool(tool_impl: dict[str, Callable[..., dict]], name: str, arguments: str) -> str:
    if name not in tool_impl:
        return json.dumps({"error": f"查不到工具 {name}，可以用的是：{', '.join(tool_impl)}"}, ensure_ascii=False)
    try:
        kwargs = json.loads(arguments)
        if not isinstance(kwargs, dict):
            raise ValueError("参数必须是 JSON 对象")
    except ValueError as e:
        return json.dumps({"error": f"参数解析失败：{e}"}, ensure_ascii=False)
    try:
        return json.dumps(tool_impl[name](**kwargs), ensure_ascii=False)
    except Exception as e:
        return json.dumps({"error": f"{name} 出错了：{e}"}, ensure_ascii=False)


def build_messages(user_query: str) -> list[dict]:
    messages: list[dict] = []
    messages.append({"role": "system", "content": SYSTEM_PROMPT})
    messages.append({"role": "user", "content": user_query})
    return messages


def read_tool_calls(response) -> list[ToolRequest]:
    data = response.model_dump()
    calls = data["choices"][0]["message"].get("tool_calls") or []
    return [ToolRequest(c["id"], c["function"]["name"], c["function"]["arguments"]) for c in calls]


def _loop(messages: list[dict], tool_impl, remaining: int) -> str:
    if remaining <= 0:
        return "抱歉，达到请求次数上限，没能得出结论。"
    response = client.chat.completions.create(model=MODEL, messages=messages, tools=get_tools())
    calls = read_tool_calls(response)
    message = response.choices[0].message
    if not calls:
        return message.content
    messages.append(message.model_dump(exclude_none=True) | {"content": message.content or ""})
    messages.extend({"role": "tool", "tool_call_id": c.id, "content": execute_tool(tool_impl, c.name, c.arguments)}
                    for c in calls)
    return _loop(messages, tool_impl, remaining - 1)


def run_agent(user_query: str, tool_impl: dict[str, Callable[..., dict]], max_iter: int = 5) -> str:
    return _loop(build_messages(user_query), tool_impl, max_iter)
