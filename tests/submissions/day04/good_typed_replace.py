# expect: full
# style: type aliases and a NamedTuple-free pipeline: a regex head match then a lookup; format_error via a small
# style: rule table (list of predicates, messages); parse uses dataclasses.replace on an empty ParsedReply.
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

import dataclasses

Field = tuple[str, str]
_HEAD = re.compile(r"^[ \t]*\**[ \t]*([A-Za-z][A-Za-z _]*?)[ \t]*\**[ \t]*[:：](.*)$")
_BY_NAME = {label.lower().replace(" ", ""): label for label in LABELS}


def split_label(line: str) -> tuple[str, str] | None:
    m = _HEAD.match(line)
    if m is None:
        return None
    label = _BY_NAME.get(re.sub(r"[ _]", "", m.group(1)).lower())
    if label is None:
        return None
    return label, m.group(2).strip().lstrip("*").strip()


def read_fields(reply: str) -> list[Field]:
    out: list[Field] = []
    for line in reply.splitlines():
        hit = split_label(line)
        if hit:
            out.append(hit)
        elif out:
            label, value = out[-1]
            out[-1] = (label, f"{value}\n{line}")
    return [(label, value.strip()) for label, value in out]


def _action_before_input(labels: list[str]) -> bool:
    return "Action Input" in labels and "Action" in labels[: labels.index("Action Input")]


RULES = [
    (lambda ls: "Final Answer" in ls or _action_before_input(ls), None),
    (lambda ls: "Action Input" in ls,
     "The 'Action Input:' line has no 'Action:' line before it; write 'Action: <tool>' above it."),
    (lambda ls: "Action" in ls,
     "After 'Action:' you need an 'Action Input:' line with the input for the tool, on its own line."),
    (lambda ls: True,
     "Reply with an 'Action:' and an 'Action Input:' line to use a tool, or a 'Final Answer:' line to finish."),
]


def format_error(labels: list[str]) -> str | None:
    for applies, message in RULES:
        if applies(labels):
            return message
    return None


def _clean_input(value: str) -> str:
    fence = re.fullmatch(r"```[a-zA-Z0-9_-]*\s*\n(.*?)\s*```", value, re.DOTALL)
    if fence:
        return fence.group(1).strip()
    for a, b in ('""', "''", "``", "“”", "‘’"):
        if len(value) >= 2 and value[0] == a and value[-1] == b:
            return value[1:-1].strip()
    return value


def parse_react_response(reply: str) -> ParsedReply:
    fields = read_fields(reply)
    labels = [label for label, _ in fields]
    if "Action Input" in labels:
        fields = fields[: labels.index("Action Input") + 1]
        labels = labels[: len(fields)]
    first = {}
    for label, value in fields:
        first.setdefault(label, value)
    result = ParsedReply(thought=first.get("Thought", ""))
    if "Final Answer" in first:
        return dataclasses.replace(result, final_answer=first["Final Answer"])
    error = format_error(labels)
    if error:
        return dataclasses.replace(result, error=error)
    return dataclasses.replace(result, action=first["Action"], action_input=_clean_input(first["Action Input"]))


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
