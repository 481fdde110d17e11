# expect: full
# style: parse_decision strips a fence with str methods (removeprefix/partition), then tries json.loads on the text from each '{' to the last '}'; a Conversation helper class in the loop
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
    prompt = "You are an agent that solves arithmetic with tools.\n\nTOOLS\n"
    for name, tool in tools.items():
        prompt += f"{name} -- {tool['description']}\n"
    prompt += ("\nFORMAT\nReply only with JSON, one object per reply.\n"
               'Tool call: {"type": "tool", "name": "TOOL", "args": {"ARG": VALUE}}\n'
               'Final answer: {"type": "final", "content": "ANSWER"}\n')
    return prompt


def _without_fence(text: str) -> str:
    if "```" not in text:
        return text
    _, _, rest = text.partition("```")
    inside, _, _ = rest.partition("```")
    return inside.removeprefix("json").removeprefix("JSON")


def parse_decision(reply: str) -> dict:
    text = _without_fence(reply)
    end = text.rfind("}")
    obj = None
    for start in [i for i, ch in enumerate(text) if ch == "{"]:
        for stop in range(end, start, -1):
            if text[stop] != "}":
                continue
            try:
                obj = json.loads(text[start:stop + 1])
                break
            except ValueError:
                continue
        if obj is not None:
            break
    if not isinstance(obj, dict):
        raise ValueError("no complete JSON object in the reply")
    if obj.get("type") == "final":
        if "content" not in obj:
            raise ValueError("a final decision needs a content")
    elif obj.get("type") == "tool":
        if not isinstance(obj.get("name"), str) or not isinstance(obj.get("args"), dict):
            raise ValueError("a tool decision needs a name and args")
    else:
        raise ValueError("type must be 'tool' or 'final'")
    return obj


def correction_messages(reply: str, error: str) -> list[dict]:
    return [{"role": "assistant", "content": reply},
            {"role": "user", "content": "Error: " + error + ". Please respond with exactly one valid JSON object."}]


def execute_tool(tools: dict[str, dict], name: str, args) -> str:
    if name not in tools:
        return f"Error: {name} is not an available tool"
    try:
        return str(tools[name]["function"](**args))
    except Exception as e:
        return f"Error: {e}"


class Conversation:
    def __init__(self, system: str, question: str):
        self.messages = [{"role": "system", "content": system}, {"role": "user", "content": question}]

    def add(self, role: str, content: str) -> None:
        self.messages.append({"role": role, "content": content})


def react_agent(question: str, tools: dict[str, dict], max_steps: int = 8) -> str:
    chat = Conversation(build_system_prompt(tools), question)
    for _ in range(max_steps):
        reply = llm(chat.messages)
        try:
            decision = parse_decision(reply)
        except ValueError as error:
            for message in correction_messages(reply, str(error)):
                chat.add(message["role"], message["content"])
            continue
        if decision["type"] == "final":
            return decision["content"]
        chat.add("assistant", reply)
        chat.add("tool", execute_tool(tools, decision["name"], decision["args"]))
    return "Gave up: too many steps."
