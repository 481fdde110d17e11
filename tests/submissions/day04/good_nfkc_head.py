# expect: full
# style: unicodedata.normalize("NFKC") on the label part only (turns "：" into ":"), str.casefold, a generator for
# style: read_fields, the cut with itertools.takewhile-free index search, format_error as a small decision table
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

import unicodedata

_CANON = {"".join(label.split()).casefold(): label for label in LABELS}

def _groups(reply: str):
    label, lines = None, []
    for line in reply.splitlines():
        found = split_label(line)
        if found:
            if label is not None:
                yield label, lines
            label, lines = found[0], [found[1]]
        elif label is not None:
            lines.append(line)
    if label is not None:
        yield label, lines

_MESSAGES = {
    "no_input": "Format problem: after 'Action: <tool>' you must write 'Action Input: <input>' on its own line.",
    "no_action": "Format problem: 'Action Input:' needs an 'Action: <tool name>' line before it.",
    "nothing": "Format problem: write either 'Action: <tool>' plus 'Action Input: <input>', or 'Final Answer: <answer>'.",
}

def _strip_wrapping(text: str) -> str:
    lines = text.splitlines()
    if len(lines) >= 2 and lines[0].strip().startswith("```") and lines[-1].strip() == "```":
        return "\n".join(lines[1:-1]).strip()
    for left, right in ('""', "''", "``", "“”", "‘’"):
        if len(text) >= 2 and text.startswith(left) and text.endswith(right):
            return text[1:-1].strip()
    return text



def split_label(line: str) -> tuple[str, str] | None:
    for index, char in enumerate(line):
        if char in ":：":
            head, rest = line[:index], line[index + 1:]
            break
    else:
        return None
    head = unicodedata.normalize("NFKC", head).replace("*", " ").replace("_", " ")
    key = "".join(head.split()).casefold()
    if key not in _CANON:
        return None
    return _CANON[key], rest.strip().lstrip("*").rstrip("*").strip()


def read_fields(reply: str) -> list[tuple[str, str]]:
    return [(label, "\n".join(lines).strip()) for label, lines in _groups(reply)]


def format_error(labels: list[str]) -> str | None:
    if "Final Answer" in labels:
        return None
    if "Action Input" not in labels:
        return _MESSAGES["no_input" if "Action" in labels else "nothing"]
    before = labels[:labels.index("Action Input")]
    return None if "Action" in before else _MESSAGES["no_action"]


def parse_react_response(reply: str) -> ParsedReply:
    fields = read_fields(reply)
    cut = next((i for i, (label, _) in enumerate(fields) if label == "Action Input"), None)
    if cut is not None:
        fields = fields[:cut + 1]
    def first(label: str) -> str | None:
        return next((value for name, value in fields if name == label), None)
    thought = first("Thought") or ""
    answer = first("Final Answer")
    if answer is not None:
        return ParsedReply(thought, final_answer=answer)
    message = format_error([label for label, _ in fields])
    if message:
        return ParsedReply(thought, error=message)
    return ParsedReply(thought, action=first("Action"), action_input=_strip_wrapping(first("Action Input")))


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
