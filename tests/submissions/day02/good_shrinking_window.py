# expect: full
# style: parser tries json.loads on the text from the first '{' to each '}' from the last one backwards; prompt built from a list of lines; for-else fallback
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
    lines = ["You can use these tools:"]
    for name in tools:
        lines.append(f"- {name}: {tools[name]['description']}")
    lines += [
        "",
        "Respond with a single JSON object only.",
        'Tool call: {"type": "tool", "name": "add", "args": {"a": 1, "b": 2}}',
        'Answer:    {"type": "final", "content": "the answer"}',
    ]
    return "\n".join(lines)


def _is_decision(obj) -> bool:
    if not isinstance(obj, dict):
        return False
    if obj.get("type") == "final":
        return "content" in obj
    return obj.get("type") == "tool" and isinstance(obj.get("name"), str) and isinstance(obj.get("args"), dict)


def parse_decision(reply: str) -> dict:
    start = reply.find("{")
    if start == -1:
        raise ValueError("the reply holds no JSON object")
    ends = [i for i, ch in enumerate(reply) if ch == "}" and i > start]
    for end in reversed(ends):
        try:
            obj = json.loads(reply[start:end + 1])
        except json.JSONDecodeError:
            continue
        if _is_decision(obj):
            return obj
        raise ValueError(f"this JSON is not a decision: {reply[start:end + 1]}")
    raise ValueError("the JSON object in the reply is incomplete")


def correction_messages(reply: str, error: str) -> list[dict]:
    return [
        {"role": "assistant", "content": reply},
        {"role": "user", "content": "Error: " + error + "\nPlease reply again with one valid JSON object."},
    ]


def execute_tool(tools: dict[str, dict], name: str, args) -> str:
    if name not in tools:
        return f"Error: tool {name} does not exist"
    func = tools[name]["function"]
    try:
        if isinstance(args, dict):
            result = func(**args)
        else:
            return f"Error: args should be a JSON object, not {type(args).__name__}"
    except Exception as e:
        return f"Error: {type(e).__name__}: {e}"
    return str(result)


def react_agent(question: str, tools: dict[str, dict], max_steps: int = 8) -> str:
    messages = [{"role": "system", "content": build_system_prompt(tools)}, {"role": "user", "content": question}]
    for _ in range(max_steps):
        reply = llm(messages)
        try:
            decision = parse_decision(reply)
        except ValueError as problem:
            messages.extend(correction_messages(reply, str(problem)))
            continue
        if decision["type"] == "final":
            answer = decision["content"]
            break
        messages.append({"role": "assistant", "content": reply})
        messages.append({"role": "tool", "content": execute_tool(tools, decision["name"], decision["args"])})
    else:
        answer = "No final answer within the step limit."
    return answer
