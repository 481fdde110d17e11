# expect: full
# style: an Agent class with a dict dispatch on decision type; a _check_decision helper; execute_tool
# style: checks isinstance(args, dict) up front; the loop copies the message list each round.
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


def _check_decision(obj) -> dict:
    """A decision dict, or ValueError."""
    if not isinstance(obj, dict):
        raise ValueError("the JSON is not an object")
    kind = obj.get("type")
    if kind == "final" and "content" in obj:
        return obj
    if kind == "tool" and isinstance(obj.get("name"), str) and isinstance(obj.get("args"), dict):
        return obj
    raise ValueError(f"not a decision: {obj}")


class _Agent:
    def __init__(self, tools, max_steps):
        self.tools = tools
        self.max_steps = max_steps
        self.history = []

    def _final(self, decision, reply):
        return decision["content"]

    def _tool(self, decision, reply):
        result = execute_tool(self.tools, decision["name"], decision["args"])
        self.history = self.history + [{"role": "assistant", "content": reply}, {"role": "tool", "content": result}]
        return None

    def run(self, question):
        self.history = [{"role": "system", "content": build_system_prompt(self.tools)},
                        {"role": "user", "content": question}]
        handlers = {"final": self._final, "tool": self._tool}
        for _ in range(self.max_steps):
            reply = llm(list(self.history))
            try:
                decision = parse_decision(reply)
            except ValueError as problem:
                self.history = self.history + correction_messages(reply, str(problem))
                continue
            answer = handlers[decision["type"]](decision, reply)
            if answer is not None:
                return answer
        return f"No final answer after {self.max_steps} steps."


# ---------------------------------------------------------------- your part: five TODOs

def build_system_prompt(tools: dict[str, dict]) -> str:
    """TODO 1.1 — the system prompt: every tool (its name and description) and the JSON format.

    Show both decisions as JSON, with double quotes, and ask for one JSON object per reply.
    """
    example_tool = '{"type": "tool", "name": "<tool name>", "args": {"<argument>": <value>}}'
    example_final = '{"type": "final", "content": "<the answer>"}'
    tool_list = ""
    for tool_name in tools:
        tool_list += "- " + tool_name + ": " + tools[tool_name]["description"] + "\n"
    return (f"Available tools:\n{tool_list}\n"
            f"Respond with ONE JSON object per reply, nothing around it.\n"
            f"Tool call: {example_tool}\nFinal answer: {example_final}")


def parse_decision(reply: str) -> dict:
    """TODO 1.2 — the decision in the model's reply, as a dict.

    The JSON object may stand alone, sit in a ```json fence, or have prose around it. Raise
    ValueError when there is no complete JSON object, or when the object is not a decision (a
    "tool" with a name and args, or a "final" with a content).
    """
    decoder = json.JSONDecoder()
    index = reply.find("{")
    while index != -1:
        try:
            obj, _end = decoder.raw_decode(reply[index:])
        except ValueError:
            index = reply.find("{", index + 1)
            continue
        return _check_decision(obj)
    raise ValueError("the reply holds no complete JSON object")


def correction_messages(reply: str, error: str) -> list[dict]:
    """TODO 1.3 — the two messages that send an unreadable reply back: the model's own reply, then
    what was wrong with it and a request for one JSON object. The model tries again."""
    feedback = f"Error: {error}\nReply again with exactly one valid JSON object (a tool call or a final answer)."
    return [dict(role="assistant", content=reply), dict(role="user", content=feedback)]


def execute_tool(tools: dict[str, dict], name: str, args) -> str:
    """TODO 1.4 — run the tool called `name` with `args` as keyword arguments; its result as text.

    Never raise: an unknown tool, arguments the tool does not take, or a tool that fails each give
    an error text, which goes back to the model as the tool's result.
    """
    if name not in tools:
        return f"Error: unknown tool {name!r}"
    if not isinstance(args, dict):
        return f"Error: args must be a JSON object, got {type(args).__name__}"
    try:
        return str(tools[name]["function"](**args))
    except Exception as exc:  # the model reads it
        return f"Error: {type(exc).__name__}: {exc}"


def react_agent(question: str, tools: dict[str, dict], max_steps: int = 8) -> str:
    """TODO 1.5 — the loop: system prompt and question; then ask, parse, and either answer, run the
    tool, or send the bad reply back. At most max_steps model calls."""
    return _Agent(tools, max_steps).run(question)


if __name__ == "__main__":
    for question in ["First work out 5 × 6, then add 10 to the result.", "Multiply 5 by 7, then add 6."]:
        print(question, "->", react_agent(question, TOOLS))
