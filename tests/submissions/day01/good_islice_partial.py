# expect: full
# style: the model calls as an endless iterator cut with itertools.islice(iter(...), max_steps); functools.partial binds the args before the call
"""Day 01 — the agent loop, over decision dicts."""
from __future__ import annotations

import functools
import itertools
from typing import Callable

import mock_llm


def add(a, b):
    return a + b


def multiply(a, b):
    return a * b


def llm(messages: list[dict]) -> dict:
    return mock_llm.reply("day01", messages)


def build_registry(functions: list[Callable]) -> dict[str, Callable]:
    return {name: func for name, func in ((f.__name__, f) for f in functions)}


def execute_tool(tools: dict[str, Callable], name: str, args: dict) -> str:
    if (func := tools.get(name)) is None:
        return f"Error: the model asked for {name!r}, which isn't in the toolbox"
    try:
        bound = functools.partial(func, **args)
        return str(bound())
    except Exception as error:
        return f"Error: {name}: {error}"


def react_agent(question: str, tools: dict[str, Callable], max_steps: int = 5) -> str:
    messages = [{"role": "user", "content": question}]
    decisions = itertools.islice(iter(lambda: llm(messages), None), max_steps)
    for decision in decisions:
        if decision["type"] == "final":
            return decision["content"]
        if decision["type"] != "tool":
            return f"Stopped on a '{decision['type']}' decision."
        result = execute_tool(tools, decision["name"], decision["args"])
        messages.extend(({"role": "assistant", "content": decision}, {"role": "tool", "content": result}))
    return "Stopped: the step limit came before a final answer."
