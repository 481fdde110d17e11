# expect: full
# style: one compiled regex + a normalised-name table for split_label, fields gathered as lists of lines,
# style: the three-way result chosen with a match statement on the labels, quotes stripped through a pairs table
"""Day 04 — parsing the text protocol.

A model that speaks the ReAct text protocol answers with labelled lines:

    Thought: I need to calculate 3 + 5 * 2.
    Action: Calculator
    Action Input: 3 + 5 * 2

Real models bend the format: `action :` in lower case, `**Action:**` in Markdown, a full-width
colon `Action：`, an input in quotes, an answer over several lines, and often they run on past their
request with an Observation they made up. Today you write the parser that reads all of that, and
says so plainly when a reply cannot be read (the agent sends that text back to the model).

Fill in the four TODOs in your copy (`workspace/day04.py`, made by the first `python validate.py
day04`), then grade it with `python validate.py day04`. Run the file itself to see your parser at
work on sample replies and on the mock model: `python workspace/day04.py`.
"""
from __future__ import annotations

import ast
import asyncio
import re
from dataclasses import dataclass

import mock_llm


# ---------------------------------------------------------------- given: the labels, the result

LABELS = ("Thought", "Action", "Action Input", "Observation", "Final Answer")


@dataclass
class ParsedReply:
    """What a reply asks the agent to do. Exactly one of three things is set:

    - `final_answer` (not None): the run is over, this is the answer;
    - `action` (not ""): run that tool on `action_input` ("" is a valid input);
    - `error` (not None): the reply breaks the format; send this text back to the model as the
      Observation, so it can write its reply again.
    """
    thought: str = ""
    action: str = ""
    action_input: str = ""
    final_answer: str | None = None
    error: str | None = None


# ---------------------------------------------------------------- given: three tools (article 004)

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


def weather(city: str) -> str:
    reports = {"北京": "sunny, 25°C", "上海": "cloudy, 28°C", "广州": "thunderstorms, 32°C",
               "深圳": "sunny then cloudy, 30°C"}
    if city not in reports:
        raise KeyError(f"unknown city: {city}")
    return reports[city]


def knowledge(query: str) -> str:
    entries = {
        "python": "Python is an interpreted, object-oriented language, created by Guido van Rossum in 1991.",
        "agent": "An AI agent perceives its environment, decides, and acts through tools, in a loop.",
        "react": "ReAct is an agent pattern in which a model alternates reasoning and acting.",
    }
    found = [text for key, text in entries.items() if key in query.lower()]
    return found[0] if found else f"nothing found for {query!r}"


TOOLS = {"Calculator": calculator, "Weather": weather, "Knowledge": knowledge}


# ---------------------------------------------------------------- given: the model

async def llm_call(prompt: str) -> str:
    """Send the prompt to the model, get its reply. Here: the kit's offline mock model."""
    return mock_llm.reply("day04", prompt)


def demo_prompt(question: str) -> str:
    """A fixed prompt, good enough to get one reply from the mock (day05 builds the real one)."""
    return ("Answer the question. Tools:\n"
            "- Calculator: evaluates arithmetic such as 2 + 3 * 4\n"
            "- Weather: today's weather in a city, for example 北京\n"
            "- Knowledge: looks a keyword up in a small knowledge base\n\n"
            "Reply with Thought / Action / Action Input, or Thought / Final Answer.\n\n"
            f"Question: {question}\n")


# ---------------------------------------------------------------- your part: four TODOs

_LINE = re.compile(r"^[\s*]*(?P<head>[^:：]*?)[\s*]*[:：][\s*]*(?P<value>.*?)[\s*]*$")

_NAMES = {label.replace(" ", "").lower(): label for label in LABELS}

_PAIRS = {'"': '"', "'": "'", "`": "`", "“": "”", "‘": "’"}

def _unwrap(text: str) -> str:
    if text.startswith("```") and text.endswith("```") and "\n" in text:
        inner = text[3:-3]
        inner = inner.split("\n", 1)[1] if "\n" in inner else inner  # drop the fence line and its tag
        return inner.strip()
    if len(text) >= 2 and _PAIRS.get(text[0]) == text[-1]:
        return text[1:-1].strip()
    return text



def split_label(line: str) -> tuple[str, str] | None:
    found = _LINE.match(line)
    if not found:
        return None
    key = re.sub(r"[\s_]+", "", found["head"]).lower()
    label = _NAMES.get(key)
    return (label, found["value"].strip()) if label else None


def read_fields(reply: str) -> list[tuple[str, str]]:
    fields: list[list] = []
    for line in reply.splitlines():
        split = split_label(line)
        if split is not None:
            fields.append([split[0], [split[1]]])
        elif fields:
            fields[-1][1].append(line)
    return [(label, "\n".join(lines).strip()) for label, lines in fields]


def format_error(labels: list[str]) -> str | None:
    has_action = "Action" in labels
    match ("Final Answer" in labels, "Action Input" in labels):
        case (True, _):
            return None
        case (False, True) if "Action" in labels[:labels.index("Action Input")]:
            return None
        case (False, True):
            return ("Your reply has an 'Action Input:' but no 'Action:' line above it naming the tool. "
                    "Put 'Action: <tool>' on the line before 'Action Input: <input>'.")
        case (False, False) if has_action:
            return ("You named a tool with 'Action:' but gave no 'Action Input:' line. Add the line "
                    "'Action Input: <input>' right after it.")
        case _:
            return ("I could not find an 'Action:' or a 'Final Answer:' in your reply. Either call a tool "
                    "('Action: <tool>' then 'Action Input: <input>') or finish with 'Final Answer: <answer>'.")


def parse_react_response(reply: str) -> ParsedReply:
    fields = read_fields(reply)
    labels = [label for label, _ in fields]
    if "Action Input" in labels:
        fields = fields[:labels.index("Action Input") + 1]
        labels = [label for label, _ in fields]
    first: dict[str, str] = {}
    for label, value in fields:
        first.setdefault(label, value)
    thought = first.get("Thought", "")
    if "Final Answer" in first:
        return ParsedReply(thought=thought, final_answer=first["Final Answer"])
    problem = format_error(labels)
    if problem is not None:
        return ParsedReply(thought=thought, error=problem)
    return ParsedReply(thought=thought, action=first["Action"], action_input=_unwrap(first["Action Input"]))


SAMPLE_REPLIES = [
    "Thought: I need to calculate 3 + 5 * 2.\nAction: Calculator\nAction Input: 3 + 5 * 2",
    '**Thought:** The user wants the weather in 上海.\n**Action:** Weather\n**Action Input:** "上海"',
    "Thought: I need to calculate 3 + 5 * 2.\nAction: Calculator\nAction Input: 3 + 5 * 2\n"
    "Observation: 16\nThought: I now know the final answer.\nFinal Answer: 3 + 5 * 2 = 16",
    'Thought: I will look the weather up.\nAction: search_weather("北京")',
    "Thought: I have both numbers.\nFinal Answer: It is 77°F in 北京 today.\n- Weather: sunny, 25°C\n"
    "- 25 * 9 / 5 + 32 = 77",
    "Thought：我需要查询北京的天气。\nAction：Weather\nAction Input：北京",
    "The answer is 13.",
]


async def one_round(question: str) -> str:
    """One round of an agent: ask the model, parse its reply, run the tool it asks for; what happened,
    as text. (`validate.py day04 --live` runs it against a real model, to show real replies parsed.)"""
    reply = await llm_call(demo_prompt(question))
    parsed = parse_react_response(reply)
    lines = [f"--- the model replied:\n{reply}", f"--- parsed: {parsed}"]
    if parsed.action in TOOLS:
        try:
            lines.append(f"--- the real Observation: {TOOLS[parsed.action](parsed.action_input)}")
        except Exception as error:
            lines.append(f"--- the tool failed: {error}")
    return "\n".join(lines)


if __name__ == "__main__":
    for sample in SAMPLE_REPLIES:
        print(f"{sample}\n  -> {parse_react_response(sample)}\n")
    for question in ["What is 3 + 5 * 2?", "How is the weather in 上海 today?", "What is ReAct?"]:
        print(f"Question: {question}\n{asyncio.run(one_round(question))}\n")
