# expect: full
# style: correction_messages builds its list from a small helper message(); the loop collects rounds in a list and tracks the steps with enumerate(start=1); tool errors list the available tools
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



def message(role: str, content: str) -> dict:
    return {"role": role, "content": content}


def build_system_prompt(tools: dict[str, dict]) -> str:
    tool_text = "".join(f"  - {name}: {info['description']}\n" for name, info in tools.items())
    fmt = ('Reply in JSON, one object per reply:\n'
           '  {"type": "tool", "name": TOOL_NAME, "args": {ARG: VALUE}}\n'
           '  {"type": "final", "content": ANSWER}\n')
    return "Tools:\n" + tool_text + fmt


def parse_decision(reply: str) -> dict:
    dec = json.JSONDecoder()
    idx = 0
    while (idx := reply.find("{", idx)) != -1:
        try:
            value, _ = dec.raw_decode(reply, idx)
        except json.JSONDecodeError:
            idx += 1
            continue
        break
    else:
        raise ValueError("no complete JSON object")
    match value:
        case {"type": "final", "content": _}:
            return value
        case {"type": "tool", "name": str(), "args": dict()}:
            return value
    raise ValueError(f"not a decision: {value!r}")


def correction_messages(reply: str, error: str) -> list[dict]:
    return [message("assistant", reply),
            message("user", f"Your last reply was not usable ({error}). Answer with exactly one JSON object.")]


def execute_tool(tools: dict[str, dict], name: str, args) -> str:
    if name not in tools:
        return f"Error: there is no tool called {name}. Available tools: {', '.join(tools)}"
    try:
        return str(tools[name]["function"](**args))
    except Exception as e:
        return f"Error: {e}"


def react_agent(question: str, tools: dict[str, dict], max_steps: int = 8) -> str:
    messages = [message("system", build_system_prompt(tools)), message("user", question)]
    for step, _ in enumerate(range(max_steps), start=1):
        reply = llm(messages)
        try:
            decision = parse_decision(reply)
        except ValueError as e:
            messages.extend(correction_messages(reply, str(e)))
            continue
        if decision["type"] == "final":
            return decision["content"]
        messages.append(message("assistant", reply))
        messages.append(message("tool", execute_tool(tools, decision["name"], decision["args"])))
    return f"No answer after {step} steps."
