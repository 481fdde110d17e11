# expect: full
# style: a tool decision is validated (name is a str, args a dict) before running; inspect-free; error texts in a module-level template; the loop counts with enumerate
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

UNKNOWN = "Error: the tool '{name}' is not available. Available tools: {names}"
FAILED = "Error: {name} raised {error}"


def build_registry(functions: list[Callable]) -> dict[str, Callable]:
    """TODO 1.1"""
    return {function.__name__: function for function in functions}


def execute_tool(tools: dict[str, Callable], name: str, args: dict) -> str:
    """TODO 1.2"""
    if name not in tools:
        return UNKNOWN.format(name=name, names=", ".join(tools))
    try:
        return str(tools[name](**(args or {})))
    except Exception as error:
        return FAILED.format(name=name, error=error)


def react_agent(question: str, tools: dict[str, Callable], max_steps: int = 5) -> str:
    """TODO 1.3"""
    messages = [{"role": "user", "content": question}]
    for count, decision in enumerate(iter(lambda: llm(messages), None), start=1):
        kind = decision.get("type")
        if kind == "final":
            return decision["content"]
        if kind != "tool":
            return f"Unknown decision type '{kind}': stopping."
        name, args = decision.get("name"), decision.get("args")
        if not isinstance(name, str) or not isinstance(args, dict):
            result = f"Error: malformed tool decision {decision}"
        else:
            result = execute_tool(tools, name, args)
        messages.append({"role": "assistant", "content": decision})
        messages.append({"role": "tool", "content": result})
        if count >= max_steps:
            break
    return f"Stopped: {max_steps} steps without a final answer."


if __name__ == "__main__":
    tools = build_registry([add, multiply])
    question = "First work out 5 × 6, then add 10 to the result."
    print(question, "->", react_agent(question, tools))
