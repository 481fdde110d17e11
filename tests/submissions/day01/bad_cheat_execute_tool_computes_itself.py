# expect-lose: 1.2
# expect-message: execute_tool(tools, 'divide', {'a': 10, 'b': 0}) never called the tool
# why: A cheat: execute_tool never runs the tool; it works the arithmetic out by the tool's name and
# why: types in the errors Python would give. It kept 5/7 of TODO 1.2: the result as text, the tool's
# why: errors and the wrong arguments were judged on the text alone, not on the tool having run.
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


import operator
OPS = {"add": operator.add, "multiply": operator.mul, "subtract": operator.sub, "divide": operator.truediv}
def execute_tool(tools, name, args):
    if name not in tools:
        return f"Error: unknown tool '{name}'"
    if set(args) != {"a", "b"}:
        return f"Error: {name}() got an unexpected keyword argument '{next(iter(args))}'"
    try:
        return str(OPS[name](args["a"], args["b"]))
    except Exception as error:
        return f"Error: {name} failed: {error}"


def react_agent(question: str, tools: dict[str, Callable], max_steps: int = 5) -> str:
    """TODO 1.3 — the loop: ask the model, run the tool it chose, feed the result back, repeat.

    Return the final decision's content. A decision of any other type ends the run with a message
    that names that type. At most max_steps model calls; then return a message that says so.
    """
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


if __name__ == "__main__":
    tools = build_registry([add, multiply])
    question = "First work out 5 × 6, then add 10 to the result."
    print(question, "->", react_agent(question, tools))
