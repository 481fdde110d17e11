# expect: full
# style: OpenAI-style messages: the assistant turn carries the decision in tool_calls (content None), the tool message a tool_call_id
"""Day 01 — the agent loop, over decision dicts."""
from __future__ import annotations

import json
from typing import Callable

import mock_llm


def add(a, b):
    return a + b


def multiply(a, b):
    return a * b


def llm(messages: list[dict]) -> dict:
    return mock_llm.reply("day01", messages)


def build_registry(functions: list[Callable]) -> dict[str, Callable]:
    return {f.__name__: f for f in functions}


def execute_tool(tools: dict[str, Callable], name: str, args: dict) -> str:
    if name not in tools:
        return f"Error: unknown tool '{name}'"
    try:
        return str(tools[name](**args))
    except Exception as error:
        return f"Error: {name} failed: {error}"


def react_agent(question: str, tools: dict[str, Callable], max_steps: int = 5) -> str:
    messages = [{"role": "user", "content": question}]
    for step in range(max_steps):
        decision = llm(messages)
        if decision["type"] == "final":
            return decision["content"]
        if decision["type"] != "tool":
            return f"Stopped: the model sent a decision of type '{decision['type']}'"
        call_id = f"call_{step}"
        messages.append({"role": "assistant", "content": None, "tool_calls": [
            {"id": call_id, "type": "function",
             "function": {"name": decision["name"], "arguments": json.dumps(decision["args"])}}]})
        messages.append({"role": "tool", "tool_call_id": call_id,
                         "content": execute_tool(tools, decision["name"], decision["args"])})
    return f"No final answer after {max_steps} steps."
