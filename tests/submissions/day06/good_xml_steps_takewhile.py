# expect: full
# style: parse_react_response with itertools.takewhile to keep the lines up to the first Action Input; the prompt in XML-like tags, each step in <step n="N"> … </step>; format explained in one sentence
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
    """TODO 1.2 — the tool list for the prompt: one line per tool, its name and its description."""
    return "\n".join(f"- {tool.name}: {tool.description}" for tool in tools)


def execute_tool(tools: list[Tool], action: str, action_input: str) -> ToolResult:
    """TODO 1.3 — run the tool named `action` on `action_input`.

    Never raise: an unknown tool or a tool that raises is a failed ToolResult whose output says what
    went wrong. The model reads that as its Observation and can correct itself.
    """
    by_name = {tool.name: tool for tool in tools}
    if action not in by_name:
        return ToolResult(False, f"Error: unknown tool '{action}'. Available tools: {', '.join(by_name)}")
    try:
        return ToolResult(True, str(by_name[action].func(action_input)))
    except Exception as error:
        return ToolResult(False, f"Error: {action} failed: {error}")


def build_react_prompt(user_input: str, tools: list[Tool], steps: list[AgentStep]) -> str:
    parts = [
        "<instructions>",
        "Reply with Thought:, then either Action: and Action Input: (then stop and wait for the",
        "Observation), or Final Answer: when you know the answer.",
        "</instructions>",
        "<tools>",
        get_tools_description(tools),
        "</tools>",
        f"<question>{user_input}</question>",
    ]
    for number, step in enumerate(steps, 1):
        parts += [f'<step n="{number}">', f"Thought: {step.thought}", f"Action: {step.action}",
                  f"Action Input: {step.action_input}", f"Observation: {step.observation}", "</step>"]
    return "\n".join(parts) + "\n"


from itertools import takewhile


def _label(line: str, label: str) -> str | None:
    if line.startswith(label + ":"):
        return line[len(label) + 1:].strip()
    return None


def parse_react_response(response: str) -> tuple[str, str, str]:
    lines = response.splitlines()
    # everything up to and including the first Action Input line
    head = list(takewhile(lambda l: not l.startswith("Action Input:"), lines))
    if len(head) < len(lines):
        head.append(lines[len(head)])
    thought = action = action_input = ""
    for index, line in enumerate(head):
        if (value := _label(line, "Thought")) is not None and not thought:
            thought = value
        elif (value := _label(line, "Final Answer")) is not None:
            answer = "\n".join([value] + head[index + 1:]).strip()
            return thought, "", answer
        elif (value := _label(line, "Action")) is not None and not action:
            action = value
        elif (value := _label(line, "Action Input")) is not None:
            action_input = value
    return thought, action, action_input


async def react_agent(user_input: str, tools: list[Tool], max_steps: int = 10) -> str:
    """TODO 4.1 — the loop: prompt -> model -> parse -> answer, or run the tool and go again.

    At most max_steps model calls; if none gave a Final Answer, return a message that says so.
    """
    steps: list[AgentStep] = []
    for _ in range(max_steps):
        response = await llm_call(build_react_prompt(user_input, tools, steps))
        thought, action, action_input = parse_react_response(response)
        if not action:
            return action_input
        result = execute_tool(tools, action, action_input)
        steps.append(AgentStep(thought, action, action_input, result.output))
    return f"Stopped: no final answer after {max_steps} steps."


if __name__ == "__main__":
    for question in ["What is 3 + 5 * 2?", "How is the weather in 上海 today?"]:
        print(question, "->", asyncio.run(react_agent(question, TOOLS)))
