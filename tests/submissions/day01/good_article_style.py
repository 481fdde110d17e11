# expect: full
# style: close to the source article: tools.get, one try/except, the decision dict itself as the
# style: assistant message's content, a print of every round.
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
    tools = {}
    for func in functions:
        tools[func.__name__] = func
    return tools


def execute_tool(tools: dict[str, Callable], name: str, args: dict) -> str:
    func = tools.get(name)
    if func is None:
        return f"未知工具：{name}"
    try:
        result = func(**args)
    except Exception as e:
        return f"工具执行失败：{e}"
    return str(result)


def react_agent(question: str, tools: dict[str, Callable], max_steps: int = 5) -> str:
    messages = [
        {"role": "user", "content": question}
    ]
    for step in range(max_steps):
        # 1. the model decides
        decision = llm(messages)
        print(f"round {step + 1}: {decision}")
        # 2. done?
        if decision["type"] == "final":
            return decision["content"]
        if decision["type"] != "tool":
            return f"未知决策类型：{decision['type']}"
        # 3. run the tool
        result = execute_tool(tools, decision["name"], decision["args"])
        # 4. the Action, then the Observation
        messages.append({"role": "assistant", "content": decision})
        messages.append({"role": "tool", "content": str(result)})
    return "超过最大执行步数"


if __name__ == "__main__":
    tools = build_registry([add, multiply])
    question = "First work out 5 × 6, then add 10 to the result."
    print(question, "->", react_agent(question, tools))
