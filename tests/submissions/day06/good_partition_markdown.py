# expect: full
# style: str.find/partition parser (no regex), Markdown history ("### Step n" + "- **Action:** …" bullets),
# style: a prompt that ends with "Thought:" as LangChain's does, execute_tool with next(), numbered tool list
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

INSTRUCTIONS = """You are a careful assistant that answers with the help of tools.

Reply in this format:
Thought: what you will do next
Action: the name of one tool
Action Input: the text to give the tool
Observation: (the tool's result: the system writes this line, never you)

When you know the answer, reply instead:
Thought: I now know the final answer
Final Answer: the answer"""

def _history(steps: list[AgentStep]) -> str:
    blocks = []
    for number, step in enumerate(steps, start=1):
        blocks.append(f"### Step {number}\n- **Thought:** {step.thought}\n- **Action:** {step.action}\n"
                      f"- **Action Input:** {step.action_input}\n- **Observation:** {step.observation}")
    return "\n\n".join(blocks)

def _line_value(text: str, label: str) -> str | None:
    for line in text.splitlines():
        head, colon, rest = line.partition(":")
        if colon and head.strip() == label:
            return rest.strip()
    return None

async def _ask(user_input: str, tools: list[Tool], steps: list[AgentStep]) -> tuple[str, str, str]:
    return parse_react_response(await llm_call(build_react_prompt(user_input, tools, steps)))



def get_tools_description(tools: list[Tool]) -> str:
    return "\n".join(f"{number}. {tool.name}: {tool.description}" for number, tool in enumerate(tools, start=1))


def execute_tool(tools: list[Tool], action: str, action_input: str) -> ToolResult:
    tool = next((t for t in tools if t.name == action), None)
    if tool is None:
        names = ", ".join(t.name for t in tools)
        return ToolResult(False, f"Error: there is no tool called {action!r}. Choose from: {names}")
    try:
        output = tool.func(action_input)
    except Exception as error:
        return ToolResult(False, f"Error: {action} raised {type(error).__name__}: {error}")
    return ToolResult(True, str(output))


def build_react_prompt(user_input: str, tools: list[Tool], steps: list[AgentStep]) -> str:
    prompt = f"{INSTRUCTIONS}\n\nTools:\n{get_tools_description(tools)}\n\nQuestion: {user_input}\n"
    if steps:
        prompt += f"\n## Steps so far\n\n{_history(steps)}\n"
    return prompt + "\nThought:"


def parse_react_response(response: str) -> tuple[str, str, str]:
    at = response.find("\nAction Input:")
    if response.startswith("Action Input:"):
        at = 0
    if at != -1:
        end = response.find("\n", at + 1)
        if end != -1:
            response = response[:end]
    thought = _line_value(response, "Thought") or ""
    marker = response.find("Final Answer:")
    if marker != -1:
        return thought, "", response[marker + len("Final Answer:"):].strip()
    return thought, _line_value(response, "Action") or "", _line_value(response, "Action Input") or ""


async def react_agent(user_input: str, tools: list[Tool], max_steps: int = 10) -> str:
    steps: list[AgentStep] = []
    for _ in range(max_steps):
        thought, action, action_input = await _ask(user_input, tools, steps)
        if action == "":
            return action_input
        result = execute_tool(tools, action, action_input)
        steps.append(AgentStep(thought=thought, action=action, action_input=action_input, observation=result.output))
    return "I could not reach a final answer within the step limit."


if __name__ == "__main__":
    for question in ["What is 3 + 5 * 2?", "How is the weather in 上海 today?"]:
        print(question, "->", asyncio.run(react_agent(question, TOOLS)))
