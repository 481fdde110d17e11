# expect: full
# style: cut_reply with two re.search calls over the whole reply (MULTILINE), whichever label comes first;
# style: the history before the question under "Step n" headings, blank lines between steps; a while loop with a counter
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

_OBS_LINE = re.compile(r"^[ \t>*#-]*observation[ \t*]*[:：]", re.IGNORECASE | re.MULTILINE)

_INPUT_LINE = re.compile(r"^[ \t>*#-]*action[ _]?input[ \t*]*[:：].*$", re.IGNORECASE | re.MULTILINE)

FORMAT = """Answer the user's question. You may use a tool by writing exactly:
Thought: why you need it
Action: the tool's name
Action Input: what to give it
Then STOP. The system runs the tool and adds "Observation: <result>" for you.
Repeat as needed, and end with:
Thought: I now know the final answer
Final Answer: the answer"""



def build_scratchpad(steps: list[Step]) -> str:
    blocks = []
    for number, step in enumerate(steps, start=1):
        blocks.append(f"Step {number}\n{step.reply.rstrip()}\nObservation: {step.observation}")
    return "\n\n".join(blocks)


def build_react_prompt(question: str, tools: list[Tool], steps: list[Step]) -> str:
    parts = [FORMAT, "Tools:\n" + describe_tools(tools)]
    pad = build_scratchpad(steps)
    if pad:
        parts.append("What you have done so far:\n\n" + pad)
    parts.append(f"Question: {question}")
    return "\n\n".join(parts) + "\n"


def cut_reply(reply: str) -> str:
    observation = _OBS_LINE.search(reply)
    request = _INPUT_LINE.search(reply)
    if observation and (request is None or observation.start() < request.start()):
        return reply[:observation.start()].rstrip()
    if request:
        return reply[:request.end()]
    return reply


async def react_agent(question: str, tools: list[Tool], max_steps: int = 8) -> str:
    steps: list[Step] = []
    calls = 0
    while calls < max_steps:
        calls += 1
        prompt = build_react_prompt(question, tools, steps)
        reply = cut_reply(await llm_call(prompt))
        _, action, action_input = parse_react_response(reply)
        if action == "":
            return action_input
        steps.append(Step(reply=reply, observation=execute_tool(tools, action, action_input)))
    return f"No final answer after {max_steps} model calls; giving up."


if __name__ == "__main__":
    for question in ["What is 3 + 5 * 2?", "Is today a good day for a run in 北京?",
                     "What is the temperature in 武汉 today, in degrees Fahrenheit?"]:
        print(question, "->", asyncio.run(react_agent(question, TOOLS)))
