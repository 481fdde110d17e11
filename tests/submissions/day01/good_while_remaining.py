# expect: full
# style: a countdown (steps_left) in a while loop; early-continue on tool; unknown-tool error lists nothing, says 'does not exist'
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
    out = {}
    for f in functions:
        out.update({f.__name__: f})
    return out


def execute_tool(tools: dict[str, Callable], name: str, args: dict) -> str:
    """TODO 1.2"""
    if name in tools:
        try:
            return str(tools[name](**args))
        except Exception as problem:
            return f"Tool {name} raised an error: {problem}"
    return f"Tool {name} does not exist."


def react_agent(question: str, tools: dict[str, Callable], max_steps: int = 5) -> str:
    """TODO 1.3"""
    history = [{"role": "user", "content": question}]
    steps_left = max_steps
    while steps_left > 0:
        steps_left -= 1
        decision = llm(history)
        if decision.get("type") == "tool":
            output = execute_tool(tools, decision["name"], decision["args"])
            history.append({"role": "assistant", "content": decision})
            history.append({"role": "tool", "content": output})
            continue
        if decision.get("type") == "final":
            return decision["content"]
        return "unexpected decision type: " + str(decision.get("type"))
    return f"Stopped after {max_steps} model calls without a final answer."


if __name__ == "__main__":
    tools = build_registry([add, multiply])
    question = "First work out 5 × 6, then add 10 to the result."
    print(question, "->", react_agent(question, tools))
