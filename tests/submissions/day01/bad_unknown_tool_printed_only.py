# expect-lose: 1.2
# why: the unknown tool is reported with print() and an empty string goes back, so the model reads nothing
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
    return {f.__name__: f for f in functions}


def execute_tool(tools: dict[str, Callable], name: str, args: dict) -> str:
    if name not in tools:
        print(f"unknown tool {name}")
        return ""
    try:
        return str(tools[name](**args))
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

