# expect: full
# style: an unknown tool's error in the learner's own words: "there is no 'x' tool; use one of …".
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
    return "\n".join(f"- {tool.name}: {tool.description}" for tool in tools)


def execute_tool(tools: list[Tool], action: str, action_input: str) -> ToolResult:
    for tool in tools:
        if tool.name == action:
            try:
                return ToolResult(True, str(tool.func(action_input)))
            except Exception as error:
                return ToolResult(False, f"Error: {action} failed: {error}")
    names = ", ".join(tool.name for tool in tools)
    return ToolResult(False, f"Error: there is no {action!r} tool; use {names} instead.")


PROMPT = """Answer the following question as best you can. You have access to these tools:

{tools}

Use the following format:

Question: the input question you must answer
Thought: you should always think about what to do
Action: the action to take, one of [{tool_names}]
Action Input: the input to the action
Observation: the result of the action
... (this Thought/Action/Action Input/Observation can repeat N times)
Thought: I now know the final answer
Final Answer: the final answer to the original input question

Begin!

Question: {question}
{scratchpad}"""


def build_react_prompt(user_input: str, tools: list[Tool], steps: list[AgentStep]) -> str:
    scratchpad = ""
    for step in steps:
        scratchpad += (f"Thought: {step.thought}\n"
                       f"Action: {step.action}\n"
                       f"Action Input: {step.action_input}\n"
                       f"Observation: {step.observation}\n")
    return PROMPT.format(tools=get_tools_description(tools),
                         tool_names=", ".join(t.name for t in tools),
                         question=user_input,
                         scratchpad=scratchpad)


def parse_react_response(response: str) -> tuple[str, str, str]:
    cut = re.search(r"^.*Action Input:.*$", response, re.MULTILINE)
    if cut:
        response = response[:cut.end()]
    thought_match = re.search(r"Thought:\s*(.*)", response)
    thought = thought_match.group(1).strip() if thought_match else ""
    final = re.search(r"Final Answer:\s*(.*)", response, re.DOTALL)
    if final:
        return thought, "", final.group(1).strip()
    action = re.search(r"Action:\s*(.*)", response)
    action_input = re.search(r"Action Input:\s*(.*)", response)
    return (thought,
            action.group(1).strip() if action else "",
            action_input.group(1).strip() if action_input else "")


async def react_agent(user_input: str, tools: list[Tool], max_steps: int = 10) -> str:
    steps: list[AgentStep] = []
    for _ in range(max_steps):
        prompt = build_react_prompt(user_input, tools, steps)
        response = await llm_call(prompt)
        thought, action, action_input = parse_react_response(response)
        if action == "":
            return action_input
        result = execute_tool(tools, action, action_input)
        steps.append(AgentStep(thought, action, action_input, result.output))
    return f"No final answer after {max_steps} steps."


if __name__ == "__main__":
    for question in ["What is 3 + 5 * 2?", "How is the weather in 上海 today?"]:
        print(question, "->", asyncio.run(react_agent(question, TOOLS)))
