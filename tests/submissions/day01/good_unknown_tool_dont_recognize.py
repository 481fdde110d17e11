# expect: full
# style: the unknown-tool error says "I don't recognize the tool", and lists none
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
    return dict((f.__name__, f) for f in functions)


def execute_tool(tools: dict[str, Callable], name: str, args: dict) -> str:
    func = tools.get(name)
    if func is None:
        return f"Error: I don't recognize the tool '{name}'."
    try:
        return str(func(**args))
    except Exception as exc:
        return f"Error: {exc}"


def react_agent(question: str, tools: dict[str, Callable], max_steps: int = 5) -> str:
    messages = [{"role": "user", "content": question}]
    for _ in range(max_steps):
        decision = llm(messages)
        if decision["type"] == "final":
            return decision["content"]
        if decision["type"] != "tool":
            return f"Unexpected decision type: {decision['type']}"
        messages.append({"role": "assistant", "content": decision})
        messages.append({"role": "tool", "content": execute_tool(tools, decision["name"], decision["args"])})
    return "No final answer within the step limit."


if __name__ == "__main__":
    tools = build_registry([add, multiply])
    question = "First work out 5 × 6, then add 10 to the result."
    print(question, "->", react_agent(question, tools))
