# expect: full
# style: Chinese system prompt, correction and error texts ("不在工具列表里" for an unknown tool); the
# style: parser uses raw_decode from every '{' found with str.find; a while loop with a step counter.
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
    行 = "\n".join(f"- {名字}: {信息['description']}" for 名字, 信息 in tools.items())
    return ("你要一步一步解决用户的问题，可以使用下面这些工具：\n" + 行 + "\n\n"
            "每次只回复一个 JSON 对象，不要写别的内容。\n"
            "调用工具：\n"
            '{"type": "tool", "name": "<工具名>", "args": {"<参数>": <值>}}\n'
            "知道答案时：\n"
            '{"type": "final", "content": "<答案>"}')


def parse_decision(reply: str) -> dict:
    """TODO 1.2 — the decision in the model's reply, as a dict.

    The JSON object may stand alone, sit in a ```json fence, or have prose around it. Raise
    ValueError when there is no complete JSON object, or when the object is not a decision (a
    "tool" with a name and args, or a "final" with a content).
    """
    decoder = json.JSONDecoder()
    start = reply.find("{")
    while start >= 0:
        try:
            obj, _ = decoder.raw_decode(reply, start)
            break
        except json.JSONDecodeError:
            start = reply.find("{", start + 1)
    else:
        raise ValueError("回复里没有完整的 JSON 对象")
    if isinstance(obj, dict) and obj.get("type") == "final" and "content" in obj:
        return obj
    if isinstance(obj, dict) and obj.get("type") == "tool" and isinstance(obj.get("name"), str) \
            and isinstance(obj.get("args"), dict):
        return obj
    raise ValueError(f"这不是一个决策：{obj}")


def correction_messages(reply: str, error: str) -> list[dict]:
    """TODO 1.3 — the two messages that send an unreadable reply back: the model's own reply, then
    what was wrong with it and a request for one JSON object. The model tries again."""
    return [
        {"role": "assistant", "content": reply},
        {"role": "user", "content": f"你的回复无法使用：{error}。请重新回答，只给出一个合法的 JSON 对象。"},
    ]


def execute_tool(tools: dict[str, dict], name: str, args) -> str:
    """TODO 1.4 — run the tool called `name` with `args` as keyword arguments; its result as text.

    Never raise: an unknown tool, arguments the tool does not take, or a tool that fails each give
    an error text, which goes back to the model as the tool's result.
    """
    if name not in tools:
        return f"错误：{name} 不在工具列表里"
    try:
        return str(tools[name]["function"](**args))
    except Exception as e:
        return f"错误：{name} 执行失败：{e}"


def react_agent(question: str, tools: dict[str, dict], max_steps: int = 8) -> str:
    """TODO 1.5 — the loop: system prompt and question; then ask, parse, and either answer, run the
    tool, or send the bad reply back. At most max_steps model calls."""
    messages = [{"role": "system", "content": build_system_prompt(tools)},
                {"role": "user", "content": question}]
    steps = 0
    while steps < max_steps:
        steps += 1
        reply = llm(messages)
        try:
            decision = parse_decision(reply)
        except ValueError as e:
            messages.extend(correction_messages(reply, str(e)))
            continue
        if decision["type"] == "final":
            return decision["content"]
        result = execute_tool(tools, decision["name"], decision["args"])
        messages.append({"role": "assistant", "content": reply})
        messages.append({"role": "tool", "content": result})
    return f"在 {max_steps} 步之内没有得到最终答案。"


if __name__ == "__main__":
    for question in ["First work out 5 × 6, then add 10 to the result.", "Multiply 5 by 7, then add 6."]:
        print(question, "->", react_agent(question, TOOLS))
