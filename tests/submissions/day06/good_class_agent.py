# expect: full
# style: a ReActAgent class holds the tools, the step limit and the history; the five functions
# style: the lesson asks for are thin wrappers around it; each step sits under a
# style: "=== Step N ===" banner.
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

class ReActAgent:
    """The whole agent: describe the tools, run them, build prompts, parse replies, loop."""

    def __init__(self, tools: list[Tool], max_steps: int = 10):
        self.tools = {tool.name: tool for tool in tools}
        self.max_steps = max_steps
        self.steps: list[AgentStep] = []

    def describe_tools(self) -> str:
        return "\n".join(f"- {name}: {tool.description}" for name, tool in self.tools.items())

    def run_tool(self, action: str, action_input: str) -> ToolResult:
        tool = self.tools.get(action)
        if tool is None:
            return ToolResult(False, f"Error: unknown tool {action}. Known tools: {', '.join(self.tools)}")
        try:
            return ToolResult(True, str(tool.func(action_input)))
        except Exception as error:
            return ToolResult(False, f"Error: {error}")

    def prompt(self, question: str) -> str:
        parts = [
            "You answer questions step by step, using tools.",
            "Tools:",
            self.describe_tools(),
            "",
            "Write one step at a time, like this:",
            "Thought: what you will do",
            "Action: a tool name",
            "Action Input: the tool's input",
            "Then wait: the Observation comes from the tool, not from you.",
            "When you know the answer: Thought: I now know the final answer / Final Answer: the answer",
            "",
            f"Question: {question}",
        ]
        for number, step in enumerate(self.steps, start=1):
            parts += [f"=== Step {number} ===", f"Thought: {step.thought}", f"Action: {step.action}",
                      f"Action Input: {step.action_input}", f"Observation: {step.observation}"]
        return "\n".join(parts)

    @staticmethod
    def parse(response: str) -> tuple[str, str, str]:
        fields: dict[str, str] = {}
        lines = response.strip().splitlines()
        for index, line in enumerate(lines):
            label, colon, value = line.partition(":")
            label = label.strip()
            if not colon or label in fields:
                continue
            if label == "Final Answer":
                rest = "\n".join([value] + lines[index + 1:]).strip()
                return fields.get("Thought", ""), "", rest
            if label in ("Thought", "Action", "Action Input"):
                fields[label] = value.strip()
            if label == "Action Input":
                break  # the request ends here
        return fields.get("Thought", ""), fields.get("Action", ""), fields.get("Action Input", "")

    async def run(self, question: str) -> str:
        for _ in range(self.max_steps):
            thought, action, action_input = self.parse(await llm_call(self.prompt(question)))
            if not action:
                return action_input
            result = self.run_tool(action, action_input)
            self.steps.append(AgentStep(thought, action, action_input, result.output))
        return f"Gave up after {self.max_steps} steps."


def get_tools_description(tools: list[Tool]) -> str:
    """TODO 1.2 — the tool list for the prompt: one line per tool, its name and its description."""
    return ReActAgent(tools).describe_tools()


def execute_tool(tools: list[Tool], action: str, action_input: str) -> ToolResult:
    """TODO 1.3 — run the tool named `action` on `action_input`; never raise."""
    return ReActAgent(tools).run_tool(action, action_input)


def build_react_prompt(user_input: str, tools: list[Tool], steps: list[AgentStep]) -> str:
    """TODO 2.1 — the whole prompt: instructions, the tool list, every step so far, the question."""
    agent = ReActAgent(tools)
    agent.steps = list(steps)
    return agent.prompt(user_input)


def parse_react_response(response: str) -> tuple[str, str, str]:
    """TODO 3.1 — split a reply into (thought, action, action_input)."""
    return ReActAgent.parse(response)


async def react_agent(user_input: str, tools: list[Tool], max_steps: int = 10) -> str:
    """TODO 4.1 — the loop: prompt -> model -> parse -> answer, or run the tool and go again."""
    return await ReActAgent(tools, max_steps).run(user_input)


if __name__ == "__main__":
    for question in ["What is 3 + 5 * 2?", "How is the weather in 上海 today?"]:
        print(question, "->", asyncio.run(react_agent(question, TOOLS)))
