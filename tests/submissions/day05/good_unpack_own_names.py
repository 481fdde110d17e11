# expect: full
# style: the parser's three values unpacked into names of the learner's own, in the parser's order:
# style: the places count, not the names.
"""Day 05 — the prompt and the scratchpad.

The model remembers nothing between calls: each prompt must show it the tools, the question, and
every step so far. Those steps are the scratchpad, and they are written in the model's own words:
each of its replies, then the real Observation your code got from the tool.

    Thought: I need to calculate 3 + 5 * 2.     <- the model's reply, cut where it should stop
    Action: Calculator
    Action Input: 3 + 5 * 2
    Observation: 13                             <- your code, after running the tool

A model without a stop sequence writes on after its Action Input: an Observation it made up, even
a Final Answer resting on it. Cut the reply after its Action Input line, before anything reads it
or keeps it.

Fill in the four TODOs in your copy (`workspace/day05.py`, made by the first `python validate.py
day05`), then grade it with `python validate.py day05`. Run the file itself to watch your agent
work: `python workspace/day05.py`.
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
class Step:
    """One step of the scratchpad: the model's reply, cut where it should have stopped (Thought /
    Action / Action Input), and the real result of the tool it asked for."""
    reply: str
    observation: str


# ---------------------------------------------------------------- given: two tools

def calculator(expression: str) -> str:
    """Arithmetic only: walks the syntax tree instead of calling eval()."""
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
    "北京": "rain, 25°C, humidity 80%",
    "上海": "cloudy, 28°C, humidity 65%",
    "广州": "thunderstorms, 32°C, humidity 80%",
    "武汉": "hot and humid, 35°C",
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


# ---------------------------------------------------------------- given: the model, the parser, the tools

async def llm_call(prompt: str) -> str:
    """Send the prompt to the model, get its reply. Here: the kit's offline mock model."""
    return mock_llm.reply("day05", prompt)


def describe_tools(tools: list[Tool]) -> str:
    return "\n".join(f"- {tool.name}: {tool.description}" for tool in tools)


def parse_react_response(reply: str) -> tuple[str, str, str]:
    """(thought, action, action_input); action is "" for a Final Answer, which is then in action_input.

    Article 004's parser: it looks for a Final Answer first, and trusts the reply to end where the
    model should have stopped. Most frameworks' parsers do the same and count on the API's stop
    sequence to cut the reply. Here cut_reply (TODO 2.1) is that stop sequence.
    """
    thought = re.search(r"Thought:\s*(.*)", reply)
    thought = thought.group(1).strip() if thought else ""
    final = re.search(r"Final Answer:\s*(.*)", reply, re.DOTALL)
    if final:
        return thought, "", final.group(1).strip()
    action = re.search(r"Action:\s*(.*)", reply)
    action_input = re.search(r"Action Input:\s*(.*)", reply)
    return (thought, action.group(1).strip() if action else "",
            action_input.group(1).strip() if action_input else "")


def execute_tool(tools: list[Tool], action: str, action_input: str) -> str:
    """The tool's result, or an error text for the model; never raises."""
    for tool in tools:
        if tool.name == action:
            try:
                return str(tool.func(action_input))
            except Exception as error:
                return f"Error: {action} failed: {error}"
    return f"Error: unknown tool {action!r}. The tools are: {', '.join(t.name for t in tools)}"


# ---------------------------------------------------------------- your part: four TODOs

def build_scratchpad(steps: list[Step]) -> str:
    """TODO 1.1 — every step so far, oldest first: each step's reply, then its Observation.

    Each Observation starts a line of its own, right after the reply's Action Input line, whether
    or not the reply ends with a newline. No steps: "".
    """
    return "".join(f"{step.reply.strip()}\nObservation: {step.observation}\n" for step in steps)


def build_react_prompt(question: str, tools: list[Tool], steps: list[Step]) -> str:
    """TODO 1.2 — the whole prompt, rebuilt every round: the format, the tools, the question, the
    scratchpad. The model sees nothing else: leave one out and it cannot do its part."""
    return (
        "Answer the question as well as you can. You can use these tools:\n"
        f"{describe_tools(tools)}\n\n"
        "Use exactly this format:\n"
        "Thought: what to do next\n"
        "Action: the tool to use, one of the names above\n"
        "Action Input: the input for the tool\n"
        "Observation: the tool's result (written for you: stop after Action Input)\n"
        "... (Thought/Action/Action Input/Observation can repeat)\n"
        "Thought: I now know the final answer\n"
        "Final Answer: the answer to the question\n\n"
        f"Question: {question}\n"
        f"{build_scratchpad(steps)}"
    )


def cut_reply(reply: str) -> str:
    """TODO 2.1 — the reply as far as the model may speak: up to its first Action Input line.

    The model should stop after that line; what it writes on is made up before any tool ran: an
    Observation, even a Final Answer, with or without an Observation before it. Keep the reply up
    to its first Action Input line, included. A line that starts with "Observation:" (any case and
    spacing, Markdown or a full-width colon) is never kept, nor anything after it. A reply with
    neither comes back whole.
    """
    lines = reply.splitlines()
    for number, line in enumerate(lines):
        if re.match(r"^[\s*>#-]*observation[\s*]*[:：]", line, re.IGNORECASE):
            return "\n".join(lines[:number]).rstrip()
        if re.match(r"^[\s*>#-]*action[ _]?input[\s*]*[:：]", line, re.IGNORECASE):
            return "\n".join(lines[:number + 1])
    return reply


async def react_agent(question: str, tools: list[Tool], max_steps: int = 8) -> str:
    """TODO 3.1 — the loop: prompt → model → cut → parse → answer, or run the tool, keep the step.

    Keep the cut reply in the Step, with the tool's real output as its observation. At most
    max_steps model calls; if none gave a Final Answer, return a message that says so.
    """
    steps: list[Step] = []
    for _ in range(max_steps):
        reply = cut_reply(await llm_call(build_react_prompt(question, tools, steps)))
        reasoning, tool_name, tool_text = parse_react_response(reply)
        if tool_name == "":
            return tool_text
        steps.append(Step(reply, execute_tool(tools, tool_name, tool_text)))
    return f"Stopped: no final answer after {max_steps} steps."


if __name__ == "__main__":
    for question in ["What is 3 + 5 * 2?", "Is today a good day for a run in 北京?",
                     "What is the temperature in 武汉 today, in degrees Fahrenheit?"]:
        print(question, "->", asyncio.run(react_agent(question, TOOLS)))
