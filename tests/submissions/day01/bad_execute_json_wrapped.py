# expect-lose: 1.2
# why: execute_tool returns the result wrapped as JSON, '{"result": 30}', as function-calling APIs do, instead of str(result)
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

import json


def execute_tool(tools: dict[str, Callable], name: str, args: dict) -> str:
    func = tools.get(name)
    if func is None:
        return json.dumps({"error": f"unknown tool {name}"})
    try:
        return json.dumps({"result": func(**args)})
    except Exception as error:
        return json.dumps({"error": str(error)})

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

