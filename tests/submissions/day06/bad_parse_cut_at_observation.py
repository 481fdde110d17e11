# expect-lose: 3.1
# expect-keep: 1.2 1.3 2.1 4.1
# expect-message: with no Observation line in between
# why: The parser cuts the reply at its first "Observation:", as a stop sequence would, not after its
# why: first Action Input line: a model that goes straight from its request to a made-up Final Answer
# why: has no Observation line, so the made-up answer is read and the tool never runs.
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
    return "\n".join(f"* {tool.name}: {tool.description}" for tool in tools)


def execute_tool(tools: list[Tool], action: str, action_input: str) -> ToolResult:
    """TODO 1.3 — run the tool named `action` on `action_input`; never raise."""
    by_name = {tool.name: tool.func for tool in tools}
    if action not in by_name:
        return ToolResult(False, f"Unknown tool {action!r}; the tools are {sorted(by_name)}")
    try:
        return ToolResult(True, str(by_name[action](action_input)))
    except Exception as error:
        return ToolResult(False, f"{action} raised {type(error).__name__}: {error}")


def build_react_prompt(user_input: str, tools: list[Tool], steps: list[AgentStep]) -> str:
    """TODO 2.1 — the whole prompt: instructions, the tool list, every step so far, the question."""
    text = (f"You can use these tools:\n{get_tools_description(tools)}\n\n"
            "Format:\nThought: ...\nAction: <tool>\nAction Input: <input>\nObservation: <result>\n"
            "(Thought/Action/Action Input/Observation may repeat)\n"
            "Thought: I now know the final answer\nFinal Answer: ...\n\n"
            f"Question: {user_input}\n")
    for number, step in enumerate(steps, start=1):
        text += (f"Step {number}:\nThought: {step.thought}\nAction: {step.action}\n"
                 f"Action Input: {step.action_input}\nObservation: {step.observation}\n")
    return text


STOP = "Observation:"  # what an API's stop sequence would cut at: the model may not write it


def parse_react_response(response: str) -> tuple[str, str, str]:
    """TODO 3.1 — split a reply into (thought, action, action_input)."""
    response = response.split(STOP, 1)[0]
    thought = re.search(r"Thought:(.*)", response)
    thought = thought.group(1).strip() if thought else ""
    final = re.search(r"Final Answer:(.*)", response, re.DOTALL)
    if final:
        return thought, "", final.group(1).strip()
    action = re.search(r"Action:(.*)", response)
    action_input = re.search(r"Action Input:(.*)", response, re.DOTALL)
    return (thought, action.group(1).strip() if action else "",
            action_input.group(1).strip() if action_input else "")


async def react_agent(user_input: str, tools: list[Tool], max_steps: int = 10) -> str:
    """TODO 4.1 — the loop: prompt -> model -> parse -> answer, or run the tool and go again."""
    steps: list[AgentStep] = []
    for _ in range(max_steps):
        thought, action, action_input = parse_react_response(
            await llm_call(build_react_prompt(user_input, tools, steps)))
        if not action:
            return action_input
        steps.append(AgentStep(thought, action, action_input,
                               execute_tool(tools, action, action_input).output))
    return f"Reached max_steps={max_steps} without a final answer."


if __name__ == "__main__":
    for question in ["What is 3 + 5 * 2?", "How is the weather in 上海 today?"]:
        print(question, "->", asyncio.run(react_agent(question, TOOLS)))
