# expect: full
# style: TypedDict message types, a small Message factory, traceback.format_exception_only for errors, fallback mentions the last observation
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

import traceback
from typing import Any, TypedDict


class Message(TypedDict):
    role: str
    content: Any


def msg(role: str, content: Any) -> Message:
    return {"role": role, "content": content}


def build_registry(functions: list[Callable]) -> dict[str, Callable]:
    return {f.__name__: f for f in list(functions)}


def execute_tool(tools: dict[str, Callable], name: str, args: dict) -> str:
    if name not in tools:
        return f"Error: unknown tool {name}. Available: {', '.join(tools)}"
    try:
        return str(tools[name](**args))
    except Exception as e:
        return "Error: " + "".join(traceback.format_exception_only(type(e), e)).strip()


def react_agent(question: str, tools: dict[str, Callable], max_steps: int = 5) -> str:
    messages: list[Message] = [msg("user", question)]
    last = None
    for _ in range(max_steps):
        decision = llm(messages)
        match decision.get("type"):
            case "final":
                return decision["content"]
            case "tool":
                last = execute_tool(tools, decision["name"], decision["args"])
                messages.append(msg("assistant", decision))
                messages.append(msg("tool", last))
            case other:
                return f"Cannot continue: decision type {other!r} is not supported."
    return f"Step limit of {max_steps} reached; last observation was {last!r}."
