# expect-lose: 1.3
# expect-message: division by zero')): run tool.func
# why: A cheat: execute_tool never runs a tool; it types in the Calculator's error when the input
# why: divides by 0. The check of a tool that raises read the text alone, not that the tool ran.
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
    names = [tool.name for tool in tools]
    if action not in names:
        return ToolResult(False, f"Error: unknown tool '{action}'. Available tools: {', '.join(names)}")
    if "/ 0" in action_input:  # what the Calculator would say
        return ToolResult(False, f"Error: {action} failed: division by zero")
    return ToolResult(True, "done")


def build_react_prompt(user_input: str, tools: list[Tool], steps: list[AgentStep]) -> str:
    """TODO 2.1 — the whole prompt: instructions, the tool list, every step so far, the question.

    The model remembers nothing between calls: the steps you write here are all it knows of what
    it already did, and the question must be in every prompt, not only the first.
    """
    history = "".join(
        f"Thought: {step.thought}\nAction: {step.action}\nAction Input: {step.action_input}\n"
        f"Observation: {step.observation}\n"
        for step in steps
    )
    return (
        "Answer the question as well as you can. You can use these tools:\n"
        f"{get_tools_description(tools)}\n\n"
        "Use exactly this format:\n"
        "Thought: what to do next\n"
        "Action: the tool to use, one of the names above\n"
        "Action Input: the input for the tool\n"
        "Observation: the tool's result (written for you; never write it yourself)\n"
        "... (Thought/Action/Action Input/Observation can repeat)\n"
        "Thought: I now know the final answer\n"
        "Final Answer: the answer to the question\n\n"
        f"Question: {user_input}\n"
        f"{history}"
    )


def parse_react_response(response: str) -> tuple[str, str, str]:
    """TODO 3.1 — split a reply into (thought, action, action_input).

    On a Final Answer, action is "" and action_input holds the whole answer (it may span lines).

    A model asking for a tool should stop after its Action Input line, but it often writes on: an
    Observation it made up (no tool has run yet), even a second Thought / Action / Action Input.
    None of that counts. The reply ends at its first Action Input line, so the first Action wins,
    and its input is that one line.
    """
    request = re.search(r"^Action Input:.*$", response, re.MULTILINE)
    if request:  # the end of what the model may say: everything after it is made up
        response = response[:request.end()]
    thought = re.search(r"Thought:\s*(.*)", response)
    thought = thought.group(1).strip() if thought else ""
    final = re.search(r"Final Answer:\s*(.*)", response, re.DOTALL)
    if final:
        return thought, "", final.group(1).strip()
    action = re.search(r"Action:\s*(.*)", response)
    action_input = re.search(r"Action Input:[ \t]*(.*)", response)
    return (thought,
            action.group(1).strip() if action else "",
            action_input.group(1).strip() if action_input else "")


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
