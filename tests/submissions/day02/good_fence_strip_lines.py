# expect: full
# style: fence lines dropped line by line, then raw_decode from each '{'; decision checked with early raises; the assistant message stores reply.strip(); tool messages carry the tool name too
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
    prompt = "Available tools:\n"
    for name, tool in tools.items():
        prompt += f"{name}: {tool['description']}\n"
    prompt += "\nAnswer with one JSON object and nothing else. The two possible answers are:\n"
    prompt += '{"type": "tool", "name": "multiply", "args": {"a": 2, "b": 3}}\n'
    prompt += '{"type": "final", "content": "2 times 3 is 6."}\n'
    return prompt


def parse_decision(reply: str) -> dict:
    text = "\n".join(line for line in reply.splitlines() if not line.strip().startswith("```"))
    decoder = json.JSONDecoder()
    decision = None
    for i, ch in enumerate(text):
        if ch != "{":
            continue
        try:
            decision, _ = decoder.raw_decode(text[i:])
            break
        except ValueError:
            continue
    if decision is None:
        raise ValueError("I found no complete JSON object in your reply")
    if not isinstance(decision, dict) or decision.get("type") not in ("tool", "final"):
        raise ValueError('"type" must be "tool" or "final"')
    if decision["type"] == "tool" and ("name" not in decision or not isinstance(decision.get("args"), dict)):
        raise ValueError('a tool decision needs "name" and an "args" object')
    if decision["type"] == "final" and "content" not in decision:
        raise ValueError('a final decision needs "content"')
    return decision


def correction_messages(reply: str, error: str) -> list[dict]:
    return [
        {"role": "assistant", "content": reply.strip()},
        {"role": "user", "content": f"Invalid reply: {error}. Reply again with exactly one JSON object."},
    ]


def execute_tool(tools: dict[str, dict], name: str, args) -> str:
    if name not in tools:
        return f"Error: '{name}' is not a tool I have. Use one of: {', '.join(tools)}"
    try:
        return str(tools[name]["function"](**args))
    except TypeError as e:
        return f"Error: bad arguments for {name}: {e}"
    except Exception as e:
        return f"Error: {name} raised {type(e).__name__}: {e}"


def react_agent(question: str, tools: dict[str, dict], max_steps: int = 8) -> str:
    messages = [{"role": "system", "content": build_system_prompt(tools)}, {"role": "user", "content": question}]
    for step in range(1, max_steps + 1):
        reply = llm(messages)
        try:
            decision = parse_decision(reply)
        except ValueError as e:
            messages.extend(correction_messages(reply, str(e)))
            continue
        if decision["type"] == "final":
            return str(decision["content"]).strip()
        result = execute_tool(tools, decision["name"], decision["args"])
        messages.append({"role": "assistant", "content": reply.strip()})
        messages.append({"role": "tool", "name": decision["name"], "content": result})
    return f"Reached max_steps ({max_steps}) without a final answer."
