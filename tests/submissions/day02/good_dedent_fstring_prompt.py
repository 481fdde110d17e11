# expect: full
# style: prompt with textwrap.dedent and an f-string (braces doubled); parser scans with str.find and raw_decode; REQUIRED-fields table; while loop with a step counter
"""Day 02 — decisions as JSON text."""
from __future__ import annotations

import json
import re

import mock_llm


def add(a, b):
    return a + b


def multiply(a, b):
    return a * b


TOOLS = {
    "add": {"function": add, "description": "Adds two numbers. Arguments: a, b (numbers). Returns a + b."},
    "multiply": {"function": multiply,
                 "description": "Multiplies two numbers. Arguments: a, b (numbers). Returns a * b."},
}


def llm(messages: list[dict]) -> str:
    """Show the model the conversation, get its reply: text. Here: the kit's offline mock."""
    return mock_llm.reply("day02", messages)

import textwrap

REQUIRED = {"tool": ("name", "args"), "final": ("content",)}


def build_system_prompt(tools: dict[str, dict]) -> str:
    listing = "\n".join(f"* {name} -- {spec['description']}" for name, spec in tools.items())
    return textwrap.dedent(f"""\
        You are a careful assistant that solves tasks with tools.

        Tools:
        {{listing}}

        Reply with exactly ONE JSON object per message, nothing else.
        Call a tool:   {{"type": "tool", "name": "<tool>", "args": {{"a": 1, "b": 2}}}}
        Final answer:  {{"type": "final", "content": "<your answer>"}}
        """).replace("{listing}", listing)


def parse_decision(reply: str) -> dict:
    decoder = json.JSONDecoder()
    pos = reply.find("{")
    while pos != -1:
        try:
            obj, _ = decoder.raw_decode(reply, pos)
        except json.JSONDecodeError:
            pos = reply.find("{", pos + 1)
            continue
        if not isinstance(obj, dict):
            raise ValueError("the JSON is not an object")
        kind = obj.get("type")
        if kind not in REQUIRED:
            raise ValueError(f"unknown or missing type: {kind!r}")
        missing = [key for key in REQUIRED[kind] if key not in obj]
        if missing:
            raise ValueError(f"a {kind} decision needs {', '.join(missing)}")
        if kind == "tool" and not isinstance(obj["args"], dict):
            raise ValueError("args must be an object")
        return obj
    raise ValueError("no complete JSON object found in the reply")


def correction_messages(reply: str, error: str) -> list[dict]:
    note = "That reply could not be parsed ({}). Please resend your decision as a single valid JSON object."
    return [{"role": "assistant", "content": reply}, {"role": "user", "content": note.format(error)}]


def execute_tool(tools: dict[str, dict], name: str, args) -> str:
    entry = tools.get(name)
    if entry is None:
        return f"Error: no tool named '{name}'. Tools you can call: {', '.join(tools)}."
    if not isinstance(args, dict):
        return f"Error: args must be a JSON object with named arguments, got {args!r}"
    try:
        return str(entry["function"](**args))
    except Exception as exc:
        return f"Error: {exc}"


def react_agent(question: str, tools: dict[str, dict], max_steps: int = 8) -> str:
    messages = [
        {"role": "system", "content": build_system_prompt(tools)},
        {"role": "user", "content": question},
    ]
    step = 0
    while step < max_steps:
        step += 1
        reply = llm(messages)
        try:
            decision = parse_decision(reply)
        except ValueError as err:
            messages += correction_messages(reply, str(err))
            continue
        if decision["type"] == "final":
            return decision["content"]
        observation = execute_tool(tools, decision["name"], decision["args"])
        messages += [{"role": "assistant", "content": reply}, {"role": "tool", "content": observation}]
    return f"I stopped after {max_steps} steps without a final answer."
