# expect: full
# style: parse_react_response scans lines with startswith (Action Input tested before Action) and
# style: stops at the first Action Input line; tools listed as "Name — description"; steps numbered.
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

def get_tools_description(tools: list[Tool]) -> str:
    """TODO 1.2"""
    lines = []
    for tool in tools:
        lines.append(f"{tool.name} — {tool.description}")
    return "\n".join(lines)


def execute_tool(tools: list[Tool], action: str, action_input: str) -> ToolResult:
    """TODO 1.3"""
    for tool in tools:
        if tool.name == action:
            break
    else:
        names = ", ".join(t.name for t in tools)
        return ToolResult(False, f"There is no tool called {action}. Use one of: {names}.")
    try:
        output = tool.func(action_input)
    except Exception as exc:
        return ToolResult(False, f"{action} raised {type(exc).__name__}: {exc}")
    return ToolResult(True, str(output))


def build_react_prompt(user_input: str, tools: list[Tool], steps: list[AgentStep]) -> str:
    """TODO 2.1"""
    parts = [
        "You are a helpful assistant that can use tools.",
        "",
        "Tools:",
        get_tools_description(tools),
        "",
        "Reply in this format:",
        "Thought: think about what to do",
        "Action: the name of one tool",
        "Action Input: the input for that tool",
        "Observation: the result (I will write this line, not you)",
        "When you know the answer, write:",
        "Thought: I know the answer",
        "Final Answer: your answer",
        "",
        f"Question: {user_input}",
    ]
    for number, step in enumerate(steps, start=1):
        parts += [
            "",
            f"Step {number}:",
            f"Thought: {step.thought}",
            f"Action: {step.action}",
            f"Action Input: {step.action_input}",
            f"Observation: {step.observation}",
        ]
    return "\n".join(parts) + "\n"


def parse_react_response(response: str) -> tuple[str, str, str]:
    """TODO 3.1"""
    thought, action, action_input = "", "", ""
    lines = response.splitlines()
    for index, line in enumerate(lines):
        text = line.strip()
        if text.startswith("Final Answer:"):
            answer = "\n".join([text[len("Final Answer:"):]] + lines[index + 1:])
            return thought, "", answer.strip()
        if text.startswith("Thought:") and not thought:
            thought = text[len("Thought:"):].strip()
        elif text.startswith("Action Input:"):
            action_input = text[len("Action Input:"):].strip()
            break
        elif text.startswith("Action:") and not action:
            action = text[len("Action:"):].strip()
    return thought, action, action_input


async def react_agent(user_input: str, tools: list[Tool], max_steps: int = 10) -> str:
    """TODO 4.1"""
    steps: list[AgentStep] = []
    for _ in range(max_steps):
        prompt = build_react_prompt(user_input, tools, steps)
        reply = await llm_call(prompt)
        thought, action, action_input = parse_react_response(reply)
        if action == "":
            return action_input
        result = execute_tool(tools, action, action_input)
        steps.append(AgentStep(thought=thought, action=action, action_input=action_input,
                               observation=result.output))
    return f"I could not find an answer within {max_steps} steps."


if __name__ == "__main__":
    for question in ["What is 3 + 5 * 2?", "How is the weather in 上海 today?"]:
        print(question, "->", asyncio.run(react_agent(question, TOOLS)))
