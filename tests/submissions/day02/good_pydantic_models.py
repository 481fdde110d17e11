# expect: full
# style: pydantic models validate the decision (ValidationError is a ValueError); the prompt's JSON examples built from json.dumps; a fence regex first, then raw_decode
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

from typing import Any, Literal, Union

from pydantic import BaseModel, TypeAdapter


class ToolDecision(BaseModel):
    type: Literal["tool"]
    name: str
    args: dict[str, Any]


class FinalDecision(BaseModel):
    type: Literal["final"]
    content: Any


DECISION = TypeAdapter(Union[ToolDecision, FinalDecision])
FENCE = re.compile(r"```(?:json)?\s*(\{.*\})\s*```", re.DOTALL)


def build_system_prompt(tools: dict[str, dict]) -> str:
    tool_example = json.dumps({"type": "tool", "name": "<tool name>", "args": {"<argument>": "<value>"}})
    final_example = json.dumps({"type": "final", "content": "<the answer>"})
    described = "\n".join(f"- {n}: {t['description']}" for n, t in tools.items())
    return (f"Tools:\n{described}\n\nAlways answer with exactly one JSON object.\n"
            f"To use a tool: {tool_example}\nTo answer: {final_example}")


def _find_object(reply: str) -> dict:
    fenced = FENCE.search(reply)
    if fenced:
        return json.loads(fenced.group(1))
    decoder = json.JSONDecoder()
    for match in re.finditer(r"\{", reply):
        try:
            return decoder.raw_decode(reply, match.start())[0]
        except json.JSONDecodeError:
            pass
    raise ValueError("no complete JSON object in the reply")


def parse_decision(reply: str) -> dict:
    obj = _find_object(reply)
    decision = DECISION.validate_python(obj)  # pydantic's ValidationError subclasses ValueError
    return obj if decision else obj


def correction_messages(reply: str, error: str) -> list[dict]:
    return [
        {"role": "assistant", "content": reply},
        {"role": "user", "content": f"I could not read your reply: {error}\nAnswer with one JSON object only."},
    ]


def execute_tool(tools: dict[str, dict], name: str, args) -> str:
    tool = tools.get(name)
    if tool is None:
        return f"Error: unknown tool {name!r}; available: {', '.join(tools)}"
    try:
        return str(tool["function"](**args))
    except Exception as error:
        return f"Error: {error}"


def react_agent(question: str, tools: dict[str, dict], max_steps: int = 8) -> str:
    messages = [{"role": "system", "content": build_system_prompt(tools)}, {"role": "user", "content": question}]
    for _ in range(max_steps):
        reply = llm(messages)
        try:
            decision = parse_decision(reply)
        except ValueError as error:
            messages.extend(correction_messages(reply, str(error)))
            continue
        if decision["type"] == "final":
            return decision["content"]
        messages.append({"role": "assistant", "content": reply})
        messages.append({"role": "tool", "content": execute_tool(tools, decision["name"], decision["args"])})
    return "Gave up: max_steps reached."
