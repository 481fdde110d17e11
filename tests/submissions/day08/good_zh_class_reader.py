# expect: full
# style: zh class reader (from a hunt)
"""Day 08 — robustness: a text agent that survives its model's mistakes.

The agent of day 06, with the openai client of day 07: the conversation goes to the model as chat
messages, and each reply's content is ReAct text (Thought / Action / Action Input, or Final Answer).
A model makes mistakes, and a robust loop recovers from each one instead of crashing or lying:

    a reply that follows no format     -> tell the model the format again, and ask again
    a tool name that does not exist    -> an Observation that lists the real tools
    a tool that fails (a city unknown) -> the error as the Observation: the model says so honestly
    an Observation the model made up   -> cut the reply where the model should have stopped

Plus a new tool, get_current_time, whose clock can be swapped for a fake one in tests.

Fill in the five TODOs, then run `python validate.py day08`; run this file to watch your agent.
"""
from __future__ import annotations

import ast
import re
import time
from dataclasses import dataclass
from datetime import datetime, timedelta, timezone
from typing import Callable

from mock_llm.http import openai_client

client = openai_client("day08")
MODEL = "mock-react-1"


@dataclass
class Tool:
    name: str
    description: str  # what the model reads to decide when and how to use the tool
    func: Callable[[str], str]  # takes the Action Input text, returns the result text


# ---------------------------------------------------------------- given: three tools

WEATHER = {
    "北京": "晴，气温 25°C，湿度 40%",
    "上海": "多云，气温 28°C，湿度 65%",
    "广州": "雷阵雨，气温 32°C，湿度 80%",
    "深圳": "晴转多云，气温 30°C，湿度 70%",
}


def get_weather(city: str) -> str:
    city = city.strip().strip("\"'“”")
    if city not in WEATHER:
        raise LookupError(f"no weather data for {city}")
    return WEATHER[city]


def calculate(expression: str) -> str:
    """Arithmetic only: walks the syntax tree instead of calling eval(), which would run any code."""
    operators = {ast.Add: lambda a, b: a + b, ast.Sub: lambda a, b: a - b,
                 ast.Mult: lambda a, b: a * b, ast.Div: lambda a, b: a / b}

    def value(node: ast.AST) -> float:
        if isinstance(node, ast.Constant) and type(node.value) in (int, float):
            return node.value
        if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.USub):
            return -value(node.operand)
        if isinstance(node, ast.BinOp) and type(node.op) in operators:
            return operators[type(node.op)](value(node.left), value(node.right))
        raise ValueError(f"only + - * / on numbers, not {ast.unparse(node)!r}")

    result = value(ast.parse(expression.strip(), mode="eval").body)
    return str(int(result) if float(result).is_integer() else result)


KNOWLEDGE = {
    "python": "Python 是一门解释型的高级编程语言，由 Guido van Rossum 在 1991 年首次发布。",
    "agent": "AI Agent 是能感知环境、自己决定下一步并去执行的系统：模型负责决定，代码负责行动。",
    "react": "ReAct 是一种 Agent 范式：模型交替进行推理（Reasoning）和行动（Acting），每次行动的结果都交回给它。",
}


def search_knowledge(query: str) -> str:
    for key, text in KNOWLEDGE.items():
        if key in query.strip().lower():
            return text
    return f"nothing found for {query.strip()!r}"


# ---------------------------------------------------------------- given: the new tool's clock

BEIJING = timezone(timedelta(hours=8))  # China has one time zone, UTC+8, and no summer time


class TimeTool:
    """The get_current_time tool. Its clock is injected: time.time by default, any function that
    returns seconds since the epoch in a test (the checks give it a clock of their own)."""

    def __init__(self, clock: Callable[[], float] = time.time):
        self.clock = clock

    def __call__(self, _input: str = "") -> str:
        return current_time(self.clock)


TOOLS = [
    Tool("get_weather", "Today's weather in a city. Input: the city name, such as 北京.", get_weather),
    Tool("calculate", "Evaluates an arithmetic expression such as 2 + 3 * 4. Input: the expression.", calculate),
    Tool("search_knowledge", "Searches a small knowledge base (Python, agents, ReAct). Input: a keyword.",
         search_knowledge),
    Tool("get_current_time", "The current date and time in Beijing. Input: now.", TimeTool()),
]


# ---------------------------------------------------------------- given: what the model is told

def build_system_prompt(tools: list[Tool]) -> str:
    listing = "\n".join(f"- {tool.name}: {tool.description}" for tool in tools)
    return ("Answer the user's question. You can use these tools:\n"
            f"{listing}\n\n"
            "Reply in one of two forms. To use a tool:\n"
            "Thought: what to do next\n"
            "Action: the tool's name, exactly as listed above\n"
            "Action Input: the tool's input, on one line\n"
            "Then stop. The tool's result comes back to you as 'Observation: ...'; never write it yourself.\n"
            "When you know the answer:\n"
            "Thought: I now know the final answer\n"
            "Final Answer: the answer to the question\n")


FORMAT_REMINDER = ("Your last reply did not follow the format. To use a tool, reply with Thought, Action "
                   "and Action Input lines; to answer, reply with Thought and Final Answer lines.")


# ---------------------------------------------------------------- your part: five TODOs

LABEL = re.compile(r"^\s*(Thought|Action Input|Action|Final Answer|Observation)\s*[:：]\s?(.*)$")


def execute_tool(tools: list[Tool], action: str, action_input: str) -> str:
    tool = next((t for t in tools if t.name == action), None)
    if tool is None:
        names = "、".join(t.name for t in tools)
        return f"错误：没有名为「{action}」的工具。可用的工具有：{names}。"
    try:
        output = tool.func(action_input)
    except Exception as exc:
        return f"错误：工具 {action} 执行出错：{exc}"
    return output if isinstance(output, str) else str(output)


def current_time(clock: Callable[[], float]) -> str:
    moment = datetime.fromtimestamp(clock()).astimezone(BEIJING)
    weekday = ["星期一", "星期二", "星期三", "星期四", "星期五", "星期六", "星期日"][moment.weekday()]
    return f"{moment:%Y-%m-%d %H:%M}（{weekday}，北京时间）"


def cut_reply(reply: str) -> str:
    kept: list[str] = []
    for line in reply.split("\n"):
        match = LABEL.match(line)
        label = match.group(1) if match else None
        if label == "Observation":
            break
        kept.append(line)
        if label == "Action Input":
            break
    else:
        return reply
    return "\n".join(kept).rstrip()


class ReplyReader:
    """Reads one reply line by line; a label's text runs on until the next label."""

    def __init__(self, reply: str):
        self.fields: dict[str, list[str]] = {}
        current = None
        for line in reply.splitlines():
            match = LABEL.match(line)
            if match:
                current = match.group(1)
                if current in self.fields:  # only the first of each label counts
                    current = "_ignored"
                self.fields.setdefault(current, []).append(match.group(2))
            elif current is not None:
                self.fields[current].append(line)

    def get(self, label: str) -> str | None:
        if label not in self.fields:
            return None
        return "\n".join(self.fields[label]).strip()


def parse_reply(reply: str) -> tuple[str, str, str] | None:
    reader = ReplyReader(reply)
    thought = (reader.get("Thought") or "").split("\n")[0].strip()
    answer = reader.get("Final Answer")
    if answer is not None:
        return (thought, "", answer)
    action, action_input = reader.get("Action"), reader.get("Action Input")
    if not action or action_input is None:
        return None
    return (thought, action.split("\n")[0].strip(), action_input.split("\n")[0].strip())


class Agent:
    def __init__(self, tools: list[Tool], max_steps: int):
        self.tools = tools
        self.max_steps = max_steps
        self.messages: list[dict] = []

    def say(self, role: str, content: str) -> None:
        self.messages.append({"role": role, "content": content})

    def run(self, question: str) -> str:
        self.say("system", build_system_prompt(self.tools))
        self.say("user", question)
        steps_left = self.max_steps
        while steps_left > 0:
            steps_left -= 1
            completion = client.chat.completions.create(model=MODEL, messages=self.messages,
                                                        stop=["\nObservation:"])
            reply = cut_reply(completion.choices[0].message.content or "")
            self.say("assistant", reply)
            parsed = parse_reply(reply)
            if parsed is None:
                self.say("user", FORMAT_REMINDER)
                continue
            thought, action, text = parsed
            if action == "":
                return text
            self.say("user", "Observation: " + execute_tool(self.tools, action, text))
        return f"抱歉，{self.max_steps} 轮之后仍没有得到最终答案。"


def run_agent(question: str, tools: list[Tool], max_steps: int = 8) -> str:
    return Agent(tools, max_steps).run(question)


if __name__ == "__main__":
    print(run_agent("现在几点了？", TOOLS))
