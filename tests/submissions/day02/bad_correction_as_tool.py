# expect-lose: 1.3
# expect-keep: 1.1 1.2 1.4 1.5
# expect-message: not a tool message, since no tool ran
# why: The error goes back as a tool message, though no tool ran; the model copes, but a real
# why: API rejects a tool message that answers no tool call.
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
    lines = [f"- {name}: {tool['description']}" for name, tool in tools.items()]
    return ("You can use these tools:\n" + "\n".join(lines) + "\n\n"
            "Reply with exactly one JSON object, either\n"
            '{"type": "tool", "name": "<tool>", "args": {"<argument>": <value>}}\n'
            'or, once you know the answer,\n{"type": "final", "content": "<answer>"}')


def parse_decision(reply: str) -> dict:
    decoder = json.JSONDecoder()
    for match in re.finditer(r"\{", reply):
        try:
            decision, _ = decoder.raw_decode(reply, match.start())
        except json.JSONDecodeError:
            continue
        break
    else:
        raise ValueError("no complete JSON object in the reply")
    if decision.get("type") == "final" and "content" in decision:
        return decision
    if decision.get("type") == "tool" and isinstance(decision.get("name"), str) \
            and isinstance(decision.get("args"), dict):
        return decision
    raise ValueError(f"not a decision: {json.dumps(decision)}")


def correction_messages(reply: str, error: str) -> list[dict]:
    return [{"role": "assistant", "content": reply},
            {"role": "tool", "content": f"Invalid JSON: {error}. Answer with one JSON object."}]


def execute_tool(tools: dict[str, dict], name: str, args) -> str:
    if name not in tools:
        return f"Error: unknown tool '{name}'. Available tools: {', '.join(tools)}"
    try:
        return str(tools[name]["function"](**args))
    except Exception as error:
        return f"Error: {name} failed: {error}"


def react_agent(question: str, tools: dict[str, dict], max_steps: int = 8) -> str:
    messages = [{"role": "system", "content": build_system_prompt(tools)},
                {"role": "user", "content": question}]
    for _ in range(max_steps):
        reply = llm(messages)
        try:
            decision = parse_decision(reply)
        except ValueError as error:
            messages.extend(correction_messages(reply, str(error)))
            continue
        if decision["type"] == "final":
            return decision["content"]
        result = execute_tool(tools, decision["name"], decision["args"])
        messages.append({"role": "assistant", "content": reply})
        messages.append({"role": "tool", "content": result})
    return f"Stopped: no final answer after {max_steps} steps."


if __name__ == "__main__":
    for question in ["First work out 5 × 6, then add 10 to the result.", "Multiply 5 by 7, then add 6."]:
        print(question, "->", react_agent(question, TOOLS))
