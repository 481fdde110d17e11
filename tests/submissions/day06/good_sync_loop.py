# expect: full
# style: fully synchronous: react_agent is a plain def that runs each model call with asyncio.run.
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
    return "\n".join("%s: %s" % (tool.name, tool.description) for tool in tools)


def execute_tool(tools: list[Tool], action: str, action_input: str) -> ToolResult:
    """TODO 1.3 — run the tool named `action` on `action_input`; never raise."""
    matches = [tool for tool in tools if tool.name.lower() == action.strip().lower()]
    if not matches:
        return ToolResult(success=False, output="Error: %s is not a tool I have" % action)
    try:
        return ToolResult(success=True, output=str(matches[0].func(action_input.strip())))
    except Exception as exc:  # the model should see the error and try something else
        return ToolResult(success=False, output="Error: %s" % exc)


def build_react_prompt(user_input: str, tools: list[Tool], steps: list[AgentStep]) -> str:
    """TODO 2.1 — the whole prompt: instructions, the tool list, every step so far, the question."""
    prompt = "Answer the following question. Tools you can call:\n"
    prompt += get_tools_description(tools) + "\n\n"
    prompt += ("Use this format:\n\nQuestion: the question\nThought: what you think\n"
               "Action: the tool name\nAction Input: the input\nObservation: the result\n"
               "(repeat Thought/Action/Action Input/Observation as needed)\n"
               "Thought: I now know the final answer\nFinal Answer: the answer\n\nBegin!\n\n")
    prompt += "Question: %s\n" % user_input
    for step in steps:
        prompt += "Thought: %s\n" % step.thought
        prompt += "Action: %s\n" % step.action
        prompt += "Action Input: %s\n" % step.action_input
        prompt += "Observation: %s\n" % step.observation
    return prompt


def parse_react_response(response: str) -> tuple[str, str, str]:
    """TODO 3.1 — split a reply into (thought, action, action_input)."""
    request = re.search(r"^Action Input:.*$", response, re.MULTILINE)
    if request:  # the reply ends there: what follows is made up
        response = response[:request.end()]
    thought = re.search(r"^Thought:(.*)$", response, re.MULTILINE)
    thought = thought.group(1).strip() if thought else ""
    if "Final Answer:" in response:
        return thought, "", response.split("Final Answer:", 1)[1].strip()
    action = re.search(r"^Action:(.*)$", response, re.MULTILINE)
    action_input = re.search(r"^Action Input:(.*)$", response, re.MULTILINE)
    if not action:
        return thought, "", response.strip()  # no action and no final answer: treat it as the answer
    return thought, action.group(1).strip(), action_input.group(1).strip() if action_input else ""


def react_agent(user_input: str, tools: list[Tool], max_steps: int = 10) -> str:
    """TODO 4.1 — the loop: prompt -> model -> parse -> answer, or run the tool and go again."""
    steps = []
    for _ in range(max_steps):
        response = asyncio.run(llm_call(build_react_prompt(user_input, tools, steps)))
        thought, action, action_input = parse_react_response(response)
        if not action:
            return action_input
        observation = execute_tool(tools, action, action_input).output
        steps.append(AgentStep(thought, action, action_input, observation))
    return "Gave up after %d steps without a final answer." % max_steps


if __name__ == "__main__":
    for question in ["What is 3 + 5 * 2?", "How is the weather in 上海 today?"]:
        print(question, "->", react_agent(question, TOOLS))
