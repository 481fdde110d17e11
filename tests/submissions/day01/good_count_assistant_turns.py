# expect: full
# style: the step count is read from the messages themselves (assistant turns so far); the assistant message holds a copy of the decision
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
    names = [f.__name__ for f in functions]
    return dict(zip(names, functions))


def execute_tool(tools: dict[str, Callable], name: str, args: dict) -> str:
    if name in tools:
        try:
            value = tools[name](**args)
        except Exception as problem:
            return "Error: " + str(problem)
        return str(value)
    return "Error: unknown tool '" + name + "'"


def react_agent(question: str, tools: dict[str, Callable], max_steps: int = 5) -> str:
    messages = [{"role": "user", "content": question}]

    def steps_taken():
        return sum(1 for m in messages if m["role"] == "assistant")

    while steps_taken() < max_steps:
        decision = llm(messages)
        if decision.get("type") == "final":
            return decision.get("content", "")
        if decision.get("type") == "tool":
            result = execute_tool(tools, decision["name"], decision.get("args", {}))
            messages.append({"role": "assistant", "content": dict(decision)})
            messages.append({"role": "tool", "content": result})
            continue
        return "Unknown decision type " + repr(decision.get("type")) + ", stopping."
    return "Max steps reached without a final answer."
