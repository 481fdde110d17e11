# expect: full
# style: problems worded like Python's exceptions ('TypeError: ...'); regex Args block; match statement calculator.
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
import re


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


def parse_docstring(doc: str | None) -> tuple[str, dict[str, str]]:
    """TODO 1.1 — a docstring as (summary, {parameter name: its description})."""
    text = inspect.cleandoc(doc or "")
    summary = " ".join(text.split("\n\n", 1)[0].split()) if text.strip() else ""
    # the Args block: the lines under "Args:", all indented more than it, up to a blank or dedented line
    block = re.search(r"^([ \t]*)Args:[ \t]*\n((?:\1[ \t]+\S.*(?:\n|$))+)", text, re.MULTILINE)
    params: dict[str, str] = {}
    if block:
        body = block.group(2).splitlines()
        first = len(body[0]) - len(body[0].lstrip())
        name = None
        for line in body:
            if len(line) - len(line.lstrip()) == first:
                name, _, description = line.strip().partition(":")
                params[name] = description.strip()
            else:
                params[name] += " " + line.strip()
    return summary, params


def describe_tool(func: Callable) -> dict:
    """TODO 1.2 — the description of `func`."""
    json_names = {int: "integer", float: "number", str: "string", bool: "boolean", list: "array",
                  dict: "object"}
    summary, arg_docs = parse_docstring(func.__doc__)
    types = typing.get_type_hints(func)
    sig = inspect.signature(func)
    properties = {}
    for name in sig.parameters:
        try:
            properties[name] = {"type": json_names[types[name]], "description": arg_docs.get(name, "")}
        except KeyError:
            raise TypeError(f"{func.__name__}: no JSON type for parameter {name}") from None
    return {
        "type": "function",
        "function": {
            "name": func.__name__,
            "description": summary,
            "parameters": {
                "type": "object",
                "properties": properties,
                "required": [n for n, p in sig.parameters.items() if p.default is inspect.Parameter.empty],
                "additionalProperties": False,
            },
        },
    }


def validate_arguments(parameters: dict, arguments) -> list[str]:
    """TODO 1.3 — every problem of `arguments` against `parameters`.

    The messages follow Python's own exception style, which models know well.
    """
    if not isinstance(arguments, dict):
        return [f"TypeError: arguments must be an object of name: value, not {type(arguments).__name__}"]
    python_types = {"integer": int, "number": (int, float), "string": str, "boolean": bool, "array": list,
                    "object": dict}
    properties = parameters.get("properties", {})
    problems = []
    for name in parameters.get("required", []):
        if name not in arguments:
            problems.append(f"TypeError: missing required argument: '{name}'")
    for name, value in arguments.items():
        if name not in properties:
            problems.append(f"TypeError: unexpected argument '{name}' (the arguments are {', '.join(properties)})")
            continue
        expected = properties[name].get("type")
        want = python_types.get(expected)
        if want is None:
            continue
        if isinstance(value, bool) and expected != "boolean" or not isinstance(value, want):
            problems.append(f"TypeError: '{name}' must be {expected}, not {type(value).__name__}")
    return problems


def run_tool(name: str, arguments: dict) -> ToolResult:
    """TODO 1.4 — run the tool `name` of TOOLS."""
    if name not in TOOLS:
        return ToolResult(False, error=f"NameError: no tool named '{name}'; the tools are {', '.join(TOOLS)}")
    func = TOOLS[name]
    try:
        problems = validate_arguments(describe_tool(func)["function"]["parameters"], arguments)
        if problems:
            return ToolResult(False, error=f"{name} was not called:\n" + "\n".join(problems))
        return ToolResult(True, output=func(**arguments))
    except Exception as exc:
        return ToolResult(False, error=f"{type(exc).__name__}: {exc}")


def calculator(expression: str) -> float:
    """Evaluate an arithmetic expression: numbers, + - * / **, a sign (+ or -) before a number, parentheses.

    Args:
        expression: the arithmetic to work out, such as "3 + 5 * 2" or "-(2 ** 10) / 4"
    """
    def value_of(node):
        match node:
            case ast.Constant(value=v) if type(v) in (int, float):
                return v
            case ast.UnaryOp(op=ast.USub(), operand=x):
                return -value_of(x)
            case ast.UnaryOp(op=ast.UAdd(), operand=x):
                return +value_of(x)
            case ast.BinOp(left=l, op=op, right=r) if isinstance(op, (ast.Add, ast.Sub, ast.Mult, ast.Div, ast.Pow)):
                a, b = value_of(l), value_of(r)
                if isinstance(op, ast.Add):
                    return a + b
                if isinstance(op, ast.Sub):
                    return a - b
                if isinstance(op, ast.Mult):
                    return a * b
                if isinstance(op, ast.Div):
                    if b == 0:
                        raise ValueError("ZeroDivisionError: division by zero")
                    return a / b
                if a == 0 and b < 0:
                    raise ValueError("ZeroDivisionError: 0 cannot be raised to a negative power")
                if a != 0 and b * math.log10(abs(a)) > 100:
                    raise ValueError("OverflowError: the power would have more than 100 digits")
                result = a ** b
                if isinstance(result, complex):
                    raise ValueError("the result is complex, not a real number")
                return result
            case _:
                raise ValueError(f"not allowed: {ast.unparse(node)}")

    try:
        tree = ast.parse(expression, mode="eval")
    except SyntaxError as error:
        raise ValueError(f"SyntaxError: {error.msg}") from None
    return value_of(tree.body)


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
