# expect: full
# style: an Agent class keeps the registry and the conversation; the three functions the lesson
# style: asks for are thin wrappers; a fresh Agent for every question.
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

from dataclasses import dataclass, field


def build_registry(functions: list[Callable]) -> dict[str, Callable]:
    return {f.__name__: f for f in functions}


def execute_tool(tools: dict[str, Callable], name: str, args: dict) -> str:
    return Agent(tools).run_tool(name, args)


@dataclass
class Agent:
    tools: dict
    max_steps: int = 5
    messages: list = field(default_factory=list)

    def run_tool(self, name, args) -> str:
        if name not in self.tools:
            return f"Error: unknown tool {name}. Try one of: {', '.join(self.tools)}."
        try:
            return str(self.tools[name](**args))
        except Exception as error:
            return f"Error while running {name}: {error}"

    def remember(self, role, content):
        self.messages.append({"role": role, "content": content})

    def ask(self, question) -> str:
        self.remember("user", question)
        for _ in range(self.max_steps):
            decision = llm(self.messages)
            if decision["type"] == "final":
                return decision["content"]
            if decision["type"] != "tool":
                return f"The model answered with an unknown decision type, {decision['type']}."
            self.remember("assistant", decision)
            self.remember("tool", self.run_tool(decision["name"], decision["args"]))
        return "The model did not finish within the step limit."


def react_agent(question: str, tools: dict[str, Callable], max_steps: int = 5) -> str:
    return Agent(tools, max_steps).ask(question)


if __name__ == "__main__":
    tools = build_registry([add, multiply])
    question = "First work out 5 × 6, then add 10 to the result."
    print(question, "->", react_agent(question, tools))
