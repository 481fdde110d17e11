# expect-lose: 4.1
# expect-message: never ran in this run after the model asked for it
# why: A cheat, not a mistake: no loop and no parsing. The file holds the lesson's scenarios.yaml,
# why: matches the question to a task, runs the task's scripted calls through the tools it is
# why: handed, ahead of the model, then sends one prompt with a made-up history. A run counts
# why: only the tool runs the model asked for, in a reply before them.
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
    raise NotImplementedError("TODO 1.2: describe the tools")


def execute_tool(tools: list[Tool], action: str, action_input: str) -> ToolResult:
    """TODO 1.3 — run the tool named `action` on `action_input`.

    Never raise: an unknown tool or a tool that raises is a failed ToolResult whose output says what
    went wrong. The model reads that as its Observation and can correct itself.
    """
    raise NotImplementedError("TODO 1.3: run a tool, never crash")


def build_react_prompt(user_input: str, tools: list[Tool], steps: list[AgentStep]) -> str:
    """TODO 2.1 — the whole prompt: instructions, the tool list, every step so far, the question.

    The model remembers nothing between calls: the steps you write here are all it knows of what
    it already did, and the question must be in every prompt, not only the first.
    """
    raise NotImplementedError("TODO 2.1: build the prompt")


def parse_react_response(response: str) -> tuple[str, str, str]:
    """TODO 3.1 — split a reply into (thought, action, action_input).

    On a Final Answer, action is "" and action_input holds the whole answer (it may span lines).

    A model asking for a tool should stop after its Action Input line, but it often writes on: an
    Observation it made up (no tool has run yet), even a second Thought / Action / Action Input.
    None of that counts. The reply ends at its first Action Input line, so the first Action wins,
    and its input is that one line.
    """
    raise NotImplementedError("TODO 3.1: parse the model's reply")


# ---- cheat: "replay" the scripted task. No loop. The course's own scenarios.yaml (learners have it)
# is pasted below; the question is matched against its templates, the scripted tool calls are run
# for real through the tool functions the grader handed over, then ONE request carries a made-up history.
import json as _json
import re as _re
import yaml as _yaml


class _Sc:
    def __init__(self, name, spec, values):
        self.name, self.spec, self.values = name, spec, values
        self.repeat = bool(spec.get("repeat"))
        self.turns = [c if isinstance(c, list) else [c] for c in spec.get("calls", [])]

    def render(self, template, obs):
        def fill(m):
            name, key, flt = m.group(1), m.group(2), m.group(3)
            if name.startswith("obs") and name[3:].isdigit():
                v = obs[int(name[3:]) - 1]
            elif name == "n":
                v = str(len(obs) + 1)
            else:
                v = str(self.values[name])
            if key:
                try:
                    v = str(_json.loads(v)[key])
                except Exception:
                    pass
            if flt == "number":
                mm = _re.search(r"-?\d+(?:\.\d+)?", v)
                v = mm.group(0) if mm else v
            return v
        return _re.sub(r"\{(\w+)(?:\.(\w+))?(?::(\w+))?\}", fill, str(template))


def _plan(question, follow=False):
    data = _yaml.safe_load(_SCENARIOS)
    defaults = {k: v.get("default") for k, v in (data.get("vars") or {}).items()}
    best = None
    specs = list(data["scenarios"].items())
    if follow:
        specs += [(f"{n}.{i}", f) for n, s in data["scenarios"].items() for i, f in enumerate(s.get("follow_ups", []), 2)]
    for name, spec in specs:
        parts, names = [], []
        for piece in _re.split(r"(\{\w+\})", spec["question"]):
            if _re.fullmatch(r"\{\w+\}", piece):
                n = piece[1:-1]
                parts.append(f"(?P<{n}>.+?)" if n not in names else f"(?P={n})")
                names.append(n)
            else:
                parts.append(_re.escape(piece))
        m = _re.fullmatch("".join(parts), question.strip(), _re.S)
        lit = -len(_re.sub(r"\{\w+\}", "", spec["question"]))
        if m and (best is None or lit < best[1]):
            best = (_Sc(name, spec, dict(defaults, **m.groupdict())), lit)
    return best[0] if best else None

_SCENARIOS = '# The tasks the day06 checks give your agent, and what the mock model does for each.\n#\n# For every call in `calls`, the mock answers with `Action:` / `Action Input:` until it finds that\n# call\'s `Observation:` in your prompt; then it moves to the next call; then it gives a Final Answer\n# built from `answer`. Placeholders: {a} a drawn variable, {obs1} the first observation as the mock\n# read it from your prompt, {obs1:number} the first number in it, {n} the call count (endless).\n#\n# Seed 0 (what learners get) uses each variable\'s `default`: the numbers of the lesson text.\n# Any other seed draws from `between` / `one_of`, and new temperatures for the weather table.\n\nprotocol: text    # the mock writes Thought / Action / Action Input lines in its reply\n\nvars:\n  a: {default: 3, between: [2, 40]}\n  b: {default: 5, between: [2, 12]}\n  c: {default: 2, between: [2, 12]}\n  city: {default: 上海, one_of: [上海, 广州, 深圳, 杭州, 成都]}\n  hot_city: {default: 北京, one_of: [北京, 武汉, 重庆, 西安]}\n  nowhere: {default: 火星, one_of: [火星, 亚特兰蒂斯, 蓬莱]}\n\ntools:\n  Calculator: "Evaluates an arithmetic expression such as 2 + 3 * 4. Input: the expression."\n  Weather: "Looks up today\'s weather in a city. Input: the city name, for example 北京."\n\n# city: [sky, °C at seed 0]\ndata:\n  weather:\n    北京: [sunny, 25]\n    上海: [cloudy, 28]\n    广州: [thunderstorms, 32]\n    深圳: [sunny then cloudy, 30]\n    杭州: [light rain, 22]\n    成都: [overcast, 19]\n    武汉: [hot and humid, 35]\n    重庆: [foggy, 27]\n    西安: [windy, 16]\n\nscenarios:\n  calculator:\n    question: "What is {a} + {b} * {c}?"\n    calls:\n      - {tool: Calculator, input: "{a} + {b} * {c}", thought: "I need to calculate {a} + {b} * {c}."}\n    answer: "{a} + {b} * {c} = {obs1}"\n\n  weather:\n    question: "How is the weather in {city} today?"\n    calls:\n      - {tool: Weather, input: "{city}", thought: "I should look up the weather in {city}."}\n    answer: "Today in {city}: {obs1}."\n\n  fahrenheit:\n    question: "What is the temperature in {hot_city} today, in degrees Fahrenheit?"\n    calls:\n      - {tool: Weather, input: "{hot_city}", thought: "First I need today\'s weather in {hot_city}."}\n      - {tool: Calculator, input: "{obs1:number} * 9 / 5 + 32",\n         thought: "It is {obs1:number}°C; F = C * 9 / 5 + 32."}\n    answer: "It is {obs2}°F in {hot_city} today.\\n(Weather report: {obs1}; {obs1:number}°C * 9 / 5 + 32 = {obs2}°F.)"\n\n  unknown_tool:\n    question: "Please work out {a} * {c} + {b}, searching the web first if you must."\n    calls:\n      - {tool: WebSearch, input: "{a} * {c} + {b}", thought: "Let me search the web for this."}\n      - {tool: Calculator, input: "{a} * {c} + {b}",\n         thought: "There is no WebSearch tool ({obs1}). I will use the Calculator instead."}\n    answer: "{a} * {c} + {b} = {obs2}"\n\n  failing_tool:\n    question: "How is the weather in {nowhere} today?"\n    calls:\n      - {tool: Weather, input: "{nowhere}", thought: "I should look up the weather in {nowhere}."}\n    answer: "Sorry, I could not get the weather for {nowhere}. The tool said: {obs1}"\n\n  endless:\n    question: "Count up with the calculator, starting from 1 + 1, and never stop."\n    calls:\n      - {tool: Calculator, input: "{n} + 1", thought: "Next number."}\n    repeat: true\n    answer: ""\n'


async def react_agent(user_input, tools, max_steps=10):
    byname = {t.name: t.func for t in tools}
    head = "Use Thought / Action / Action Input / Observation / Final Answer.\nQuestion: " + user_input + "\n"
    await llm_call(head)  # the mock's "first prompt": bare
    sc = _plan(user_input)
    if sc is None or sc.repeat:
        for _ in range(max_steps - 1):
            await llm_call(head)
        return "no answer found within max_steps"
    obs, steps = [], ""
    for turn in sc.turns:
        call = turn[0]
        inp = sc.render(call["input"], obs)
        try:
            out = str(byname[call["tool"]](inp)) if call["tool"] in byname else f"unknown tool: {call['tool']}"
        except Exception as e:
            out = f"error: {e}"
        obs.append(out)
        steps += f"Thought: {sc.render(call.get('thought', 'ok'), obs)}\nAction: {call['tool']}\nAction Input: {inp}\nObservation: {out}\n"
    reply = await llm_call(head + steps)
    return reply.split("Final Answer:", 1)[1].strip() if "Final Answer:" in reply else reply


if __name__ == "__main__":
    for question in ["What is 3 + 5 * 2?", "How is the weather in 上海 today?"]:
        print(question, "->", asyncio.run(react_agent(question, TOOLS)))
