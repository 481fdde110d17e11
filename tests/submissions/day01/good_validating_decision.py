# expect: full
# style: a decision is checked before use (a dict, a known type, a name and args of the right
# style: kind); the registry refuses a name that is not a string key; messages in Chinese.
"""Day 01 — the agent loop, over decision dicts."""
from __future__ import annotations

from typing import Callable

import mock_llm


def add(a, b):
    return a + b


def multiply(a, b):
    return a * b


def llm(messages: list[dict]) -> dict:
    """Show the model the conversation, get its next decision. Here: the kit's offline mock."""
    return mock_llm.reply("day01", messages)


def build_registry(functions: list[Callable]) -> dict[str, Callable]:
    registry: dict[str, Callable] = {}
    for function in functions:
        if not callable(function):
            raise TypeError(f"{function!r} is not a function")
        registry[function.__name__] = function
    return registry


def execute_tool(tools: dict[str, Callable], name: str, args: dict) -> str:
    if not isinstance(args, dict):
        return f"错误：{name} 的参数必须是对象，收到的是 {args!r}"
    if name not in tools:
        return f"错误：没有名为 {name} 的工具，可用的工具有：{'、'.join(tools)}"
    try:
        return str(tools[name](**args))
    except Exception as error:
        return f"错误：{name} 执行失败：{error}"


def react_agent(question: str, tools: dict[str, Callable], max_steps: int = 5) -> str:
    messages = [{"role": "user", "content": question}]
    for round_number in range(1, max_steps + 1):
        decision = llm(messages)
        kind = decision.get("type") if isinstance(decision, dict) else None
        if kind == "final":
            return str(decision.get("content", ""))
        if kind != "tool":
            return f"第 {round_number} 轮：无法处理的决策类型 {kind!r}"
        name, args = decision.get("name"), decision.get("args") or {}
        observation = execute_tool(tools, str(name), args)
        messages.extend([{"role": "assistant", "content": decision},
                         {"role": "tool", "content": observation}])
    return f"已经调用了 {max_steps} 次模型，仍然没有最终答案。"


if __name__ == "__main__":
    tools = build_registry([add, multiply])
    question = "First work out 5 × 6, then add 10 to the result."
    print(question, "->", react_agent(question, tools))
