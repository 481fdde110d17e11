# expect: full
# style: execute_tool compares the args with the tool's parameters first and answers in its own words which ones it does not take
"""Day 01 — the agent loop, over decision dicts."""
from __future__ import annotations

import inspect
from typing import Callable

import mock_llm


def add(a, b):
    return a + b


def multiply(a, b):
    return a * b


def llm(messages: list[dict]) -> dict:
    return mock_llm.reply("day01", messages)


def build_registry(functions: list[Callable]) -> dict[str, Callable]:
    registry = {}
    for function in functions:
        registry[function.__name__] = function
    return registry


def execute_tool(tools: dict[str, Callable], name: str, args: dict) -> str:
    func = tools.get(name)
    if func is None:
        return f"Error: unknown tool '{name}'"
    accepted = list(inspect.signature(func).parameters)
    extra = [key for key in args if key not in accepted]
    if extra:
        return f"Error: {name} does not take {', '.join(extra)}; its parameters are {', '.join(accepted)}"
    try:
        return str(func(**args))
    except Exception as error:
        return f"Error: {name} failed: {error}"


def react_agent(question: str, tools: dict[str, Callable], max_steps: int = 5) -> str:
    messages = [{"role": "user", "content": question}]
    for _ in range(max_steps):
        decision = llm(messages)
        kind = decision.get("type")
        if kind == "final":
            return decision["content"]
        if kind != "tool":
            return f"Stopped: unknown decision type {kind!r}"
        messages.append({"role": "assistant", "content": decision})
        messages.append({"role": "tool", "content": execute_tool(tools, decision["name"], decision["args"])})
    return f"Stopped: no final answer after {max_steps} steps."
