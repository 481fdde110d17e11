# expect: full
# style: a dataclass Agent with its own messages per run, match statement on the decision, helper methods, typing
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

from dataclasses import dataclass, field

from typing import Any

@dataclass
class _Run:
    tools: dict[str, Callable]
    max_steps: int
    messages: list[dict[str, Any]] = field(default_factory=list)

    def remember(self, decision: dict, result: str) -> None:
        self.messages += [{"role": "assistant", "content": decision}, {"role": "tool", "content": result}]

    def go(self, question: str) -> str:
        self.messages.append({"role": "user", "content": question})
        for _ in range(self.max_steps):
            match llm(self.messages):
                case {"type": "final", "content": content}:
                    return content
                case {"type": "tool", "name": name, "args": args} as decision:
                    self.remember(decision, execute_tool(self.tools, name, args))
                case other:
                    return f"I can't handle a decision of type {other.get('type')!r}, so I stop here."
        return f"No final answer within {self.max_steps} model calls."



def build_registry(functions: list[Callable]) -> dict[str, Callable]:
    registry: dict[str, Callable] = {}
    for function in functions:
        registry[function.__name__] = function
    return registry


def execute_tool(tools: dict[str, Callable], name: str, args: dict) -> str:
    if name not in tools:
        return f"Error: there is no tool called {name!r}. Try one of: {', '.join(sorted(tools))}"
    try:
        outcome = tools[name](**args)
    except Exception as problem:  # the model reads this and can fix its call
        return f"Error while running {name}: {problem}"
    return str(outcome)


def react_agent(question: str, tools: dict[str, Callable], max_steps: int = 5) -> str:
    return _Run(tools, max_steps).go(question)


if __name__ == "__main__":
    tools = build_registry([add, multiply])
    question = "First work out 5 × 6, then add 10 to the result."
    print(question, "->", react_agent(question, tools))
