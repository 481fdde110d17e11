# expect: full
# style: structural pattern matching in parse_decision and execute_tool; the prompt a markdown table of the tools; the except clause names JSONDecodeError before ValueError
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
    rows = "\n".join(f"| {name} | {tool['description']} |" for name, tool in tools.items())
    return ("# Tools\n| name | description |\n| --- | --- |\n" + rows + "\n\n"
            "# Output format\nYour whole message must be one JSON object, nothing before or after it:\n"
            '- to call a tool: {"type": "tool", "name": "add", "args": {"a": 1, "b": 2}}\n'
            '- to answer: {"type": "final", "content": "..."}\n')


def parse_decision(reply: str) -> dict:
    decoder = json.JSONDecoder()
    found = None
    for match in re.finditer("{", reply):
        try:
            found = decoder.raw_decode(reply[match.start():])[0]
            break
        except json.JSONDecodeError:
            pass
    match found:
        case None:
            raise ValueError("no complete JSON object in the reply")
        case {"type": "tool", "name": str(), "args": dict()}:
            return found
        case {"type": "final", "content": _}:
            return found
        case _:
            raise ValueError(f"the JSON is not a decision: {found!r}")


def correction_messages(reply: str, error: str) -> list[dict]:
    return [{"role": "assistant", "content": reply},
            {"role": "user", "content": f"Parsing failed: {error}\nSend one JSON object, exactly as the format says."}]


def execute_tool(tools: dict[str, dict], name: str, args) -> str:
    match tools.get(name):
        case None:
            return f"Error: unknown tool {name!r}; known tools are {', '.join(tools)}"
        case {"function": func}:
            try:
                return str(func(**args))
            except Exception as error:
                return f"Error: {name} failed: {error}"
        case _:
            return f"Error: {name} has no function"


def react_agent(question: str, tools: dict[str, dict], max_steps: int = 8) -> str:
    messages = [{"role": "system", "content": build_system_prompt(tools)}, {"role": "user", "content": question}]
    for _ in range(max_steps):
        reply = llm(messages)
        try:
            decision = parse_decision(reply)
        except json.JSONDecodeError as error:
            messages.extend(correction_messages(reply, f"invalid JSON: {error}"))
            continue
        except ValueError as error:
            messages.extend(correction_messages(reply, f"{type(error).__name__}: {error}"))
            continue
        match decision:
            case {"type": "final", "content": content}:
                return content
            case {"type": "tool", "name": name, "args": args}:
                messages.append({"role": "assistant", "content": reply})
                messages.append({"role": "tool", "name": name, "content": execute_tool(tools, name, args)})
    return "The step limit was reached without a final answer."
