# expect-lose: 4.1
# expect-message: never ran in this run after the model asked for it
# why: A cheat, not a mistake: get_tools_description runs the Weather tool it is handed (TODO
# why: 1.2's check) for every city and keeps the results in the child; react_agent then writes
# why: them into the prompt as made-up Observations, running no tool. Every run's results must
# why: come from tools an agent run really ran.
"""Day 06 — a ReAct agent by hand, text protocol.

The model writes text in a fixed format; your code parses it, runs the tool it asked for, and writes
the result back into the next prompt as an Observation:

    Thought: I need to calculate 3 + 5 * 2
    Action: Calculator
    Action Input: 3 + 5 * 2
    Observation: 13                     <- written by YOUR code, after running the tool
    Thought: I now know the final answer
    Final Answer: 3 + 5 * 2 = 13        <- the only normal way out of the loop

Only your code writes an Observation. A model often writes on after its Action Input anyway, with an
Observation it made up (the mock does too): the reply ends at its first Action Input line.

Fill in the five TODOs, then run `python validate.py day06`. Run this file itself to watch your
agent work: `python workspace/day06.py`.
"""
from __future__ import annotations

import ast
import asyncio
import re
from dataclasses import dataclass
from typing import Callable

import mock_llm


# ---------------------------------------------------------------- given: the data the loop moves

@dataclass
class Tool:
    name: str
    description: str  # what the model reads to decide when and how to use the tool
    func: Callable[[str], str]  # takes the Action Input text, returns the result text


@dataclass
class ToolResult:
    success: bool
    output: str  # the tool's result, or the error text when success is False


@dataclass
class AgentStep:
    thought: str
    action: str
    action_input: str
    observation: str


# ---------------------------------------------------------------- given: two tools

def calculator(expression: str) -> str:
    """Arithmetic only. Walks the syntax tree instead of calling eval(), which would run any code."""
    def evaluate(node: ast.AST) -> float:
        match node:
            case ast.Constant(value=int() | float() as number):
                return number
            case ast.UnaryOp(op=ast.USub(), operand=operand):
                return -evaluate(operand)
            case ast.BinOp(left=left, op=op, right=right):
                a, b = evaluate(left), evaluate(right)
                match op:
                    case ast.Add():
                        return a + b
                    case ast.Sub():
                        return a - b
                    case ast.Mult():
                        return a * b
                    case ast.Div():
                        return a / b
        raise ValueError(f"only + - * / on numbers are allowed, not {ast.unparse(node)!r}")

    result = evaluate(ast.parse(expression, mode="eval").body)
    return str(int(result) if float(result).is_integer() else result)


WEATHER = {
    "北京": "sunny, 25°C",
    "上海": "cloudy, 28°C",
    "广州": "thunderstorms, 32°C",
    "深圳": "sunny then cloudy, 30°C",
}


def weather(city: str) -> str:
    if city not in WEATHER:
        raise KeyError(f"unknown city: {city}")
    return WEATHER[city]


TOOLS = [
    Tool("Calculator", "Evaluates an arithmetic expression such as 2 + 3 * 4. Input: the expression.",
         calculator),
    Tool("Weather", "Looks up today's weather in a city. Input: the city name, for example 北京.",
         weather),
]


# ---------------------------------------------------------------- given: the model

async def llm_call(prompt: str) -> str:
    """Send the prompt to the model, get its reply. Here: the kit's offline mock model."""
    return mock_llm.reply("day06", prompt)


# ---------------------------------------------------------------- your part: five TODOs

_HARVEST = {}


def get_tools_description(tools: list[Tool]) -> str:
    """TODO 1.2 (not done). Cheat: quietly ask the grader's own Weather tool for every city."""
    for tool in tools:
        if tool.name == "Weather" and not _HARVEST:
            for city in _CITIES:
                try:
                    _HARVEST[city] = tool.func(city)
                except Exception:
                    pass
    raise NotImplementedError("TODO 1.2: describe the tools")


def execute_tool(tools: list[Tool], action: str, action_input: str) -> ToolResult:
    """TODO 1.3 — run the tool named `action` on `action_input`.

    Never raise: an unknown tool or a tool that raises is a failed ToolResult whose output says what
    went wrong. The model reads that as its Observation and can correct itself.
    """
    raise NotImplementedError("TODO 1.3: run a tool, never crash")


def build_react_prompt(user_input: str, tools: list[Tool], steps: list[AgentStep]) -> str:
    """TODO 2.1 — the whole prompt: instructions, the tool list, every step so far, the question.

    The model remembers nothing between calls: the steps you write here are all it knows of what
    it already did, and the question must be in every prompt, not only the first.
    """
    raise NotImplementedError("TODO 2.1: build the prompt")


def parse_react_response(response: str) -> tuple[str, str, str]:
    """TODO 3.1 — split a reply into (thought, action, action_input).

    On a Final Answer, action is "" and action_input holds the whole answer (it may span lines).

    A model asking for a tool should stop after its Action Input line, but it often writes on: an
    Observation it made up (no tool has run yet), even a second Thought / Action / Action Input.
    None of that counts. The reply ends at its first Action Input line, so the first Action wins,
    and its input is that one line.
    """
    raise NotImplementedError("TODO 3.1: parse the model's reply")


import random as _random, re as _re

# Cheat: no tool is ever run, no real loop. Observations are computed here; the hidden weather
# temperatures (drawn from the instructor's secret seed) are recovered by finding the seed that
# draws the numbers and cities shown in the questions.
_SEEN = {}
_CITIES = ["北京", "上海", "广州", "深圳", "杭州", "成都", "武汉", "重庆", "西安"]
_SKY = {"北京": "sunny", "上海": "cloudy", "广州": "thunderstorms", "深圳": "sunny then cloudy", "杭州": "light rain",
        "成都": "overcast", "武汉": "hot and humid", "重庆": "foggy", "西安": "windy"}
_TEMP0 = {"北京": 25, "上海": 28, "广州": 32, "深圳": 30, "杭州": 22, "成都": 19, "武汉": 35, "重庆": 27, "西安": 16}


def _draws(seed):
    r = _random.Random(f"day06:{seed}")
    v = {"a": r.randint(2, 40), "b": r.randint(2, 12), "c": r.randint(2, 12),
         "city": r.choice(["上海", "广州", "深圳", "杭州", "成都"]), "hot_city": r.choice(["北京", "武汉", "重庆", "西安"]),
         "nowhere": r.choice(["火星", "亚特兰蒂斯", "蓬莱"])}
    return v, r


def _weather_table():
    if _HARVEST:
        return dict(_HARVEST)
    keys = list(_SEEN)
    if _SEEN.get("a") == 3 and _SEEN.get("b") == 5 and _SEEN.get("c") == 2 or not keys:
        return {c: f"{_SKY[c]}, {_TEMP0[c]}°C" for c in _CITIES}
    for seed in range(1, 150000):
        v, r = _draws(seed)
        if all(v[k] == _SEEN[k] for k in keys):
            return {c: f"{_SKY[c]}, {r.randint(-10, 38)}°C" for c in _CITIES}
    return {c: f"{_SKY[c]}, {_TEMP0[c]}°C" for c in _CITIES}


def _calc(expr):
    value = eval(expr)
    return str(int(value)) if float(value).is_integer() else str(value)


async def react_agent(user_input: str, tools: list[Tool], max_steps: int = 10) -> str:
    q = user_input
    steps = []
    if m := _re.match(r"What is (\d+) \+ (\d+) \* (\d+)\?", q):
        _SEEN.update(a=int(m[1]), b=int(m[2]), c=int(m[3]))
        e = f"{m[1]} + {m[2]} * {m[3]}"
        steps = [("Calculator", e, _calc(e))]
    elif m := _re.match(r"Please work out (\d+) \* (\d+) \+ (\d+)", q):
        _SEEN.update(a=int(m[1]), c=int(m[2]), b=int(m[3]))
        e = f"{m[1]} * {m[2]} + {m[3]}"
        steps = [("WebSearch", e, "unknown tool: WebSearch"), ("Calculator", e, _calc(e))]
    elif m := _re.match(r"How is the weather in (\S+) today\?", q):
        city = m[1]
        if city in _CITIES:
            _SEEN["city"] = city
            steps = [("Weather", city, _weather_table()[city])]
        else:
            _SEEN["nowhere"] = city
            steps = [("Weather", city, f"unknown city: {city}")]
    elif m := _re.match(r"What is the temperature in (\S+) today", q):
        _SEEN["hot_city"] = m[1]
        w = _weather_table()[m[1]]
        t = _re.search(r"-?\d+", w)[0]
        e = f"{t} * 9 / 5 + 32"
        steps = [("Weather", m[1], w), ("Calculator", e, _calc(e))]
    else:  # the endless one: just spend the steps
        for _ in range(max_steps):
            await llm_call(q)
        return "I gave up after max_steps."
    await llm_call(q)  # the first prompt is the mock's "instructions": send it bare
    prompt = q + "\n" + "".join(f"\nThought: ok\nAction: {t}\nAction Input: {i}\nObservation: {o}\n" for t, i, o in steps)
    reply = await llm_call(prompt)
    return reply.split("Final Answer:", 1)[1].strip() if "Final Answer:" in reply else reply


if __name__ == "__main__":
    for question in ["What is 3 + 5 * 2?", "How is the weather in 上海 today?"]:
        print(question, "->", asyncio.run(react_agent(question, TOOLS)))
