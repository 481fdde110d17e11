# expect-lose: 1.3
# expect-keep: 1.1 1.2
# expect-message: the last one max_steps allows
# why: the step counter is checked right after each model call, before the decision is read: a final
# why: decision that comes on the max_steps-th call is thrown away and the "gave up" message returned.
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
    # BEGIN SOLUTION
    return {func.__name__: func for func in functions}
    # END SOLUTION


def execute_tool(tools: dict[str, Callable], name: str, args: dict) -> str:
    """TODO 1.2 — run the tool called `name` with the decision's `args` as keyword arguments.

    Return its result as text. Never raise: an unknown tool, or a tool that fails, gives an error
    text instead, which goes back to the model like any result.
    """
    # BEGIN SOLUTION
    func = tools.get(name)
    if func is None:
        return f"Error: unknown tool '{name}'. Available tools: {', '.join(tools)}"
    try:
        return str(func(**args))
    except Exception as error:
        return f"Error: {name} failed: {error}"
    # END SOLUTION


def react_agent(question: str, tools: dict[str, Callable], max_steps: int = 5) -> str:
    """TODO 1.3 — the loop: ask the model, run the tool it chose, feed the result back, repeat.

    Return the final decision's content. A decision of any other type ends the run with a message
    that names that type. At most max_steps model calls; then return a message that says so.
    """
    # BEGIN SOLUTION
    messages = [{"role": "user", "content": question}]
    steps = 0
    while True:
        decision = llm(messages)
        steps += 1
        if steps >= max_steps:
            return f"Stopped: no final answer after {max_steps} steps."
        if decision.get("type") == "final":
            return decision["content"]
        if decision.get("type") != "tool":
            return f"Stopped: unknown decision type {decision.get('type')!r}"
        result = execute_tool(tools, decision["name"], decision["args"])
        messages.append({"role": "assistant", "content": decision})
        messages.append({"role": "tool", "content": result})
    return f"Stopped: no final answer after {max_steps} steps."
    # END SOLUTION


if __name__ == "__main__":
    tools = build_registry([add, multiply])
    question = "First work out 5 × 6, then add 10 to the result."
    print(question, "->", react_agent(question, tools))
