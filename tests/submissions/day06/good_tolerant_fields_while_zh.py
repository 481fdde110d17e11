# expect: full
# style: day04-style tolerant field reader (any case, bold, full-width colon) reused as the parser, dict lookup of tools, while loop with counter, Chinese fallback, f-strings
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


# expect: full
# style: day04-style tolerant field reader (any case, bold, full-width colon) reused as the parser, dict lookup of tools, while loop with counter, Chinese fallback, f-strings
def get_tools_description(tools: list[Tool]) -> str:
    return "\n".join(f"- {t.name}: {t.description}" for t in tools)


def execute_tool(tools: list[Tool], action: str, action_input: str) -> ToolResult:
    by_name = {t.name: t for t in tools}
    tool = by_name.get(action)
    if tool is None:
        return ToolResult(False, f"Error: there is no tool named {action!r}. Available tools: {', '.join(by_name)}")
    try:
        return ToolResult(True, str(tool.func(action_input)))
    except Exception as exc:  # the model reads this and can correct itself
        return ToolResult(False, f"Error: {action} raised {type(exc).__name__}: {exc}")


def build_react_prompt(user_input: str, tools: list[Tool], steps: list[AgentStep]) -> str:
    history = "".join(
        f"Thought: {s.thought}\nAction: {s.action}\nAction Input: {s.action_input}\nObservation: {s.observation}\n"
        for s in steps)
    return (f"Answer the question below. You have these tools:\n{get_tools_description(tools)}\n\n"
            "Format:\nThought: ...\nAction: <tool name>\nAction Input: <input>\n"
            "Observation: <result, written by me; stop after Action Input>\n"
            "... repeat as needed ...\nFinal Answer: <answer>\n\n"
            f"Question: {user_input}\n{history}")


_NAMES = {"thought": "Thought", "action": "Action", "actioninput": "Action Input",
          "observation": "Observation", "finalanswer": "Final Answer"}


def _fields(text: str) -> list[list]:
    out: list[list] = []
    for line in text.splitlines():
        head, colon, rest = line.replace("：", ":").partition(":")
        name = _NAMES.get("".join(c for c in head if c not in " \t*_").lower()) if colon else None
        if name:
            out.append([name, [rest.strip().strip("*").strip()]])
        elif out:
            out[-1][1].append(line)
    return out


def parse_react_response(response: str) -> tuple[str, str, str]:
    fields = _fields(response)
    for i, (name, _) in enumerate(fields):
        if name == "Action Input":
            fields = fields[:i + 1]
            fields[-1][1] = fields[-1][1][:1]  # its input is that one line
            break
    value = {}
    for name, lines in fields:
        value.setdefault(name, "\n".join(lines).strip())
    thought = value.get("Thought", "")
    if "Final Answer" in value:
        return thought, "", value["Final Answer"]
    return thought, value.get("Action", ""), value.get("Action Input", "")


async def react_agent(user_input: str, tools: list[Tool], max_steps: int = 10) -> str:
    steps: list[AgentStep] = []
    n = 0
    while n < max_steps:
        n += 1
        response = await llm_call(build_react_prompt(user_input, tools, steps))
        thought, action, action_input = parse_react_response(response)
        if not action:
            return action_input
        result = execute_tool(tools, action, action_input)
        steps.append(AgentStep(thought, action, action_input, result.output))
    return f"抱歉，{max_steps} 步之内没有得到最终答案。"


if __name__ == "__main__":
    for question in ["What is 3 + 5 * 2?", "How is the weather in 上海 today?"]:
        print(question, "->", asyncio.run(react_agent(question, TOOLS)))
