# expect-lose: 1.1 1.2 2.1 2.2 3.1
# seed: 83921
# expect-message: first make each round read the reply and run the tool it asks for
# why: cheat: run_agent makes max_steps requests, sending every reply back with FORMAT_REMINDER and never
# why: parsing one; execute_tool answers every name with "no tool X; the tools are: …". That was "each
# why: reminder costs a step" and "an unknown tool lists the real tools" for free: those now count once
# why: the loop runs the tools the model asks for, and once execute_tool runs a tool it is given.
"""Day 08 — robustness: a text agent that survives its model's mistakes.

The agent of day 06, with the openai client of day 07: the conversation goes to the model as chat
messages, and each reply's content is ReAct text (Thought / Action / Action Input, or Final Answer).
A model makes mistakes, and a robust loop recovers from each one instead of crashing or lying:

    a reply that follows no format     -> tell the model the format again, and ask again
    a tool name that does not exist    -> an Observation that lists the real tools
    a tool that fails (a city unknown) -> the error as the Observation: the model says so honestly
    an Observation the model made up   -> cut the reply where the model should have stopped

Plus a new tool, get_current_time, whose clock can be swapped for a fake one in tests.

Fill in the five TODOs, then run `python validate.py day08`; run this file to watch your agent.
"""
from __future__ import annotations

import ast
import re
import time
from dataclasses import dataclass
from datetime import datetime, timedelta, timezone
from typing import Callable

from mock_llm.http import openai_client

client = openai_client("day08")
MODEL = "mock-react-1"


@dataclass
class Tool:
    name: str
    description: str  # what the model reads to decide when and how to use the tool
    func: Callable[[str], str]  # takes the Action Input text, returns the result text


# ---------------------------------------------------------------- given: three tools

WEATHER = {
    "北京": "晴，气温 25°C，湿度 40%",
    "上海": "多云，气温 28°C，湿度 65%",
    "广州": "雷阵雨，气温 32°C，湿度 80%",
    "深圳": "晴转多云，气温 30°C，湿度 70%",
}


def get_weather(city: str) -> str:
    city = city.strip().strip("\"'“”")
    if city not in WEATHER:
        raise LookupError(f"no weather data for {city}")
    return WEATHER[city]


def calculate(expression: str) -> str:
    """Arithmetic only: walks the syntax tree instead of calling eval(), which would run any code."""
    operators = {ast.Add: lambda a, b: a + b, ast.Sub: lambda a, b: a - b,
                 ast.Mult: lambda a, b: a * b, ast.Div: lambda a, b: a / b}

    def value(node: ast.AST) -> float:
        if isinstance(node, ast.Constant) and type(node.value) in (int, float):
            return node.value
        if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.USub):
            return -value(node.operand)
        if isinstance(node, ast.BinOp) and type(node.op) in operators:
            return operators[type(node.op)](value(node.left), value(node.right))
        raise ValueError(f"only + - * / on numbers, not {ast.unparse(node)!r}")

    result = value(ast.parse(expression.strip(), mode="eval").body)
    return str(int(result) if float(result).is_integer() else result)


KNOWLEDGE = {
    "python": "Python 是一门解释型的高级编程语言，由 Guido van Rossum 在 1991 年首次发布。",
    "agent": "AI Agent 是能感知环境、自己决定下一步并去执行的系统：模型负责决定，代码负责行动。",
    "react": "ReAct 是一种 Agent 范式：模型交替进行推理（Reasoning）和行动（Acting），每次行动的结果都交回给它。",
}


def search_knowledge(query: str) -> str:
    for key, text in KNOWLEDGE.items():
        if key in query.strip().lower():
            return text
    return f"nothing found for {query.strip()!r}"


# ---------------------------------------------------------------- given: the new tool's clock

BEIJING = timezone(timedelta(hours=8))  # China has one time zone, UTC+8, and no summer time


class TimeTool:
    """The get_current_time tool. Its clock is injected: time.time by default, any function that
    returns seconds since the epoch in a test (the checks give it a clock of their own)."""

    def __init__(self, clock: Callable[[], float] = time.time):
        self.clock = clock

    def __call__(self, _input: str = "") -> str:
        return current_time(self.clock)


TOOLS = [
    Tool("get_weather", "Today's weather in a city. Input: the city name, such as 北京.", get_weather),
    Tool("calculate", "Evaluates an arithmetic expression such as 2 + 3 * 4. Input: the expression.", calculate),
    Tool("search_knowledge", "Searches a small knowledge base (Python, agents, ReAct). Input: a keyword.",
         search_knowledge),
    Tool("get_current_time", "The current date and time in Beijing. Input: now.", TimeTool()),
]


# ---------------------------------------------------------------- given: what the model is told

def build_system_prompt(tools: list[Tool]) -> str:
    listing = "\n".join(f"- {tool.name}: {tool.description}" for tool in tools)
    return ("Answer the user's question. You can use these tools:\n"
            f"{listing}\n\n"
            "Reply in one of two forms. To use a tool:\n"
            "Thought: what to do next\n"
            "Action: the tool's name, exactly as listed above\n"
            "Action Input: the tool's input, on one line\n"
            "Then stop. The tool's result comes back to you as 'Observation: ...'; never write it yourself.\n"
            "When you know the answer:\n"
            "Thought: I now know the final answer\n"
            "Final Answer: the answer to the question\n")


FORMAT_REMINDER = ("Your last reply did not follow the format. To use a tool, reply with Thought, Action "
                   "and Action Input lines; to answer, reply with Thought and Final Answer lines.")


# ---------------------------------------------------------------- your part: five TODOs

def execute_tool(tools: list[Tool], action: str, action_input: str) -> str:
    """TODO 1.1 — run the tool named `action` on `action_input`; the text for the Observation.

    Never raise. A name that is no tool's: say so and list the real tools' names, so the model can
    pick the right one. A tool that raises: an error text with the exception's message, so the model
    can tell the user what went wrong.
    """
    return f"Error: no tool {action!r}; the tools are: " + ", ".join(t.name for t in tools)


def current_time(clock: Callable[[], float]) -> str:
    """TODO 1.2 — the time `clock()` says (seconds since the epoch, like time.time()), in Beijing
    time (BEIJING), as "2026-05-20 14:30 (Wednesday, Beijing time)": the date and the 24-hour time
    first, anything after. Call the clock; never read the machine's own clock or time zone."""
    raise NotImplementedError("TODO 1.2: the time, from an injected clock")


def cut_reply(reply: str) -> str:
    """TODO 2.1 — the reply as far as the model may write it.

    A model that asks for a tool should stop after its Action Input line, but it often writes on: an
    Observation it made up, even a Final Answer built on it. Keep the reply up to its first Action
    Input line, included; and never keep a line that starts with 'Observation:', nor anything after
    it. A reply with neither comes back unchanged.
    """
    return reply


def parse_reply(reply: str) -> tuple[str, str, str] | None:
    """TODO 2.2 — (thought, action, action_input) of a reply, or None when it follows no format.

    A Final Answer gives (thought, "", the answer: all of it, it may span lines). A request needs
    both an 'Action:' line and an 'Action Input:' line. Anything else, prose or half a request,
    is None: the loop then reminds the model of the format.
    """
    raise NotImplementedError("TODO 2.2: parse the reply, or say it follows no format")


def run_agent(question: str, tools: list[Tool], max_steps: int = 8) -> str:
    """TODO 3.1 — the loop, as chat messages: the system prompt and the question, then per round
    the reply (cut) as an assistant message and what comes back as a user message: the tool's
    Observation, or FORMAT_REMINDER when the reply could not be parsed. At most max_steps requests;
    then a message of your own that says no answer was found."""
    messages = [{"role": "system", "content": build_system_prompt(tools)}, {"role": "user", "content": question}]
    for _ in range(max_steps):
        r = client.chat.completions.create(model=MODEL, messages=messages)
        messages.append({"role": "assistant", "content": r.choices[0].message.content})
        messages.append({"role": "user", "content": FORMAT_REMINDER})
    return "Sorry, no answer was found within the step limit."


if __name__ == "__main__":
    for text in ["北京今天的温度是多少华氏度？", "纽约今天天气怎么样？", "现在几点了？", "什么是 ReAct？",
                 "帮我看看上海今天的天气。"]:
        print(text, "->", run_agent(text, TOOLS), "\n")
