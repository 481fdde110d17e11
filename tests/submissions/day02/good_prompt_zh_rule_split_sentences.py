# expect: full
# style: build_system_prompt in Chinese; the reply rule ("每次回复只写下面两种对象之一") and "都是 JSON"
# style: in two sentences.
"""Day 02 — decisions as JSON text.

Yesterday the model handed your loop a ready-made dict. A real model writes text. You ask it, in
the system prompt, to answer with one JSON object:

    {"type": "tool", "name": "multiply", "args": {"a": 5, "b": 6}}
    {"type": "final", "content": "The final result is 40."}

and it mostly does, in its own way: the bare object, or the object in a ```json fence, or the
object between two sentences. Now and then the JSON is broken (cut off, unparseable). Your code
finds the object in whatever the model wrote; when there is none, it sends the bad reply back with
what was wrong, and the model tries again. A tool that fails is not a crash either: its error goes
back as the tool's result.

Fill in the five TODOs, then run `python validate.py day02`. Run this file itself to watch your
agent work: `python workspace/day02.py`.
"""
from __future__ import annotations

import json
import re

import mock_llm


# ---------------------------------------------------------------- given: the tools and their registry

def add(a, b):
    return a + b


def multiply(a, b):
    return a * b


# name -> the function, and the description the model reads to know when and how to call it
TOOLS = {
    "add": {"function": add, "description": "Adds two numbers. Arguments: a, b (numbers). Returns a + b."},
    "multiply": {"function": multiply,
                 "description": "Multiplies two numbers. Arguments: a, b (numbers). Returns a * b."},
}


# ---------------------------------------------------------------- given: the model

def llm(messages: list[dict]) -> str:
    """Show the model the conversation, get its reply: text. Here: the kit's offline mock."""
    return mock_llm.reply("day02", messages)


# ---------------------------------------------------------------- your part: five TODOs

def build_system_prompt(tools: dict[str, dict]) -> str:
    """TODO 1.1 — the system prompt: every tool (its name and description) and the JSON format.

    Show both decisions as JSON, with double quotes, and ask for one JSON object per reply.
    """
    # BEGIN SOLUTION
    tool_lines = "\n".join(f"- {name}：{tool['description']}" for name, tool in tools.items())
    return (
        "请借助下列工具一步步完成用户的任务：\n"
        f"{tool_lines}\n\n"
        "每次回复只写下面两种对象之一，不要写别的。\n"
        "调用工具：\n"
        '{"type": "tool", "name": "<工具名>", "args": {"<参数名>": <值>}}\n'
        "知道答案时：\n"
        '{"type": "final", "content": "<答案>"}\n'
        "两种都是标准 JSON（args 也是），双引号不能省。\n"
        "调用工具之后，结果会以 role 为 tool 的消息发给你。"
    )
    # END SOLUTION


def parse_decision(reply: str) -> dict:
    """TODO 1.2 — the decision in the model's reply, as a dict.

    The JSON object may stand alone, sit in a ```json fence, or have prose around it. Raise
    ValueError when there is no complete JSON object, or when the object is not a decision (a
    "tool" with a name and args, or a "final" with a content).
    """
    # BEGIN SOLUTION
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
    # END SOLUTION


def correction_messages(reply: str, error: str) -> list[dict]:
    """TODO 1.3 — the two messages that send an unreadable reply back: the model's own reply, then
    what was wrong with it and a request for one JSON object. The model tries again."""
    # BEGIN SOLUTION
    return [
        {"role": "assistant", "content": reply},
        {"role": "user", "content": f"Your reply could not be used: {error}. "
                                    "Answer again with exactly one valid JSON object, as described."},
    ]
    # END SOLUTION


def execute_tool(tools: dict[str, dict], name: str, args) -> str:
    """TODO 1.4 — run the tool called `name` with `args` as keyword arguments; its result as text.

    Never raise: an unknown tool, arguments the tool does not take, or a tool that fails each give
    an error text, which goes back to the model as the tool's result.
    """
    # BEGIN SOLUTION
    if name not in tools:
        return f"Error: unknown tool '{name}'. Available tools: {', '.join(tools)}"
    try:
        return str(tools[name]["function"](**args))
    except Exception as error:
        return f"Error: {name} failed: {error}"
    # END SOLUTION


def react_agent(question: str, tools: dict[str, dict], max_steps: int = 8) -> str:
    """TODO 1.5 — the loop: system prompt and question; then ask, parse, and either answer, run the
    tool, or send the bad reply back. At most max_steps model calls."""
    # BEGIN SOLUTION
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
    # END SOLUTION


if __name__ == "__main__":
    for question in ["First work out 5 × 6, then add 10 to the result.", "Multiply 5 by 7, then add 6."]:
        print(question, "->", react_agent(question, TOOLS))
