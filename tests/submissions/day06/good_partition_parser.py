# expect: full
# style: no regex: the parser is built from str.partition (the first match of each label wins);
# style: each step of the history is wrapped in <step> … </step> tags.
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
    lines = []
    for tool in tools:
        lines.append(tool.name + " - " + tool.description)
    return "\n".join(lines)


def execute_tool(tools: list[Tool], action: str, action_input: str) -> ToolResult:
    """TODO 1.3 — run the tool named `action` on `action_input`; never raise."""
    found = [tool for tool in tools if tool.name == action]
    if not found:
        return ToolResult(False, "unknown tool: " + action)
    try:
        return ToolResult(True, str(found[0].func(action_input)))
    except Exception as error:
        return ToolResult(False, "tool error: " + str(error))


def build_react_prompt(user_input: str, tools: list[Tool], steps: list[AgentStep]) -> str:
    """TODO 2.1 — the whole prompt: instructions, the tool list, every step so far, the question."""
    prompt = "<instructions>\n"
    prompt += "Answer the question. Tools:\n" + get_tools_description(tools) + "\n"
    prompt += "Reply in this format:\n"
    prompt += "Thought: your reasoning\nAction: a tool name\nAction Input: the tool's input\n"
    prompt += "The Observation (the tool's result) will be given to you. At the end:\n"
    prompt += "Thought: I now know the final answer\nFinal Answer: the answer\n"
    prompt += "</instructions>\n"
    prompt += "<question>" + user_input + "</question>\n"
    for step in steps:
        prompt += "<step>\n"
        prompt += "Thought: " + step.thought + "\n"
        prompt += "Action: " + step.action + "\n"
        prompt += "Action Input: " + step.action_input + "\n"
        prompt += "Observation: " + step.observation + "\n"
        prompt += "</step>\n"
    return prompt


def value_after(text: str, label: str) -> str:
    """The rest of the line after the first `label`, or ''."""
    _, found, rest = text.partition(label)
    if not found:
        return ""
    line, _, _ = rest.partition("\n")
    return line.strip()


def parse_react_response(response: str) -> tuple[str, str, str]:
    """TODO 3.1 — split a reply into (thought, action, action_input)."""
    head, request, rest = response.partition("Action Input:")
    if request:  # the reply ends with that line: what follows is made up
        response = head + request + rest.partition("\n")[0]
    thought = value_after(response, "Thought:")
    _, final, answer = response.partition("Final Answer:")
    if final:
        return thought, "", answer.strip()
    return thought, value_after(response, "Action:"), value_after(response, "Action Input:")


async def react_agent(user_input: str, tools: list[Tool], max_steps: int = 10) -> str:
    """TODO 4.1 — the loop: prompt -> model -> parse -> answer, or run the tool and go again."""
    steps = []
    for _ in range(max_steps):
        response = await llm_call(build_react_prompt(user_input, tools, steps))
        thought, action, action_input = parse_react_response(response)
        if action == "":
            return action_input
        observation = execute_tool(tools, action, action_input).output
        steps.append(AgentStep(thought, action, action_input, observation))
    return "I gave up: no final answer in " + str(max_steps) + " steps."


if __name__ == "__main__":
    for question in ["What is 3 + 5 * 2?", "How is the weather in 上海 today?"]:
        print(question, "->", asyncio.run(react_agent(question, TOOLS)))
