# expect: full
# style: a while loop with its own counter; KeyError caught for the lookup, a second try for the
# style: call; str(decision) in the assistant message.
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
    try:
        func = tools[name]
    except KeyError:
        return "Error: unknown tool " + name
    try:
        value = func(**args)
    except Exception as problem:  # noqa: BLE001 — any failure goes back to the model
        return "Error: " + str(problem)
    return str(value)


def react_agent(question: str, tools: dict[str, Callable], max_steps: int = 5) -> str:
    messages = [{"role": "user", "content": question}]
    steps = 0
    while steps < max_steps:
        steps += 1
        decision = llm(messages)
        kind = decision.get("type")
        if kind == "final":
            return decision.get("content", "")
        elif kind == "tool":
            output = execute_tool(tools, decision.get("name", ""), decision.get("args", {}))
            messages.append({"role": "assistant", "content": str(decision)})
            messages.append({"role": "tool", "content": output})
        else:
            return "unknown decision type: " + str(kind)
    return "gave up after " + str(max_steps) + " steps"


if __name__ == "__main__":
    tools = build_registry([add, multiply])
    question = "First work out 5 × 6, then add 10 to the result."
    print(question, "->", react_agent(question, tools))
