# expect: full
# style: immutable style: messages rebuilt as a new list each round (messages = [*messages, a, b]); Optional lookup with a walrus; the fallback in Chinese
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
    return {**{f.__name__: f for f in functions}}


def execute_tool(tools: dict[str, Callable], name: str, args: dict) -> str:
    """TODO 1.2"""
    if (tool := tools.get(name)) is None:
        return f"unknown tool: {name}; try one of {list(tools)}"
    try:
        return str(tool(**args))
    except Exception as e:  # noqa: BLE001
        return f"{name} failed with error: {e}"


def react_agent(question: str, tools: dict[str, Callable], max_steps: int = 5) -> str:
    """TODO 1.3"""
    messages: list[dict] = [{"role": "user", "content": question}]
    for _ in range(max_steps):
        decision = llm(messages)
        match_type = decision.get("type")
        if match_type == "final":
            return str(decision["content"])
        if match_type != "tool":
            return f"未知的决策类型 {match_type!r}，停止运行"
        result = execute_tool(tools, decision["name"], decision["args"])
        messages = [*messages, {"role": "assistant", "content": decision}, {"role": "tool", "content": result}]
    return f"在 {max_steps} 步之内没有得到最终答案"


if __name__ == "__main__":
    tools = build_registry([add, multiply])
    question = "First work out 5 × 6, then add 10 to the result."
    print(question, "->", react_agent(question, tools))
