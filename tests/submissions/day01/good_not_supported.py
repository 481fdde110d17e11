# expect: full
# style: an ALLOWED-style guard clause whose unknown-tool error says the tool "is not supported"; exceptions formatted with their class name; fallback names the limit
"""Day 01 — the agent loop, over decision dicts.

The model does not run anything. Each time you show it the conversation so far, it answers with a
decision, a plain dict:

    {"type": "tool", "name": "multiply", "args": {"a": 5, "b": 6}}    please run multiply(a=5, b=6)
    {"type": "final", "content": "The final result is 40."}           I am done: here is the answer

Your code runs the tool it named, appends the decision and the tool's result to the messages, and
asks again, until a decision is final:

    user       First work out 5 × 6, then add 10 to the result.
    assistant  {"type": "tool", "name": "multiply", "args": {"a": 5, "b": 6}}
    tool       30                                   <- written by YOUR code, after running multiply
    assistant  {"type": "tool", "name": "add", "args": {"a": 30, "b": 10}}
    tool       40
    (final)    The final result is 40.

Fill in the three TODOs, then run `python validate.py day01`. Run this file itself to watch your
agent work: `python workspace/day01.py`.
"""
from __future__ import annotations

from typing import Callable

import mock_llm


# ---------------------------------------------------------------- given: two tools

def add(a, b):
    return a + b


def multiply(a, b):
    return a * b


# ---------------------------------------------------------------- given: the model

def llm(messages: list[dict]) -> dict:
    """Show the model the conversation, get its next decision. Here: the kit's offline mock."""
    return mock_llm.reply("day01", messages)


# ---------------------------------------------------------------- your part: three TODOs

def build_registry(functions: list[Callable]) -> dict[str, Callable]:
    """TODO 1.1"""
    registry = {}
    for fn in functions:
        registry.setdefault(fn.__name__, fn)
    return registry


def execute_tool(tools: dict[str, Callable], name: str, args: dict) -> str:
    """TODO 1.2"""
    if name not in tools:
        return f"Error: tool '{name}' is not supported."
    try:
        result = tools[name](**args)
    except Exception as exc:
        return f"Error: {type(exc).__name__}: {exc}"
    return str(result)


def react_agent(question: str, tools: dict[str, Callable], max_steps: int = 5) -> str:
    """TODO 1.3"""
    messages = [{"role": "user", "content": question}]
    for _ in range(max_steps):
        decision = llm(messages)
        if decision["type"] == "tool":
            result = execute_tool(tools, decision["name"], decision["args"])
            messages.extend([{"role": "assistant", "content": decision}, {"role": "tool", "content": result}])
        elif decision["type"] == "final":
            return decision["content"]
        else:
            return f"Error: unexpected decision type '{decision['type']}'."
    return f"Error: reached max_steps={max_steps} without a final answer."


if __name__ == "__main__":
    tools = build_registry([add, multiply])
    question = "First work out 5 × 6, then add 10 to the result."
    print(question, "->", react_agent(question, tools))
