# expect: full
# style: the loop is a generator of (event, payload) pairs; react_agent consumes it; messages.extend; errors with the exception class
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

from typing import Iterator


def build_registry(functions: list[Callable]) -> dict[str, Callable]:
    return dict((f.__name__, f) for f in functions)


def execute_tool(tools: dict[str, Callable], name: str, args: dict) -> str:
    func = tools.get(name)
    if func is None:
        return f"Error: no tool named {name!r}. Choose from: {', '.join(sorted(tools))}"
    try:
        return f"{func(**args)}"
    except Exception as e:  # noqa: BLE001
        return f"Error: {type(e).__name__}: {e}"


def run_events(question: str, tools: dict[str, Callable], max_steps: int) -> Iterator[tuple[str, object]]:
    messages: list[dict] = [{"role": "user", "content": question}]
    for step in range(1, max_steps + 1):
        decision = llm(messages)
        yield "decision", decision
        if decision.get("type") == "final":
            yield "answer", decision["content"]
            return
        if decision.get("type") != "tool":
            yield "answer", f"Cannot handle a decision of type '{decision.get('type')}'."
            return
        result = execute_tool(tools, decision["name"], decision["args"])
        messages.extend([
            {"role": "assistant", "content": decision},
            {"role": "tool", "content": result},
        ])
        yield "observation", result
    yield "answer", f"Gave up: still no final answer after {max_steps} model calls."


def react_agent(question: str, tools: dict[str, Callable], max_steps: int = 5) -> str:
    answer = ""
    for event, payload in run_events(question, tools, max_steps):
        if event == "answer":
            answer = payload
    return answer
