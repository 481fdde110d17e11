# expect: full
# style: Chinese prompt and correction; the user message labels the question ("问题：…"); slice from first "{" to last "}" after dropping fences
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
    lines = ["你可以使用下面这些工具，一步一步解决用户的问题："]
    lines += [f"- {name}：{info['description']}" for name, info in tools.items()]
    lines += ["", "每次只回复一个 JSON 对象，不要写别的内容。",
              '调用工具：{"type": "tool", "name": "<工具名>", "args": {"<参数名>": <值>}}',
              '给出答案：{"type": "final", "content": "<答案>"}']
    return "\n".join(lines)


def parse_decision(reply: str) -> dict:
    text = re.sub(r"```[a-zA-Z]*", "", reply)
    start, end = text.find("{"), text.rfind("}")
    if start < 0 or end < start:
        raise ValueError("回复里没有完整的 JSON 对象")
    decision = json.loads(text[start:end + 1])
    if not isinstance(decision, dict):
        raise ValueError("JSON 不是对象")
    if decision.get("type") == "final" and "content" in decision:
        return decision
    if decision.get("type") == "tool" and isinstance(decision.get("name"), str) and isinstance(decision.get("args"), dict):
        return decision
    raise ValueError(f"这个 JSON 不是决策：{json.dumps(decision, ensure_ascii=False)}")


def correction_messages(reply: str, error: str) -> list[dict]:
    return [{"role": "assistant", "content": reply},
            {"role": "user", "content": f"你的回复无法使用：{error}。请重新回答，只给出一个合法的 JSON 对象。"}]


def execute_tool(tools: dict[str, dict], name: str, args) -> str:
    if name not in tools:
        return f"错误：没有名为 {name} 的工具，可用的有：{'、'.join(tools)}"
    try:
        return str(tools[name]["function"](**args))
    except Exception as e:
        return f"错误：{name} 执行失败：{e}"


def react_agent(question: str, tools: dict[str, dict], max_steps: int = 8) -> str:
    messages = [{"role": "system", "content": build_system_prompt(tools)},
                {"role": "user", "content": f"问题：{question}"}]
    for _ in range(max_steps):
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
    return f"停止：{max_steps} 步之内没有得到最终答案。"


if __name__ == "__main__":
    for question in ["First work out 5 × 6, then add 10 to the result.", "Multiply 5 by 7, then add 6."]:
        print(question, "->", react_agent(question, TOOLS))
