# expect-lose: 1.2
# expect-keep: 1.1 1.3
# expect-message: Pass them by name
# why: func(*args.values()) passes the values in the order the model wrote the keys, not by name:
# why: fine for add and multiply, wrong for subtract when the keys come in another order.
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
    return {func.__name__: func for func in functions}


def execute_tool(tools: dict[str, Callable], name: str, args: dict) -> str:
    if name not in tools:
        return f"Error: unknown tool {name}"
    try:
        return str(tools[name](*args.values()))
    except Exception as error:
        return f"Error: {error}"


def react_agent(question: str, tools: dict[str, Callable], max_steps: int = 5) -> str:
    messages = [{"role": "user", "content": question}]
    for _ in range(max_steps):
        decision = llm(messages)
        if decision.get("type") == "final":
            return decision["content"]
        if decision.get("type") != "tool":
            return f"Stopped: unknown decision type {decision.get('type')!r}"
        result = execute_tool(tools, decision["name"], decision["args"])
        messages.append({"role": "assistant", "content": decision})
        messages.append({"role": "tool", "content": result})
    return f"Stopped: no final answer after {max_steps} steps."


if __name__ == "__main__":
    tools = build_registry([add, multiply])
    question = "First work out 5 × 6, then add 10 to the result."
    print(question, "->", react_agent(question, tools))
