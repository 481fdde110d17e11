# expect-lose: 1.2 2.2
# expect-keep: 1.1 2.1
# why: read_fields adds every non-label line to fields[-1] without asking whether a field has begun: a line
# why: before the first label (or a reply with no label at all) raises IndexError.
# expect-message: read_fields raised IndexError
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

def split_label(line: str) -> tuple[str, str] | None:
    """TODO 1.1 — the label one line starts with, and the text after its colon.

    split_label("  action :  Weather") == ("Action", "Weather"). The label comes back spelt as in
    LABELS, whatever its case and spacing ("ACTION_INPUT", "Action  Input"), with an ASCII or a
    full-width colon, in Markdown bold or not ("**Action:** Weather"). A line that does not start
    with one of the LABELS gives None: "Note: …", "I will use Action: Weather".
    """
    head, colon, rest = line.replace("：", ":").partition(":")
    if not colon:
        return None
    name = re.sub(r"[\s_*]", "", head.lstrip(" \t*->#")).lower()
    for label in LABELS:
        if name == label.replace(" ", "").lower():
            return label, rest.strip().strip("*").strip()
    return None


def read_fields(reply: str) -> list[tuple[str, str]]:
    """TODO 1.2 — every labelled field of a reply, in order: [(label, value), …].

    A value starts after its label's colon and runs on over the next lines, up to the next line
    that starts with a label (blank lines inside it are kept); surrounding whitespace is stripped.
    Lines before the first label belong to no field. A label that comes twice gives two fields.
    """
    fields: list[tuple[str, list[str]]] = []
    for line in reply.splitlines():
        found = split_label(line)
        if found:
            fields.append((found[0], [found[1]]))
        else:
            fields[-1][1].append(line)
    return [(label, "\n".join(lines).strip()) for label, lines in fields]


def format_error(labels: list[str]) -> str | None:
    """TODO 2.1 — what to tell the model when its reply cannot be acted on; None when it can.

    `labels` are the labels of one reply's fields, in order, up to the reply's end: its first
    Action Input, if it has one (parse_react_response cuts off what the model made up after it).
    The reply can be acted on when it holds a Final Answer, or an Action with an Action Input after
    it. Otherwise return a short message for the model that says what is missing and how to write
    it: an Action with no Action Input, an Action Input with no Action before it, or neither an
    Action nor a Final Answer.
    """
    if "Final Answer" in labels:
        return None
    if "Action Input" in labels:
        if "Action" in labels[:labels.index("Action Input")]:
            return None
        return ("Format error: your 'Action Input:' line has no 'Action:' line before it. "
                "Write 'Action: <one of the tool names>' first, then 'Action Input: <its input>'.")
    if "Action" in labels:
        return ("Format error: your 'Action:' line is not followed by an 'Action Input:' line. "
                "Write the tool's input on a line of its own: 'Action Input: <the input>'.")
    return ("Format error: I found neither an 'Action:' nor a 'Final Answer:' line. Either ask for "
            "a tool with 'Action: <tool name>' and 'Action Input: <input>', or end with "
            "'Final Answer: <your answer>'.")


def parse_react_response(reply: str) -> ParsedReply:
    """TODO 2.2 — the whole reply, read: a Final Answer, a tool request, or a format error.

    The reply ends at its first Action Input: what comes after it (an Observation, another
    Action, a Final Answer) was written before any tool ran, so it is made up and ignored. A Final
    Answer before that point ends the run. The input loses one pair of quotes or backticks around
    it ("上海" -> 上海), or a ``` fence. The thought is the first Thought field ("" if none).
    """
    fields = read_fields(reply)
    labels = [label for label, _ in fields]
    if "Action Input" in labels:  # the end of the reply: the rest is made up
        fields = fields[:labels.index("Action Input") + 1]
    found = dict(reversed(fields))  # label -> its first value
    thought = found.get("Thought", "")
    if "Final Answer" in found:
        return ParsedReply(thought, final_answer=found["Final Answer"])
    error = format_error([label for label, _ in fields])
    if error:
        return ParsedReply(thought, error=error)
    given = found["Action Input"]
    fence = re.fullmatch(r"```[\w-]*\n(.*?)\n?```", given, re.DOTALL)
    if fence:
        given = fence.group(1)
    elif len(given) >= 2 and (given[0], given[-1]) in {('"', '"'), ("'", "'"), ("`", "`"), ("“", "”"),
                                                       ("‘", "’")}:
        given = given[1:-1]
    return ParsedReply(thought, action=found["Action"], action_input=given.strip())


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
