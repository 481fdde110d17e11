# expect-lose: 1.1
# why: the JSON examples sit inside an f-string with single braces, so Python reads {"type": ...} as a format field and build_system_prompt raises
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
    tool_lines = "\n".join(f"- {name}: {tool['description']}" for name, tool in tools.items())
    return f'''You solve the user's task step by step with these tools:
{tool_lines}

Answer every time with exactly one JSON object and nothing else.
To call a tool:
{"type": "tool", "name": "<tool name>", "args": {"<argument>": "<value>"}}
When you know the answer:
{"type": "final", "content": "<the answer>"}'''

def parse_decision(reply: str) -> dict:
    """TODO 1.2 — the decision in the model's reply, as a dict.

    The JSON object may stand alone, sit in a ```json fence, or have prose around it. Raise
    ValueError when there is no complete JSON object, or when the object is not a decision (a
    "tool" with a name and args, or a "final" with a content).
    """
    decoder = json.JSONDecoder()
    for start in (m.start() for m in re.finditer(r"\{", reply)):
        try:
            decision, _ = decoder.raw_decode(reply, start)
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
    raise ValueError('not a decision: expected {"type": "tool", "name": …, "args": {…}} or '
                     f'{{"type": "final", "content": …}}, got {json.dumps(decision)}')


def correction_messages(reply: str, error: str) -> list[dict]:
    """TODO 1.3 — the two messages that send an unreadable reply back: the model's own reply, then
    what was wrong with it and a request for one JSON object. The model tries again."""
    return [
        {"role": "assistant", "content": reply},
        {"role": "user", "content": f"Your reply could not be used: {error}. "
                                    "Answer again with exactly one valid JSON object, as described."},
    ]


def execute_tool(tools: dict[str, dict], name: str, args) -> str:
    """TODO 1.4 — run the tool called `name` with `args` as keyword arguments; its result as text.

    Never raise: an unknown tool, arguments the tool does not take, or a tool that fails each give
    an error text, which goes back to the model as the tool's result.
    """
    if name not in tools:
        return f"Error: unknown tool '{name}'. Available tools: {', '.join(tools)}"
    try:
        return str(tools[name]["function"](**args))
    except Exception as error:
        return f"Error: {name} failed: {error}"


def react_agent(question: str, tools: dict[str, dict], max_steps: int = 8) -> str:
    """TODO 1.5 — the loop: system prompt and question; then ask, parse, and either answer, run the
    tool, or send the bad reply back. At most max_steps model calls."""
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

