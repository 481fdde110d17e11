# expect: full
# style: a parser class (fence regex first, then a scan of every "{" with raw_decode), json.dumps-built prompt examples, typed helpers
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

from typing import Any

_FENCE = re.compile(r"```(?:json|JSON)?\s*\n(.*?)\n\s*```", re.DOTALL)

class DecisionReader:
    decoder = json.JSONDecoder()

    def candidates(self, reply: str) -> list[str]:
        fenced = [m.group(1) for m in _FENCE.finditer(reply)]
        return fenced + [reply]

    def first_object(self, text: str) -> dict[str, Any] | None:
        for index, char in enumerate(text):
            if char != "{":
                continue
            try:
                value, _ = self.decoder.raw_decode(text, index)
            except json.JSONDecodeError:
                continue
            if isinstance(value, dict):
                return value
        return None

    def read(self, reply: str) -> dict[str, Any]:
        for text in self.candidates(reply):
            found = self.first_object(text)
            if found is not None:
                return self.checked(found)
        raise ValueError("no complete JSON object in the reply")

    @staticmethod
    def checked(obj: dict[str, Any]) -> dict[str, Any]:
        kind = obj.get("type")
        if kind == "final" and "content" in obj:
            return obj
        if kind == "tool" and isinstance(obj.get("name"), str) and isinstance(obj.get("args"), dict):
            return obj
        raise ValueError(f"the JSON object is not a decision: {json.dumps(obj)}")



def build_system_prompt(tools: dict[str, dict]) -> str:
    call = json.dumps({"type": "tool", "name": "TOOL_NAME", "args": {"ARG": "VALUE"}})
    done = json.dumps({"type": "final", "content": "YOUR ANSWER"})
    listing = "\n".join(f"* {name} -- {spec['description']}" for name, spec in tools.items())
    return (f"Tools you may call:\n{listing}\n\n"
            f"Reply with a single JSON object, nothing else.\nCall a tool: {call}\nAnswer: {done}")


def parse_decision(reply: str) -> dict:
    return DecisionReader().read(reply)


def correction_messages(reply: str, error: str) -> list[dict]:
    return [{"role": "assistant", "content": reply},
            {"role": "user", "content": f"I could not use that reply ({error}). Please send exactly one JSON object."}]


def execute_tool(tools: dict[str, dict], name: str, args) -> str:
    entry = tools.get(name)
    if entry is None:
        return f"Error: no tool named {name!r}; the tools are {', '.join(tools)}"
    if not isinstance(args, dict):
        return f"Error: args must be a JSON object, got {json.dumps(args)}"
    try:
        return str(entry["function"](**args))
    except Exception as exc:
        return f"Error: {exc}"


def react_agent(question: str, tools: dict[str, dict], max_steps: int = 8) -> str:
    messages = [{"role": "system", "content": build_system_prompt(tools)},
                {"role": "user", "content": question}]
    calls = 0
    while calls < max_steps:
        calls += 1
        reply = llm(messages)
        try:
            decision = parse_decision(reply)
        except ValueError as problem:
            messages += correction_messages(reply, str(problem))
            continue
        if decision["type"] == "final":
            return decision["content"]
        messages += [{"role": "assistant", "content": reply},
                     {"role": "tool", "content": execute_tool(tools, decision["name"], decision["args"])}]
    return f"Gave up: {max_steps} model calls and still no final answer."


if __name__ == "__main__":
    for question in ["First work out 5 × 6, then add 10 to the result.", "Multiply 5 by 7, then add 6."]:
        print(question, "->", react_agent(question, TOOLS))
