# expect: full
# style: a ReActAgent class holding messages and a step counter, created per call; the module functions wrap it; type hints
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

class ReActAgent:
    def __init__(self, tools: dict[str, Callable], max_steps: int) -> None:
        self.tools = tools
        self.max_steps = max_steps
        self.messages: list[dict] = []
        self.steps = 0

    def run(self, question: str) -> str:
        self.messages.append({"role": "user", "content": question})
        while self.steps < self.max_steps:
            self.steps += 1
            decision = llm(self.messages)
            kind = decision.get("type")
            if kind == "final":
                return decision["content"]
            if kind != "tool":
                return f"Unsupported decision type: {kind}"
            self.observe(decision)
        return "Reached the step limit without an answer."

    def observe(self, decision: dict) -> None:
        result = execute_tool(self.tools, decision["name"], decision["args"])
        self.messages += [{"role": "assistant", "content": decision}, {"role": "tool", "content": result}]


def build_registry(functions: list[Callable]) -> dict[str, Callable]:
    """TODO 1.1"""
    registry: dict[str, Callable] = {}
    for function in functions:
        registry[function.__name__] = function
    return registry


def execute_tool(tools: dict[str, Callable], name: str, args: dict) -> str:
    """TODO 1.2"""
    tool = tools.get(name)
    if tool is None:
        available = ", ".join(tools.keys())
        return f"Error: '{name}' is not a registered tool. Use one of: {available}"
    try:
        return str(tool(**args))
    except Exception as e:
        return "Error: " + str(e)


def react_agent(question: str, tools: dict[str, Callable], max_steps: int = 5) -> str:
    """TODO 1.3"""
    return ReActAgent(tools, max_steps).run(question)


if __name__ == "__main__":
    tools = build_registry([add, multiply])
    question = "First work out 5 × 6, then add 10 to the result."
    print(question, "->", react_agent(question, tools))
