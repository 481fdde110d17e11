# expect: full
# style: a JsonAgent class per run (history, step budget as a countdown); module functions delegate; the prompt lists tools as a JSON object of name -> description
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
    catalogue = json.dumps({name: tool["description"] for name, tool in tools.items()}, indent=2)
    return (
        "You are an agent. These are your tools (name: description):\n"
        f"{catalogue}\n\n"
        "Each reply must be exactly one JSON object, either\n"
        '  {"type": "tool", "name": "<tool name>", "args": {"<param>": <value>}}\n'
        "or, when you are done,\n"
        '  {"type": "final", "content": "<answer>"}'
    )


def parse_decision(reply: str) -> dict:
    decoder = json.JSONDecoder()
    for m in re.finditer("{", reply):
        try:
            obj, _end = decoder.raw_decode(reply, m.start())
        except ValueError:
            continue
        if isinstance(obj, dict) and obj.get("type") == "tool" and isinstance(obj.get("name"), str) \
                and isinstance(obj.get("args"), dict):
            return obj
        if isinstance(obj, dict) and obj.get("type") == "final" and "content" in obj:
            return obj
        raise ValueError(f"not a valid decision: {obj}")
    raise ValueError("no complete JSON object in the reply")


def correction_messages(reply: str, error: str) -> list[dict]:
    return [dict(role="assistant", content=reply),
            dict(role="user", content=f"Problem with your last reply: {error}. Send one valid JSON object.")]


def execute_tool(tools: dict[str, dict], name: str, args) -> str:
    try:
        func = tools[name]["function"]
    except KeyError:
        return f"Error: unknown tool: {name}"
    try:
        return str(func(**args))
    except Exception as exc:
        return f"Error: {exc}"


class JsonAgent:
    def __init__(self, tools: dict[str, dict], max_steps: int):
        self.tools = tools
        self.budget = max_steps
        self.history: list[dict] = [{"role": "system", "content": build_system_prompt(tools)}]

    def ask(self) -> str:
        self.budget -= 1
        return llm(self.history)

    def run(self, question: str) -> str:
        self.history.append({"role": "user", "content": question})
        while self.budget > 0:
            reply = self.ask()
            try:
                decision = parse_decision(reply)
            except ValueError as e:
                self.history.extend(correction_messages(reply, str(e)))
                continue
            if decision["type"] == "final":
                return decision["content"]
            self.history.append({"role": "assistant", "content": reply})
            self.history.append({"role": "tool", "content": execute_tool(self.tools, decision["name"], decision["args"])})
        return "The agent ran out of steps."


def react_agent(question: str, tools: dict[str, dict], max_steps: int = 8) -> str:
    return JsonAgent(tools, max_steps).run(question)
