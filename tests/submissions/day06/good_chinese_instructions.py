# expect: full
# style: Chinese instructions with the labels kept in English; full-width colons everywhere in the
# style: prompt ("Action：Weather"), each step under a "第 N 步：" heading; the parser accepts
# style: either colon, and the fallback message is Chinese.
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
    return "\n".join(f"{index}. {tool.name}：{tool.description}" for index, tool in enumerate(tools, 1))


def execute_tool(tools: list[Tool], action: str, action_input: str) -> ToolResult:
    """TODO 1.3 — run the tool named `action` on `action_input`; never raise."""
    for tool in tools:
        if tool.name == action:
            try:
                return ToolResult(True, str(tool.func(action_input)))
            except Exception as error:
                return ToolResult(False, f"工具 {action} 出错：{error}")
    names = "、".join(tool.name for tool in tools)
    return ToolResult(False, f"没有叫 {action} 的工具，可用的工具有：{names}")


def build_react_prompt(user_input: str, tools: list[Tool], steps: list[AgentStep]) -> str:
    """TODO 2.1 — the whole prompt: instructions, the tool list, every step so far, the question."""
    history = []
    for number, step in enumerate(steps, start=1):
        history += [f"第 {number} 步：",
                    f"Thought：{step.thought}",
                    f"Action：{step.action}",
                    f"Action Input：{step.action_input}",
                    f"Observation：{step.observation}"]
    return "\n".join([
        "你是一个能调用工具的助手，请一步一步地回答用户的问题。",
        "",
        "可以使用的工具：",
        get_tools_description(tools),
        "",
        "每次只回复一步，格式如下（标签保持英文）：",
        "Thought：你对下一步的思考",
        "Action：要调用的工具名",
        "Action Input：交给工具的输入",
        "写完 Action Input 就停下，Observation（工具的结果）由系统补上，不要自己写。",
        "已经知道答案时这样回复：",
        "Thought：我已经知道最终答案了",
        "Final Answer：最终答案",
        "",
        f"用户的问题：{user_input}",
        "",
        "已经完成的步骤：" if steps else "还没有执行任何步骤。",
        *history,
    ])


def parse_react_response(response: str) -> tuple[str, str, str]:
    """TODO 3.1 — split a reply into (thought, action, action_input)."""
    def find(label: str, flags: int = 0):
        return re.search(rf"^{label}\s*[:：]\s*(.*)$", response, re.MULTILINE | flags)

    request = find("Action Input")
    if request:  # the reply ends there: what follows is made up
        response = response[:request.end()]
    thought = find("Thought")
    thought = thought.group(1).strip() if thought else ""
    final = find("Final Answer", re.DOTALL)
    if final:
        return thought, "", final.group(1).strip()
    action, action_input = find("Action"), find("Action Input")
    return (thought, action.group(1).strip() if action else "",
            action_input.group(1).strip() if action_input else "")


async def react_agent(user_input: str, tools: list[Tool], max_steps: int = 10) -> str:
    """TODO 4.1 — the loop: prompt -> model -> parse -> answer, or run the tool and go again."""
    steps: list[AgentStep] = []
    for _ in range(max_steps):
        reply = await llm_call(build_react_prompt(user_input, tools, steps))
        thought, action, action_input = parse_react_response(reply)
        if action == "":
            return action_input
        result = execute_tool(tools, action, action_input)
        steps.append(AgentStep(thought, action, action_input, result.output))
    return f"已经用完 {max_steps} 步，还是没有得到最终答案。"


if __name__ == "__main__":
    for question in ["What is 3 + 5 * 2?", "How is the weather in 上海 today?"]:
        print(question, "->", asyncio.run(react_agent(question, TOOLS)))
