# expect: full
# style: no regex at all: a line-by-line parser, and the tools looked up in a dict.
"""Day 06 — a ReAct agent by hand, text protocol.

The model writes text in a fixed format; your code parses it, runs the tool it asked for, and writes
the result back into the next prompt as an Observation:

    Thought: I need to calculate 3 + 5 * 2
    Action: Calculator
    Action Input: 3 + 5 * 2
    Observation: 13                     <- written by YOUR code, after running the tool
    Thought: I now know the final answer
    Final Answer: 3 + 5 * 2 = 13        <- the only normal way out of the loop

Fill in the five TODOs, then run `python validate.py day06`. Run this file itself to watch your
agent work: `python lessons/day06/day06.py`.
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
    text = ""
    for tool in tools:
        text += "* " + tool.name + " -- " + tool.description + "\n"
    return text


def execute_tool(tools: list[Tool], action: str, action_input: str) -> ToolResult:
    """TODO 1.3 — run the tool named `action` on `action_input`; never raise."""
    table = {}
    for tool in tools:
        table[tool.name] = tool.func
    if action not in table:
        names = ", ".join(table)
        return ToolResult(False, "There is no tool called " + action + ". Try one of: " + names)
    try:
        output = table[action](action_input)
    except Exception as error:
        return ToolResult(False, "The tool " + action + " raised an error: " + str(error))
    return ToolResult(True, str(output))


def build_react_prompt(user_input: str, tools: list[Tool], steps: list[AgentStep]) -> str:
    """TODO 2.1 — the whole prompt: instructions, the tool list, every step so far, the question."""
    parts = [
        "You are a helpful assistant. You may use the following tools:",
        get_tools_description(tools),
        "Always answer in this format:",
        "Thought: think about what to do",
        "Action: the name of one tool",
        "Action Input: what to give the tool",
        "Observation: what the tool returned (I will write this line, not you)",
        "When you are done, write:",
        "Thought: I now know the final answer",
        "Final Answer: your answer",
        "",
        "Question: " + user_input,
    ]
    for step in steps:
        parts.append("Thought: " + step.thought)
        parts.append("Action: " + step.action)
        parts.append("Action Input: " + step.action_input)
        parts.append("Observation: " + step.observation)
    return "\n".join(parts)


def after(line: str, label: str) -> str:
    return line[len(label):].strip()


def parse_react_response(response: str) -> tuple[str, str, str]:
    """TODO 3.1 — split a reply into (thought, action, action_input)."""
    thought = action = action_input = ""
    lines = response.splitlines()
    for number, line in enumerate(lines):
        line = line.strip()
        if line.startswith("Thought:"):
            thought = after(line, "Thought:")
        elif line.startswith("Final Answer:"):
            answer_lines = [after(line, "Final Answer:")] + lines[number + 1:]
            return thought, "", "\n".join(answer_lines).strip()
        elif line.startswith("Action Input:"):
            action_input = after(line, "Action Input:")
            break  # the model should stop here: whatever it writes after this line is made up
        elif line.startswith("Action:"):
            action = after(line, "Action:")
    return thought, action, action_input


async def react_agent(user_input: str, tools: list[Tool], max_steps: int = 10) -> str:
    """TODO 4.1 — the loop: prompt -> model -> parse -> answer, or run the tool and go again."""
    steps = []
    for step_number in range(1, max_steps + 1):
        prompt = build_react_prompt(user_input, tools, steps)
        reply = await llm_call(prompt)
        thought, action, action_input = parse_react_response(reply)
        if action == "":
            return action_input
        result = execute_tool(tools, action, action_input)
        steps.append(AgentStep(thought, action, action_input, result.output))
    return "I could not finish: " + str(max_steps) + " steps were not enough."


if __name__ == "__main__":
    for question in ["What is 3 + 5 * 2?", "How is the weather in 上海 today?"]:
        print(question, "->", asyncio.run(react_agent(question, TOOLS)))
