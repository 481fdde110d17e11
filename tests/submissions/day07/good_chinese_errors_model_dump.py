# expect: full
# style: Chinese error/fallback wording, plain model_dump() (all fields, nulls kept) with content fixed, for-range from 1, print logging
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
    schema = {"type": "object",
              "properties": {"ticker": {"type": "string", "description": "股票代码，例如 AAPL"}},
              "required": ["ticker"]}
    return [{"type": "function", "function": {"name": "get_quote",
                                              "description": "查询股票最新行情：价格、市盈率(P/E)、近一年涨跌幅。参数是股票代码，如 AAPL、NVDA。",
                                              "parameters": schema}}]


def execute_tool(tool_impl: dict[str, Callable[..., dict]], name: str, arguments: str) -> str:
    func = tool_impl.get(name)
    if func is None:
        return json.dumps({"error": f"工具 {name} 不存在"}, ensure_ascii=False)
    try:
        kwargs = json.loads(arguments)
    except json.JSONDecodeError as e:
        return json.dumps({"error": f"参数不是合法的 JSON：{e}"}, ensure_ascii=False)
    try:
        output = func(**kwargs)
    except Exception as e:
        return json.dumps({"error": f"工具 {name} 执行出错：{e}"}, ensure_ascii=False)
    return json.dumps(output, ensure_ascii=False)


def build_messages(user_query: str) -> list[dict]:
    system = {"role": "system", "content": SYSTEM_PROMPT}
    user = {"role": "user", "content": user_query}
    return [system, user]


def read_tool_calls(response) -> list[ToolRequest]:
    result: list[ToolRequest] = []
    for call in response.choices[0].message.tool_calls or []:
        result.append(ToolRequest(call.id, call.function.name, call.function.arguments))
    return result


def run_agent(user_query: str, tool_impl: dict[str, Callable[..., dict]], max_iter: int = 5) -> str:
    messages = build_messages(user_query)
    for step in range(1, max_iter + 1):
        print(f"[第 {step} 轮] 发送 {len(messages)} 条消息")
        response = client.chat.completions.create(model=MODEL, messages=messages, tools=get_tools())
        message = response.choices[0].message
        calls = read_tool_calls(response)
        if len(calls) == 0:
            print("[完成]")
            return message.content
        entry = message.model_dump()
        entry["content"] = message.content or ""
        messages.append(entry)
        for call in calls:
            output = execute_tool(tool_impl, call.name, call.arguments)
            print(f"  {call.name}({call.arguments}) -> {output}")
            messages.append({"role": "tool", "tool_call_id": call.id, "content": output})
    return f"已达到最大步数（{max_iter} 次请求），仍未得到最终答案。"
