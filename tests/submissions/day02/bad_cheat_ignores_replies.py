# expect-lose: 1.1 1.2 1.3 1.4 1.5
# expect-message: It never saw it again
# why: a cheat on the untouched template: react_agent calls llm with the question alone max_steps times,
# why: reads no reply and returns "I give up"; the step-count check counted its calls as correction rounds.
"""Day 02 — decisions as JSON text.

Yesterday the model handed your loop a ready-made dict. A real model writes text. You ask it, in
the system prompt, to answer with one JSON object:

    {"type": "tool", "name": "multiply", "args": {"a": 5, "b": 6}}
    {"type": "final", "content": "The final result is 40."}

and it mostly does, in its own way: the bare object, or the object in a ```json fence, or the
object between two sentences. Now and then the JSON is broken (cut off, unparseable). Your code
finds the object in whatever the model wrote; when there is none, it sends the bad reply back with
what was wrong, and the model tries again. A tool that fails is not a crash either: its error goes
back as the tool's result.

Fill in the five TODOs, then run `python validate.py day02`. Run this file itself to watch your
agent work: `python workspace/day02.py`.
"""
from __future__ import annotations

import json
import re

import mock_llm


# ---------------------------------------------------------------- given: the tools and their registry

def add(a, b):
    return a + b


def multiply(a, b):
    return a * b


# name -> the function, and the description the model reads to know when and how to call it
TOOLS = {
    "add": {"function": add, "description": "Adds two numbers. Arguments: a, b (numbers). Returns a + b."},
    "multiply": {"function": multiply,
                 "description": "Multiplies two numbers. Arguments: a, b (numbers). Returns a * b."},
}


# ---------------------------------------------------------------- given: the model

def llm(messages: list[dict]) -> str:
    """Show the model the conversation, get its reply: text. Here: the kit's offline mock."""
    return mock_llm.reply("day02", messages)


# ---------------------------------------------------------------- your part: five TODOs

def build_system_prompt(tools: dict[str, dict]) -> str:
    """TODO 1.1 — the system prompt: every tool (its name and description) and the JSON format.

    Show both decisions as JSON, with double quotes, and ask for one JSON object per reply.
    """
    raise NotImplementedError("TODO 1.1: the system prompt")


def parse_decision(reply: str) -> dict:
    """TODO 1.2 — the decision in the model's reply, as a dict.

    The JSON object may stand alone, sit in a ```json fence, or have prose around it. Raise
    ValueError when there is no complete JSON object, or when the object is not a decision (a
    "tool" with a name and args, or a "final" with a content).
    """
    raise NotImplementedError("TODO 1.2: find the decision in the reply")


def correction_messages(reply: str, error: str) -> list[dict]:
    """TODO 1.3 — the two messages that send an unreadable reply back: the model's own reply, then
    what was wrong with it and a request for one JSON object. The model tries again."""
    raise NotImplementedError("TODO 1.3: send a bad reply back")


def execute_tool(tools: dict[str, dict], name: str, args) -> str:
    """TODO 1.4 — run the tool called `name` with `args` as keyword arguments; its result as text.

    Never raise: an unknown tool, arguments the tool does not take, or a tool that fails each give
    an error text, which goes back to the model as the tool's result.
    """
    raise NotImplementedError("TODO 1.4: run a tool, errors as results")


def react_agent(question: str, tools: dict[str, dict], max_steps: int = 8) -> str:
    for _ in range(max_steps):
        llm([{"role": "user", "content": question}])
    return "I give up: the step limit was reached."



if __name__ == "__main__":
    for question in ["First work out 5 × 6, then add 10 to the result.", "Multiply 5 by 7, then add 6."]:
        print(question, "->", react_agent(question, TOOLS))
