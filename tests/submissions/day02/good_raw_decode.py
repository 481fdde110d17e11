# expect: full
# style: json.JSONDecoder().raw_decode from each "{"; the decision validated with a match
# style: statement; the loop as a while loop with its own counter.
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


def build_system_prompt(tools: dict[str, dict]) -> str:
    described = "\n".join(f"* {name} — {spec['description']}" for name, spec in tools.items())
    return f"""You are a careful assistant that solves tasks with tools.

Tools:
{described}

Every reply is a single JSON object and nothing else. To use a tool, write
{{"type": "tool", "name": "multiply", "args": {{"a": 2, "b": 3}}}}
To answer, write
{{"type": "final", "content": "your answer"}}"""


def parse_decision(reply: str) -> dict:
    decoder = json.JSONDecoder()
    position = reply.find("{")
    while position != -1:
        try:
            value, _ = decoder.raw_decode(reply, position)
        except json.JSONDecodeError:
            position = reply.find("{", position + 1)
            continue
        match value:
            case {"type": "final", "content": _}:
                return value
            case {"type": "tool", "name": str(), "args": dict()}:
                return value
        raise ValueError(f"JSON but not a decision: {value}")
    raise ValueError("the reply holds no complete JSON object")


def correction_messages(reply: str, error: str) -> list[dict]:
    return [
        {"role": "assistant", "content": reply},
        {"role": "user", "content": f"Error: {error}. Reply again with one JSON decision object."},
    ]


def execute_tool(tools: dict[str, dict], name: str, args) -> str:
    tool = tools.get(name)
    if tool is None:
        return f"Error: no tool named {name!r} (choose from {sorted(tools)})"
    try:
        return str(tool["function"](**args))
    except Exception as error:
        return f"Error: {type(error).__name__}: {error}"


def react_agent(question: str, tools: dict[str, dict], max_steps: int = 8) -> str:
    messages = [{"role": "system", "content": build_system_prompt(tools)},
                {"role": "user", "content": question}]
    calls = 0
    while calls < max_steps:
        calls += 1
        reply = llm(messages)
        try:
            decision = parse_decision(reply)
        except ValueError as error:
            messages += correction_messages(reply, str(error))
            continue
        if decision["type"] == "final":
            return decision["content"]
        messages.append({"role": "assistant", "content": reply})
        messages.append({"role": "tool", "content": execute_tool(tools, decision["name"], decision["args"])})
    return "No final answer within the step limit."


if __name__ == "__main__":
    for question in ["First work out 5 × 6, then add 10 to the result.", "Multiply 5 by 7, then add 6."]:
        print(question, "->", react_agent(question, TOOLS))
