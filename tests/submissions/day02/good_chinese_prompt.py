# expect: full
# style: the system prompt, the correction and the error texts in Chinese; the fence stripped
# style: with str methods; the reply kept as the assistant message.
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
    tool_text = "\n".join(f"- {name}：{info['description']}" for name, info in tools.items())
    return (
        "你是一个会使用工具的助手。可用的工具：\n"
        f"{tool_text}\n\n"
        "每次只回复一个 JSON 对象，不要写其他内容。\n"
        '调用工具：{"type": "tool", "name": "工具名", "args": {"参数名": 参数值}}\n'
        '给出答案：{"type": "final", "content": "最终答案"}'
    )


def parse_decision(reply: str) -> dict:
    text = reply.strip()
    if "```" in text:
        inside = text.split("```")[1]
        text = inside[4:] if inside.lower().startswith("json") else inside
    start = text.find("{")
    if start == -1:
        raise ValueError("回复里没有 JSON 对象")
    decision, _ = json.JSONDecoder().raw_decode(text[start:])
    if not isinstance(decision, dict) or decision.get("type") not in ("tool", "final"):
        raise ValueError("JSON 不是合法的决策")
    if decision["type"] == "tool" and not isinstance(decision.get("args"), dict):
        raise ValueError("工具决策缺少 args 对象")
    if decision["type"] == "final" and "content" not in decision:
        raise ValueError("final 决策缺少 content")
    return decision


def correction_messages(reply: str, error: str) -> list[dict]:
    return [{"role": "assistant", "content": reply},
            {"role": "user", "content": f"你的回复无法解析：{error}。请重新回答，只给出一个合法的 JSON 对象。"}]


def execute_tool(tools: dict[str, dict], name: str, args) -> str:
    if name not in tools:
        return f"错误：没有名为 {name} 的工具，可用的有 {'、'.join(tools)}"
    try:
        return str(tools[name]["function"](**args))
    except Exception as error:
        return f"错误：{name} 执行失败：{error}"


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
        observation = execute_tool(tools, decision["name"], decision["args"])
        messages.append({"role": "assistant", "content": reply})
        messages.append({"role": "tool", "content": observation})
    return f"调用了 {max_steps} 次模型仍没有最终答案。"


if __name__ == "__main__":
    for question in ["First work out 5 × 6, then add 10 to the result.", "Multiply 5 by 7, then add 6."]:
        print(question, "->", react_agent(question, TOOLS))
