# expect: full
# style: the loop passes correction_messages an error of its own that includes str(error) (class name first); parser strips a fence with a regex, else slices first '{' to last '}'; numbered tool list
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


FENCE = re.compile(r"```[a-zA-Z]*\n(.*?)\n```", re.S)


def build_system_prompt(tools: dict[str, dict]) -> str:
    numbered = "\n".join(f"{i}. {name}: {t['description']}" for i, (name, t) in enumerate(tools.items(), 1))
    return (f"Tools you may call:\n{numbered}\n\n"
            "Output format: one JSON object per reply, no other text.\n"
            '- to call a tool: {"type": "tool", "name": "...", "args": {...}}\n'
            '- to finish:      {"type": "final", "content": "..."}')


def parse_decision(reply: str) -> dict:
    fenced = FENCE.search(reply)
    text = fenced.group(1) if fenced else reply
    start, end = text.find("{"), text.rfind("}")
    if start < 0 or end < start:
        raise ValueError("no complete JSON object in the reply")
    data = json.loads(text[start:end + 1])
    if not isinstance(data, dict):
        raise ValueError("expected a JSON object")
    if data.get("type") == "tool" and "name" in data and isinstance(data.get("args"), dict):
        return data
    if data.get("type") == "final" and "content" in data:
        return data
    raise ValueError("JSON is not a decision (tool with name+args, or final with content)")


def correction_messages(reply: str, error: str) -> list[dict]:
    return [{"role": "assistant", "content": reply},
            {"role": "user", "content": f"{error}\nPlease answer again: exactly one valid JSON object."}]


def execute_tool(tools: dict[str, dict], name: str, args) -> str:
    if name not in tools:
        return f"Error: '{name}' is not a known tool (known tools: {', '.join(tools)})"
    if not isinstance(args, dict):
        return "Error: args must be an object of named arguments"
    try:
        return str(tools[name]["function"](**args))
    except Exception as exc:
        return f"Error: {exc}"


def react_agent(question: str, tools: dict[str, dict], max_steps: int = 8) -> str:
    messages = [{"role": "system", "content": build_system_prompt(tools)},
                {"role": "user", "content": question}]
    for _ in range(max_steps):
        reply = llm(messages)
        try:
            decision = parse_decision(reply)
        except ValueError as exc:
            messages.extend(correction_messages(reply, f"{type(exc).__name__}: {exc}"))
            continue
        if decision["type"] == "final":
            return decision["content"]
        result = execute_tool(tools, decision["name"], decision["args"])
        messages.extend([{"role": "assistant", "content": reply}, {"role": "tool", "content": result}])
    return "Stopped: the step limit was reached before a final answer."
