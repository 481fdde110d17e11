# expect: full
# style: logging module for a trace of each round (basicConfig at import), decision type normalised with lower(), for/else
"""Day 01 — the agent loop, over decision dicts."""
from __future__ import annotations

from typing import Callable

import mock_llm


def add(a, b):
    return a + b


def multiply(a, b):
    return a * b


def llm(messages: list[dict]) -> dict:
    """Show the model the conversation, get its next decision. Here: the kit's offline mock."""
    return mock_llm.reply("day01", messages)

import logging

logging.basicConfig(level=logging.INFO, format="%(message)s")
log = logging.getLogger("agent")


def build_registry(functions: list[Callable]) -> dict[str, Callable]:
    registry: dict[str, Callable] = {}
    for f in functions:
        registry.setdefault(f.__name__, f)
    return registry


def execute_tool(tools: dict[str, Callable], name: str, args: dict) -> str:
    tool = tools.get(name)
    if tool is None:
        log.warning("model asked for missing tool %s", name)
        return f"Error: I don't have a tool called {name}."
    try:
        out = tool(**args)
    except Exception as e:
        log.exception("tool %s raised", name)
        return f"Error: {e}"
    return str(out)


def react_agent(question: str, tools: dict[str, Callable], max_steps: int = 5) -> str:
    messages = [{"role": "user", "content": question}]
    for step in range(max_steps):
        decision = llm(messages)
        log.info("step %d: %s", step + 1, decision)
        kind = str(decision.get("type", "")).strip().lower()
        if kind == "final":
            return decision["content"]
        if kind != "tool":
            return f"Unknown decision type: {decision.get('type')}"
        result = execute_tool(tools, decision["name"], decision["args"])
        log.info("  -> %s", result)
        messages += [{"role": "assistant", "content": decision}, {"role": "tool", "content": result}]
    else:
        return f"Gave up after {max_steps} steps."
