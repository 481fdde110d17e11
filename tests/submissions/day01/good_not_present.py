# expect: full
# style: a dispatch with early returns; an unknown tool is "Error: tool 'calculator' is not present in the registry"
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
    return {fn.__name__: fn for fn in functions}


def execute_tool(tools: dict[str, Callable], name: str, args: dict) -> str:
    if name not in tools:
        return f"Error: tool '{name}' is not present in the registry."
    try:
        return str(tools[name](**args))
    except Exception as error:
        return f"Error: {error}"


def react_agent(question: str, tools: dict[str, Callable], max_steps: int = 5) -> str:
    messages = [{"role": "user", "content": question}]
    for _ in range(max_steps):
        decision = llm(messages)
        if decision["type"] == "final":
            return decision["content"]
        if decision["type"] != "tool":
            return f"Stopped: the model sent a '{decision['type']}' decision, which I cannot act on."
        messages.append({"role": "assistant", "content": decision})
        messages.append({"role": "tool", "content": execute_tool(tools, decision["name"], decision["args"])})
    return "Stopped: the step limit was reached before a final answer."


if __name__ == "__main__":
    tools = build_registry([add, multiply])
    question = "First work out 5 × 6, then add 10 to the result."
    print(question, "->", react_agent(question, tools))
