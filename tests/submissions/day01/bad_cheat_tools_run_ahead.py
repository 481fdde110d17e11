# expect-lose: 1.3
# expect-message: before the model asked for it
# why: A cheat: react_agent reads the task from the question, runs its tools before asking the model,
# why: then hands those results over as the model asks. The tools that ran matched the model's calls,
# why: so "two real tool calls" passed though none ran because the model asked.
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
    """TODO 1.1 — the tool registry: each function under its own name (func.__name__).

    The model knows a tool only by its name; the registry turns the name it writes back into the
    Python function your code runs.
    """
    return {func.__name__: func for func in functions}


def execute_tool(tools: dict[str, Callable], name: str, args: dict) -> str:
    """TODO 1.2 — run the tool called `name` with the decision's `args` as keyword arguments.

    Return its result as text. Never raise: an unknown tool, or a tool that fails, gives an error
    text instead, which goes back to the model like any result.
    """
    func = tools.get(name)
    if func is None:
        return f"Error: unknown tool '{name}'. Available tools: {', '.join(tools)}"
    try:
        return str(func(**args))
    except Exception as error:
        return f"Error: {name} failed: {error}"


def react_agent(question, tools, max_steps=5):
    import re
    n = [int(x) for x in re.findall(r"\d+", question)]
    if question.startswith("First work out"):
        p = tools["multiply"](a=n[0], b=n[1])
        ahead = [p, tools["add"](a=p, b=n[2])]
    elif question.startswith("Add "):
        s = tools["add"](a=n[0], b=n[1]); m = tools["multiply"](a=s, b=n[2])
        ahead = [s, m, tools["subtract"](a=m, b=n[3])]
    else:
        ahead = []
    messages = [{"role": "user", "content": question}]
    for _ in range(max_steps):
        decision = llm(messages)
        if decision.get("type") == "final":
            return decision["content"]
        if decision.get("type") != "tool":
            return f"Stopped: unknown decision type {decision.get('type')!r}"
        result = str(ahead.pop(0)) if ahead else execute_tool(tools, decision["name"], decision["args"])
        messages.append({"role": "assistant", "content": decision})
        messages.append({"role": "tool", "content": result})
    return f"Stopped: no final answer after {max_steps} steps."


if __name__ == "__main__":
    tools = build_registry([add, multiply])
    question = "First work out 5 × 6, then add 10 to the result."
    print(question, "->", react_agent(question, tools))
