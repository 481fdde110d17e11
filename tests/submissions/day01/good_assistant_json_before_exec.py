# expect: full
# style: the assistant message is appended before the tool runs (json.dumps of the decision), then the tool message; messages copied per call to llm
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

import json


def build_registry(functions: list[Callable]) -> dict[str, Callable]:
    return {**{fn.__name__: fn for fn in functions}}


def execute_tool(tools: dict[str, Callable], name: str, args: dict) -> str:
    fn = tools.get(name)
    if not fn:
        return f"Error: tool '{name}' not found; try one of {list(tools)}"
    try:
        res = fn(**args)
    except Exception as ex:
        return f"Error calling {name}: {ex}"
    else:
        return str(res)


def react_agent(question: str, tools: dict[str, Callable], max_steps: int = 5) -> str:
    history = [{"role": "user", "content": question}]
    for i in range(max_steps):
        decision = llm(list(history))
        t = decision.get("type")
        if t == "tool":
            history.append({"role": "assistant", "content": json.dumps(decision)})
            history.append({"role": "tool", "content": execute_tool(tools, decision["name"], decision["args"])})
        elif t == "final":
            return decision["content"]
        else:
            return f"Error: unknown decision type {t}"
    return "Sorry, I ran out of steps before reaching an answer."
