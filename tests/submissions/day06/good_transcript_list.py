# expect: full
# style: a while loop with a step counter; the loop keeps its history as a list of transcript strings.
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
    return "\n".join(f"{number}. {tool.name} — {tool.description}"
                     for number, tool in enumerate(tools, start=1))


def execute_tool(tools: list[Tool], action: str, action_input: str) -> ToolResult:
    """TODO 1.3 — run the tool named `action` on `action_input`; never raise."""
    for tool in tools:
        if tool.name != action:
            continue
        try:
            result = tool.func(action_input)
        except Exception as error:
            return ToolResult(False, f"{action} raised {error!r}, message: {error}")
        return ToolResult(True, f"{result}")
    return ToolResult(False, f"'{action}' is not one of the tools: {[t.name for t in tools]}")


def format_step(thought: str, action: str, action_input: str, observation: str) -> str:
    return (f"Thought: {thought}\nAction: {action}\nAction Input: {action_input}\n"
            f"Observation: {observation}\n")


def build_react_prompt(user_input: str, tools: list[Tool], steps: list[AgentStep]) -> str:
    """TODO 2.1 — the whole prompt: instructions, the tool list, every step so far, the question."""
    instructions = f"""You answer questions with the help of tools.

Available tools:
{get_tools_description(tools)}

Write one step at a time:
Thought: <your reasoning>
Action: <one tool name>
Action Input: <the tool's input>
Then stop: the Observation (the tool's result) will be added for you.
When you have the answer, write:
Thought: I now know the final answer
Final Answer: <the answer>

Question: {user_input}
"""
    return instructions + "".join(format_step(s.thought, s.action, s.action_input, s.observation)
                                  for s in steps)


def parse_react_response(response: str) -> tuple[str, str, str]:
    """TODO 3.1 — split a reply into (thought, action, action_input)."""
    fields = {"Thought": "", "Action": "", "Action Input": ""}
    request, marker, rest = response.partition("Action Input:")
    if marker:  # the reply ends with that line: what follows is made up
        response = request + marker + rest.partition("\n")[0]
    head, marker, answer = response.partition("Final Answer:")
    for line in head.splitlines():
        key, colon, value = line.partition(":")
        if colon and key.strip() in fields and not fields[key.strip()]:  # the first of each counts
            fields[key.strip()] = value.strip()
    if marker:
        return fields["Thought"], "", answer.strip()
    return fields["Thought"], fields["Action"], fields["Action Input"]


async def react_agent(user_input: str, tools: list[Tool], max_steps: int = 10) -> str:
    """TODO 4.1 — the loop: prompt -> model -> parse -> answer, or run the tool and go again."""
    transcript: list[str] = []  # one string per finished step
    step = 0
    while step < max_steps:
        step += 1
        prompt = build_react_prompt(user_input, tools, []) + "".join(transcript)
        thought, action, action_input = parse_react_response(await llm_call(prompt))
        if not action:
            return action_input
        observation = execute_tool(tools, action, action_input).output
        transcript.append(format_step(thought, action, action_input, observation))
    return f"(stopped after {step} steps, no final answer)"


if __name__ == "__main__":
    for question in ["What is 3 + 5 * 2?", "How is the weather in 上海 today?"]:
        print(question, "->", asyncio.run(react_agent(question, TOOLS)))
