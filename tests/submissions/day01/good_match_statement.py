# expect: full
# style: structural pattern matching on the decision; the assistant message holds the decision as
# style: JSON text; the registry built with dict(); errors caught per kind, then any Exception.
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
    return dict((f.__name__, f) for f in functions)


def execute_tool(tools: dict[str, Callable], name: str, args: dict) -> str:
    if name not in tools:
        return f"Error: there is no tool named {name!r}; the tools are {sorted(tools)}"
    try:
        return f"{tools[name](**args)}"
    except TypeError as error:
        return f"Error: bad arguments for {name}: {error}"
    except Exception as error:
        return f"Error: {type(error).__name__}: {error}"


def react_agent(question: str, tools: dict[str, Callable], max_steps: int = 5) -> str:
    messages = [{"role": "user", "content": question}]
    for _ in range(max_steps):
        match llm(messages):
            case {"type": "final", "content": content}:
                return content
            case {"type": "tool", "name": name, "args": args} as decision:
                observation = execute_tool(tools, name, args)
                messages += [{"role": "assistant", "content": json.dumps(decision)},
                             {"role": "tool", "content": observation}]
            case other:
                return f"I cannot handle a decision of type {other.get('type')!r}: {other}"
    return "No answer: the step limit was reached."


if __name__ == "__main__":
    tools = build_registry([add, multiply])
    question = "First work out 5 × 6, then add 10 to the result."
    print(question, "->", react_agent(question, tools))
