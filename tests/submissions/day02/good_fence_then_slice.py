# expect: full
# style: the fence markers are removed with a regex, then the text from the first "{" to the last
# style: "}" goes to json.loads; the parsed decision (not the raw reply) is kept as the assistant
# style: message, as JSON.
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


FORMAT = """Answer with one JSON object, and nothing around it.
Call a tool:   {"type": "tool", "name": "<tool name>", "args": {"a": 1, "b": 2}}
Give the answer: {"type": "final", "content": "<answer>"}"""


def build_system_prompt(tools: dict[str, dict]) -> str:
    listing = "\n".join(f"- {name}: {tool['description']}" for name, tool in tools.items())
    return f"Tools you may call:\n{listing}\n\n{FORMAT}"


def parse_decision(reply: str) -> dict:
    text = re.sub(r"```(?:json|JSON)?", "", reply)
    start, end = text.find("{"), text.rfind("}")
    if start == -1 or end < start:
        raise ValueError("no JSON object found")
    decision = json.loads(text[start:end + 1])  # json.JSONDecodeError is a ValueError
    if not isinstance(decision, dict):
        raise ValueError("the JSON is not an object")
    kind = decision.get("type")
    if kind == "tool" and "name" in decision and isinstance(decision.get("args"), dict):
        return decision
    if kind == "final" and "content" in decision:
        return decision
    raise ValueError(f'"type" must be "tool" or "final", got {kind!r}')


def correction_messages(reply: str, error: str) -> list[dict]:
    return [{"role": "assistant", "content": reply},
            {"role": "user", "content": "That was not a usable JSON decision (" + error + "). "
                                        "Send exactly one JSON object."}]


def execute_tool(tools: dict[str, dict], name: str, args) -> str:
    if name not in tools:
        return "Error: unknown tool " + repr(name)
    if not isinstance(args, dict):
        return f"Error: args must be a JSON object, got {args!r}"
    try:
        return str(tools[name]["function"](**args))
    except Exception as error:
        return "Error: " + str(error)


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
            return str(decision["content"])
        result = execute_tool(tools, decision["name"], decision["args"])
        messages.append({"role": "assistant", "content": json.dumps(decision)})
        messages.append({"role": "tool", "content": result})
    return "I gave up: too many steps."


if __name__ == "__main__":
    for question in ["First work out 5 × 6, then add 10 to the result.", "Multiply 5 by 7, then add 6."]:
        print(question, "->", react_agent(question, TOOLS))
