# expect: full
# style: parse errors quote the start of the reply; a precheck of the args against the tool's parameters in its own words; a while loop
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
    return mock_llm.reply("day02", messages)


def build_system_prompt(tools: dict[str, dict]) -> str:
    lines = ["You can use these tools:"]
    lines += [f"* {name} - {spec['description']}" for name, spec in tools.items()]
    lines += ["",
              "Reply with one JSON object only, in one of these two forms:",
              '{"type": "tool", "name": "<tool>", "args": {"a": 1, "b": 2}}',
              '{"type": "final", "content": "<your answer>"}']
    return "\n".join(lines)


def parse_decision(reply: str) -> dict:
    start = reply.find("{")
    decoder = json.JSONDecoder()
    while start != -1:
        try:
            obj, _ = decoder.raw_decode(reply, start)
            break
        except json.JSONDecodeError:
            start = reply.find("{", start + 1)
    else:
        raise ValueError(f"no complete JSON object in {reply[:60]!r}")
    if not isinstance(obj, dict):
        raise ValueError("the JSON is not an object")
    kind = obj.get("type")
    if kind == "tool" and isinstance(obj.get("name"), str) and isinstance(obj.get("args"), dict):
        return obj
    if kind == "final" and "content" in obj:
        return obj
    raise ValueError(f"not a decision: {obj}")


def correction_messages(reply: str, error: str) -> list[dict]:
    return [{"role": "assistant", "content": reply},
            {"role": "user", "content": f"I could not read that: {error}. Please send exactly one JSON object."}]


def execute_tool(tools: dict[str, dict], name: str, args) -> str:
    import inspect
    if name not in tools:
        return f"Error: unknown tool {name!r}"
    func = tools[name]["function"]
    if not isinstance(args, dict):
        return f"Error: args must be a JSON object, got {args!r}"
    params = inspect.signature(func).parameters
    unknown = [key for key in args if key not in params]
    if unknown:
        return f"Error: {name} has no parameter {', '.join(unknown)}; it takes {', '.join(params)}"
    try:
        return str(func(**args))
    except Exception as error:
        return f"Error: {name} failed: {error}"


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
    return f"No answer after {calls} model calls."
