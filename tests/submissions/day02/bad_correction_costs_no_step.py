# expect-lose: 1.5
# expect-keep: 1.1 1.2 1.3 1.4
# expect-message: A correction round costs a step too
# why: The step counter goes up only for a reply that parses, so a model that keeps writing
# why: broken replies gets correction rounds past max_steps, though each round costs a step.
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
    lines = ["You solve the user's task step by step with these tools:"]
    for name, spec in tools.items():
        lines.append(f"- {name}: {spec['description']}")
    lines += [
        "",
        "Answer every time with exactly one JSON object and nothing else.",
        "To call a tool:",
        '{"type": "tool", "name": "<tool name>", "args": {"<argument>": <value>}}',
        "When you know the answer:",
        '{"type": "final", "content": "<the answer>"}',
    ]
    return "\n".join(lines)


def _check(obj) -> dict:
    if not isinstance(obj, dict):
        raise ValueError("the JSON is not an object")
    if obj.get("type") == "tool":
        if not isinstance(obj.get("name"), str) or "args" not in obj:
            raise ValueError("a tool decision needs a 'name' and 'args'")
        return obj
    if obj.get("type") == "final":
        if "content" not in obj:
            raise ValueError("a final decision needs a 'content'")
        return obj
    raise ValueError(f"unknown decision type: {obj.get('type')!r}")


def parse_decision(reply: str) -> dict:
    decoder = json.JSONDecoder()
    start = reply.find("{")
    while start != -1:
        try:
            obj, _ = decoder.raw_decode(reply, start)
        except json.JSONDecodeError:
            start = reply.find("{", start + 1)
            continue
        return _check(obj)
    raise ValueError("no complete JSON object in the reply")


def correction_messages(reply: str, error: str) -> list[dict]:
    return [
        {"role": "assistant", "content": reply},
        {"role": "user", "content": f"Your reply could not be used: {error}. "
                                    "Answer again with exactly one valid JSON object, as described."},
    ]


def execute_tool(tools: dict[str, dict], name: str, args) -> str:
    if name not in tools:
        return f"Error: unknown tool '{name}'. Available tools: {', '.join(tools)}"
    if not isinstance(args, dict):
        return f"Error: args must be a JSON object, got {args!r}"
    try:
        return str(tools[name]["function"](**args))
    except Exception as error:
        return f"Error: {name} failed: {error}"


def react_agent(question: str, tools: dict[str, dict], max_steps: int = 8) -> str:
    messages = [
        {"role": "system", "content": build_system_prompt(tools)},
        {"role": "user", "content": question},
    ]
    steps = 0
    while steps < max_steps:
        reply = llm(messages)
        try:
            decision = parse_decision(reply)
        except ValueError as error:
            messages += correction_messages(reply, str(error))
            continue
        steps += 1
        if decision["type"] == "final":
            return decision["content"]
        result = execute_tool(tools, decision["name"], decision["args"])
        messages.append({"role": "assistant", "content": reply})
        messages.append({"role": "tool", "content": result})
    return f"No final answer after {max_steps} steps."


if __name__ == "__main__":
    for question in ["First work out 5 × 6, then add 10 to the result.", "Multiply 5 by 7, then add 6."]:
        print(question, "->", react_agent(question, TOOLS))
