# expect: full
# style: execute_tool checks the arguments against the signature with inspect.bind before calling; EAFP KeyError lookup; while loop with a calls counter
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

import inspect


def build_registry(functions: list[Callable]) -> dict[str, Callable]:
    return {function.__name__: function for function in functions}


def execute_tool(tools: dict[str, Callable], name: str, args: dict) -> str:
    try:
        func = tools[name]
    except KeyError:
        return f"Error: tool {name!r} does not exist. Available tools: {', '.join(tools)}"
    try:
        inspect.signature(func).bind(**args)
    except TypeError as err:
        return f"Error: bad arguments for {name}: {err}"
    try:
        return str(func(**args))
    except Exception as err:
        return f"Error: {name} raised {err}"


def react_agent(question: str, tools: dict[str, Callable], max_steps: int = 5) -> str:
    messages = [{"role": "user", "content": question}]
    calls = 0
    while calls < max_steps:
        decision = llm(messages)
        calls += 1
        if decision["type"] == "final":
            return decision["content"]
        elif decision["type"] == "tool":
            output = execute_tool(tools, decision["name"], decision["args"])
            messages.append({"role": "assistant", "content": decision})
            messages.append({"role": "tool", "content": output})
        else:
            return f"Stopped: the model sent a '{decision['type']}' decision, which I can't act on."
    return f"No final answer after {calls} calls (max_steps={max_steps})."
