# expect: full
# style: Chinese error texts, the common 未找到 ("not found") wording for an unknown tool; the loop as a while with an index; EAFP lookup
"""Day 01 — the agent loop, over decision dicts.

The model does not run anything. Each time you show it the conversation so far, it answers with a
decision, a plain dict:

    {"type": "tool", "name": "multiply", "args": {"a": 5, "b": 6}}    please run multiply(a=5, b=6)
    {"type": "final", "content": "The final result is 40."}           I am done: here is the answer

Your code runs the tool it named, appends the decision and the tool's result to the messages, and
asks again, until a decision is final:

    user       First work out 5 × 6, then add 10 to the result.
    assistant  {"type": "tool", "name": "multiply", "args": {"a": 5, "b": 6}}
    tool       30                                   <- written by YOUR code, after running multiply
    assistant  {"type": "tool", "name": "add", "args": {"a": 30, "b": 10}}
    tool       40
    (final)    The final result is 40.

Fill in the three TODOs, then run `python validate.py day01`. Run this file itself to watch your
agent work: `python workspace/day01.py`.
"""
from __future__ import annotations

from typing import Callable

import mock_llm


# ---------------------------------------------------------------- given: two tools

def add(a, b):
    return a + b


def multiply(a, b):
    return a * b


# ---------------------------------------------------------------- given: the model

def llm(messages: list[dict]) -> dict:
    """Show the model the conversation, get its next decision. Here: the kit's offline mock."""
    return mock_llm.reply("day01", messages)


# ---------------------------------------------------------------- your part: three TODOs

def build_registry(functions: list[Callable]) -> dict[str, Callable]:
    """TODO 1.1"""
    return {函数.__name__: 函数 for 函数 in functions}


def execute_tool(tools: dict[str, Callable], name: str, args: dict) -> str:
    """TODO 1.2"""
    if name not in tools:
        return f"错误：未找到工具 {name}"
    try:
        return str(tools[name](**args))
    except Exception as e:
        return f"错误：调用 {name} 出错：{e}"


def react_agent(question: str, tools: dict[str, Callable], max_steps: int = 5) -> str:
    """TODO 1.3"""
    messages = [{"role": "user", "content": question}]
    i = 0
    while i < max_steps:
        i += 1
        decision = llm(messages)
        if decision["type"] == "final":
            return decision["content"]
        if decision["type"] != "tool":
            return f"停止：无法处理类型为 {decision['type']} 的决策"
        observation = execute_tool(tools, decision["name"], decision["args"])
        messages.append({"role": "assistant", "content": decision})
        messages.append({"role": "tool", "content": observation})
    return f"停止：{max_steps} 步之后仍没有最终答案"


if __name__ == "__main__":
    tools = build_registry([add, multiply])
    question = "First work out 5 × 6, then add 10 to the result."
    print(question, "->", react_agent(question, tools))
