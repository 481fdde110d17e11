# expect: full
# style: a Chinese system prompt, Chinese comments and a Chinese fallback; results dumped with
# style: ensure_ascii=False; history parameter defaulting to None (the right way to share a list).
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

SYSTEM_PROMPT = ("你是一名投研助理。需要股价、市盈率或一年涨跌幅时，一定要调用 get_quote 工具，"
                 "不要凭记忆回答。最终回答尽量简短。")


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
    """TODO 1.1：用 JSON Schema 描述 get_quote。"""
    return [{
        "type": "function",
        "function": {
            "name": "get_quote",
            "description": "查询一只股票的最新行情：价格、市盈率（pe）和一年涨跌幅。ticker 用美股代码，如 AAPL。",
            "parameters": {
                "type": "object",
                "properties": {"ticker": {"type": "string", "description": "股票代码，例如 NVDA"}},
                "required": ["ticker"],
            },
        },
    }]


def execute_tool(tool_impl: dict[str, Callable[..., dict]], name: str, arguments: str) -> str:
    """TODO 1.2：出错也返回 JSON，不抛异常。"""
    if name not in tool_impl:
        return json.dumps({"error": f"unknown tool: {name}"}, ensure_ascii=False)
    try:
        kwargs = json.loads(arguments)
    except json.JSONDecodeError as e:
        return json.dumps({"error": f"参数不是合法 JSON：{e}"}, ensure_ascii=False)
    try:
        return json.dumps(tool_impl[name](**kwargs), ensure_ascii=False)
    except Exception as e:  # 工具自身出错：把原因交给模型
        return json.dumps({"error": f"{name} 执行失败：{e}"}, ensure_ascii=False)


def build_messages(user_query: str, history: list[dict] | None = None) -> list[dict]:
    """TODO 2.1：新对话；可选地接在一段已有历史之后。"""
    messages = list(history) if history is not None else []
    messages.append({"role": "system", "content": SYSTEM_PROMPT})
    messages.append({"role": "user", "content": user_query})
    return messages


def read_tool_calls(response) -> list[ToolRequest]:
    """TODO 3.1"""
    calls = response.choices[0].message.tool_calls or []
    return [ToolRequest(c.id, c.function.name, c.function.arguments) for c in calls]


def run_agent(user_query: str, tool_impl: dict[str, Callable[..., dict]], max_iter: int = 5) -> str:
    """TODO 4.1：主循环。"""
    messages = build_messages(user_query)
    for _ in range(max_iter):
        response = client.chat.completions.create(model=MODEL, messages=messages, tools=get_tools())
        message = response.choices[0].message
        calls = read_tool_calls(response)
        if not calls:  # 没有工具调用：content 就是答案
            return message.content or ""
        messages.append(message.model_dump(exclude_none=True))  # 先追加带 tool_calls 的 assistant 消息
        for call in calls:
            messages.append({"role": "tool", "tool_call_id": call.id,
                             "content": execute_tool(tool_impl, call.name, call.arguments)})
    return f"已调用模型 {max_iter} 次，仍没有得到最终答案。"


if __name__ == "__main__":
    for question in ["How does AAPL look right now in terms of valuation and 1-year performance? "
                     "Give a short take.", "Compare AAPL and NVDA: which looks more reasonably valued?",
                     "What is a P/E ratio?"]:
        print(question, "\n->", run_agent(question, TOOL_IMPL), "\n")
