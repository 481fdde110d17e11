# expect: full
# style: the unknown-tool error in Chinese, 无法找到工具 (cannot find the tool)
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
    """把每个函数以它的名字登记。"""
    return {fn.__name__: fn for fn in functions}


def execute_tool(tools: dict[str, Callable], name: str, args: dict) -> str:
    # 先查找工具，再调用
    if name not in tools:
        return f"错误：无法找到工具 {name}"
    try:
        result = tools[name](**args)
    except Exception as e:
        return f"错误：工具 {name} 执行出错：{e}"
    return str(result)


def react_agent(question: str, tools: dict[str, Callable], max_steps: int = 5) -> str:
    messages: list[dict] = [{"role": "user", "content": question}]
    step = 0
    while step < max_steps:
        step += 1
        decision = llm(messages)
        t = decision.get("type")
        if t == "final":
            return decision["content"]
        elif t == "tool":
            observation = execute_tool(tools, decision["name"], decision.get("args", {}))
            messages.append({"role": "assistant", "content": decision})
            messages.append({"role": "tool", "content": observation})
        else:
            return f"无法处理类型为 {t} 的决策"
    return f"已经调用模型 {max_steps} 次，仍然没有得到最终答案。"


if __name__ == "__main__":
    tools = build_registry([add, multiply])
    question = "First work out 5 × 6, then add 10 to the result."
    print(question, "->", react_agent(question, tools))
