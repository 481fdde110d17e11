# expect: full
# style: recursive helper that takes the steps left; registry built with a for loop; unknown tool said as 'not in the registry'
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
    registry = {}
    for fn in functions:
        registry[fn.__name__] = fn
    return registry


def execute_tool(tools: dict[str, Callable], name: str, args: dict) -> str:
    if name not in tools:
        return f"Error: '{name}' is not in the registry (known: {', '.join(tools)})"
    try:
        result = tools[name](**args)
    except Exception as exc:
        return f"Error while running {name}: {exc}"
    return str(result)


def _step(messages, tools, steps_left):
    if steps_left == 0:
        return "I could not finish within the step limit."
    decision = llm(messages)
    kind = decision.get("type")
    if kind == "final":
        return decision["content"]
    if kind != "tool":
        return f"Unexpected decision type: {kind}"
    observation = execute_tool(tools, decision["name"], decision["args"])
    messages.append({"role": "assistant", "content": decision})
    messages.append({"role": "tool", "content": observation})
    return _step(messages, tools, steps_left - 1)


def react_agent(question: str, tools: dict[str, Callable], max_steps: int = 5) -> str:
    return _step([{"role": "user", "content": question}], tools, max_steps)


if __name__ == "__main__":
    print(react_agent("First work out 5 × 6, then add 10 to the result.", build_registry([add, multiply])))
