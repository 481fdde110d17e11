# expect: full
# style: the docstring cut into a dict of sections; a json_type() helper; arrow messages; the calculator
# style: checks every node with ast.walk before computing anything.
"""Day 03 — tools done right: descriptions made from the code, checked arguments, a safe calculator.

A model never runs a tool itself. It reads a description of each one (a name, what it does, a JSON
Schema of its parameters) and asks for a call: "split_bill with {"total": 84.5, "people": 3}".
Your code checks the request against the schema, runs the function, and reports back, success or
failure, in a form the model can read and act on:

    describe_tool(split_bill)     ->  {"type": "function", "function": {"name": "split_bill", …}}
    run_tool("split_bill", {"total": 84.5, "people": "three"})
                                  ->  ToolResult(success=False, error="… 'people' must be an integer …")

The arguments come from a model, so treat them as untrusted input: a wrong type, a missing or an
unknown argument, even an attempt to run code through the calculator.

Fill in the five TODOs, then run `python validate.py day03`. Run this file itself to see the
descriptions and a few calls, good and bad: `python workspace/day03.py`.
"""
import ast
import inspect
import json
import math
import operator
import typing
from dataclasses import dataclass
from typing import Callable


# ---------------------------------------------------------------- given: what run_tool returns

@dataclass
class ToolResult:
    success: bool
    output: object = None  # what the tool returned, when success is True
    error: str = ""        # what went wrong, in words the model can act on, when success is False


# ---------------------------------------------------------------- given: the tools
# The checks describe these functions and call them through run_tool: leave their signatures and
# docstrings as they are. The calculator's body is TODO 1.5, at the end of the file.

def convert_temperature(value: float, to_unit: str = "fahrenheit") -> float:
    """Convert a temperature between degrees Celsius and degrees Fahrenheit.

    Args:
        value: the temperature to convert
        to_unit: the unit to convert to, "fahrenheit" or "celsius"

    Raises:
        ValueError: if to_unit is neither of those two
    """
    if to_unit == "fahrenheit":
        return round(value * 9 / 5 + 32, 2)
    if to_unit == "celsius":
        return round((value - 32) * 5 / 9, 2)
    raise ValueError(f"unknown unit {to_unit!r}: use 'fahrenheit' or 'celsius'")


def split_bill(total: float, people: int, tip_percent: int = 10) -> float:
    """Share a restaurant bill, tip included, equally between people.

    Args:
        total: the bill before the tip
        people: how many people pay
        tip_percent: the tip, in percent of the bill

    Returns:
        what each person pays, rounded to cents
    """
    return round(total * (1 + tip_percent / 100) / people, 2)


OUTBOX: list[dict] = []  # the messages send_message sent


def send_message(to: str, text: str, urgent: bool = False) -> str:
    """Send a chat message to a colleague.

    Args:
        to: the colleague's user name
        text: the message
        urgent: whether to notify them at once, even outside
            working hours
    """
    OUTBOX.append({"to": to, "text": text, "urgent": urgent})
    return f"sent to {to}" + (" (urgent)" if urgent else "")


def create_event(title: str, start: dict, attendees: list, minutes: int = 30,
                 online: bool = True) -> str:
    """Put a meeting in the shared calendar and invite
    people to it.

    Args:
        title: what the meeting is about
        start: when it begins, as {"date": "2025-05-20", "time": "14:30"}
        attendees: the user names of the people to invite
        minutes: how long it lasts
        online: whether it gets a video call link
    """
    where = "online" if online else "in the office"
    return (f"'{title}' on {start['date']} at {start['time']}, {minutes} min {where}, "
            f"with {', '.join(attendees)}")


def _sections(lines: list[str]) -> dict[str, list[str]]:
    """The docstring's sections: header line ("Args:") -> the lines under it, until a blank line or
    a line as little indented as the header."""
    found: dict[str, list[str]] = {}
    i = 0
    while i < len(lines):
        line = lines[i]
        if line.strip().endswith(":") and line.strip()[:-1].isidentifier():
            header_indent = len(line) - len(line.lstrip())
            body = []
            i += 1
            while i < len(lines) and lines[i].strip() and len(lines[i]) - len(lines[i].lstrip()) > header_indent:
                body.append(lines[i])
                i += 1
            found.setdefault(line.strip()[:-1], body)
            continue
        i += 1
    return found


def parse_docstring(doc: str | None) -> tuple[str, dict[str, str]]:
    """TODO 1.1 — a docstring as (summary, {parameter name: its description})."""
    if not doc:
        return "", {}
    lines = inspect.cleandoc(doc).splitlines()
    first_paragraph = []
    for line in lines:
        if line.strip() == "":
            break
        first_paragraph.append(line.strip())
    args = _sections(lines).get("Args", [])
    params: dict[str, str] = {}
    if args:
        margin = len(args[0]) - len(args[0].lstrip())
        key = None
        for line in args:
            if len(line) - len(line.lstrip()) == margin:
                key, _, value = line.partition(":")
                key = key.strip()
                params[key] = value.strip()
            elif key is not None:
                params[key] = params[key] + " " + line.strip()
    return " ".join(first_paragraph), params


def describe_tool(func: Callable) -> dict:
    """TODO 1.2 — the description of `func`."""
    summary, docs = parse_docstring(func.__doc__)
    annotations = typing.get_type_hints(func)
    annotations.pop("return", None)

    def json_type(tp) -> str:
        if tp is bool:  # before int: bool is a subclass of int
            return "boolean"
        for python, word in ((int, "integer"), (float, "number"), (str, "string"), (list, "array"), (dict, "object")):
            if tp is python:
                return word
        raise TypeError(f"unsupported annotation {tp!r}")

    params = inspect.signature(func).parameters
    properties = {}
    for pname in params:
        properties[pname] = {"type": json_type(annotations.get(pname)), "description": docs.get(pname, pname)}
    return {"type": "function", "function": {
        "name": func.__name__,
        "description": summary,
        "parameters": {"type": "object", "properties": properties,
                       "required": [n for n, p in params.items() if p.default == inspect.Parameter.empty],
                       "additionalProperties": False}}}


def _type_ok(expected: str, value) -> bool:
    if isinstance(value, bool):
        return expected == "boolean"
    return {"integer": isinstance(value, int), "number": isinstance(value, (int, float)),
            "string": isinstance(value, str), "boolean": False, "array": isinstance(value, list),
            "object": isinstance(value, dict)}.get(expected, True)


def validate_arguments(parameters: dict, arguments) -> list[str]:
    """TODO 1.3 — every problem of `arguments` against `parameters`."""
    if not isinstance(arguments, dict):
        return ["the arguments should be an object such as {\"name\": value}, not "
                + json.dumps(arguments, ensure_ascii=False, default=str)]
    problems = []
    properties = parameters.get("properties") or {}
    for name in parameters.get("required") or []:
        if name not in arguments:
            problems.append(f"{name} → required, but missing")
    for name, value in arguments.items():
        if name not in properties:
            problems.append(f"{name} → not accepted here; valid names: {', '.join(properties)}")
        elif not _type_ok(properties[name].get("type", ""), value):
            problems.append(f"{name} → {properties[name]['type']} expected (received {json.dumps(value, default=str)})")
    return problems


def run_tool(name: str, arguments: dict) -> ToolResult:
    """TODO 1.4 — run the tool `name` of TOOLS."""
    try:
        tool = TOOLS[name]
    except KeyError:
        return ToolResult(False, error=f"'{name}' is not a tool I have. The tools are {', '.join(TOOLS)}.")
    except TypeError:  # an unhashable name
        return ToolResult(False, error=f"{name!r} is not a tool name")
    try:
        problems = validate_arguments(describe_tool(tool)["function"]["parameters"], arguments)
    except Exception as error:
        return ToolResult(False, error=f"the arguments of {name} could not be checked: {error}")
    if problems:
        return ToolResult(False, error=f"{name} was not called because: " + "; ".join(problems))
    try:
        return ToolResult(True, output=tool(**arguments))
    except Exception as error:
        return ToolResult(False, error=f"{name} stopped with an error: {error}")


ALLOWED_NODES = (ast.Expression, ast.BinOp, ast.UnaryOp, ast.Constant, ast.Add, ast.Sub, ast.Mult, ast.Div,
                 ast.Pow, ast.UAdd, ast.USub)


def _compute(node):
    if isinstance(node, ast.Constant):
        return node.value
    if isinstance(node, ast.UnaryOp):
        value = _compute(node.operand)
        return -value if isinstance(node.op, ast.USub) else value
    a, b = _compute(node.left), _compute(node.right)
    if isinstance(node.op, ast.Add):
        return a + b
    if isinstance(node.op, ast.Sub):
        return a - b
    if isinstance(node.op, ast.Mult):
        return a * b
    if isinstance(node.op, ast.Div):
        if b == 0:
            raise ValueError("division by zero is not defined")
        return a / b
    # ast.Pow: estimate the size before computing
    if a == 0 and b < 0:
        raise ValueError("0 cannot be raised to a negative power: that is a division by zero")
    if a != 0 and b * math.log10(abs(a)) > 100:
        raise ValueError(f"{a} ** {b} would have more than 100 digits")
    result = a ** b
    if isinstance(result, complex):
        raise ValueError("no real result for a negative number to a fractional power")
    return result


def calculator(expression: str) -> float:
    """Evaluate an arithmetic expression: numbers, + - * / **, a sign (+ or -) before a number, parentheses.

    Args:
        expression: the arithmetic to work out, such as "3 + 5 * 2" or "-(2 ** 10) / 4"
    """
    if not isinstance(expression, str):
        raise ValueError("the expression must be text")
    try:
        tree = ast.parse(expression, mode="eval")
    except SyntaxError:
        raise ValueError("that is not a valid arithmetic expression") from None
    for node in ast.walk(tree):  # check everything first, compute afterwards
        if not isinstance(node, ALLOWED_NODES):
            raise ValueError(f"not allowed in arithmetic: {type(node).__name__}")
        if isinstance(node, ast.Constant) and (isinstance(node.value, bool)
                                               or not isinstance(node.value, (int, float))):
            raise ValueError(f"not a number: {node.value!r}")
    try:
        return _compute(tree.body)
    except (OverflowError, RecursionError):
        raise ValueError("the numbers are too large") from None


# ---------------------------------------------------------------- given: the tool registry

TOOLS: dict[str, Callable] = {func.__name__: func for func in
                              (calculator, convert_temperature, split_bill, send_message, create_event)}


def api_tools(names: list[str] | None = None) -> list[dict]:
    """The `tools` list of a Chat Completions request that offers these tools (all by default)."""
    return [describe_tool(TOOLS[name]) for name in (names or TOOLS)]


if __name__ == "__main__":
    print(json.dumps(api_tools(["split_bill"]), indent=2, ensure_ascii=False))
    for name, arguments in [
        ("split_bill", {"total": 84.5, "people": 3}),
        ("split_bill", {"total": 84.5, "people": "three"}),
        ("send_message", {"to": "mei", "text": "lunch?", "urgent": "yes"}),
        ("send_message", {"to": "mei", "text": "lunch?", "cc": "li"}),
        ("split_bill", {"total": 84.5, "people": 0}),
        ("calculator", {"expression": "3 + 5 * 2"}),
        ("calculator", {"expression": "__import__('os').getcwd()"}),
        ("calculator", {"expression": "9 ** 9 ** 9"}),
        ("web_search", {"query": "weather"}),
    ]:
        print(f"{name}({json.dumps(arguments)})\n    -> {run_tool(name, arguments)}")
    print("messages sent:", OUTBOX)
