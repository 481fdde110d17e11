# expect: full
# style: from __future__ import annotations with inspect.signature(eval_str=True); defaults in the schema;
# style: comprehension validation; an iterative post-order calculator with an explicit stack.
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
from __future__ import annotations

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


def parse_docstring(doc: str | None) -> tuple[str, dict[str, str]]:
    """TODO 1.1 — a docstring as (summary, {parameter name: its description})."""
    from itertools import takewhile
    lines = inspect.cleandoc(doc or "").splitlines()
    summary = " ".join(line.strip() for line in takewhile(lambda l: l.strip() != "", lines))
    stripped = [line.strip() for line in lines]
    if "Args:" not in stripped:
        return summary, {}
    at = stripped.index("Args:")
    base = len(lines[at]) - len(lines[at].lstrip())
    section = list(takewhile(lambda l: l.strip() and len(l) - len(l.lstrip()) > base, lines[at + 1:]))
    if not section:
        return summary, {}
    names_indent = len(section[0]) - len(section[0].lstrip())
    params: dict[str, str] = {}
    name = None
    for line in section:
        if len(line) - len(line.lstrip()) == names_indent:
            name, _, description = line.strip().partition(":")
            name = name.strip()
            params[name] = description.strip()
        elif name is not None:
            params[name] += " " + line.strip()
    return summary, params


def describe_tool(func: Callable) -> dict:
    """TODO 1.2 — the description of `func`."""
    kinds = {int: "integer", float: "number", str: "string", bool: "boolean", list: "array", dict: "object"}
    summary, texts = parse_docstring(func.__doc__)
    signature = inspect.signature(func, eval_str=True)  # the annotations as classes, not as text
    properties: dict = {}
    for param in signature.parameters.values():
        if param.annotation not in kinds:
            raise TypeError(f"{func.__name__}.{param.name}: no JSON type for {param.annotation!r}")
        schema = {"type": kinds[param.annotation], "description": texts.get(param.name, "")}
        if param.default is not inspect.Parameter.empty:
            schema["default"] = param.default
        properties[param.name] = schema
    return {
        "type": "function",
        "function": {
            "name": func.__name__,
            "description": summary,
            "parameters": {
                "type": "object",
                "properties": properties,
                "required": [p.name for p in signature.parameters.values()
                             if p.default is inspect.Parameter.empty],
                "additionalProperties": False,
            },
        },
    }


def validate_arguments(parameters: dict, arguments) -> list[str]:
    """TODO 1.3 — every problem of `arguments` against `parameters`."""
    if type(arguments) is not dict:
        return [f"expected a dict of arguments, got {arguments!r}"]
    checks = {
        "integer": lambda v: type(v) is int,
        "number": lambda v: type(v) in (int, float),
        "string": lambda v: type(v) is str,
        "boolean": lambda v: type(v) is bool,
        "array": lambda v: type(v) is list,
        "object": lambda v: type(v) is dict,
    }
    properties = parameters.get("properties", {})
    return (
        [f"{name}: required, but not given" for name in parameters.get("required", []) if name not in arguments]
        + [f"{name}: not a parameter of this tool" for name in arguments if name not in properties]
        + [f"{name}: expected {properties[name]['type']}, got {type(value).__name__} {value!r}"
           for name, value in arguments.items()
           if name in properties and not checks.get(properties[name].get("type"), lambda v: True)(value)]
    )


def run_tool(name: str, arguments: dict) -> ToolResult:
    """TODO 1.4 — run the tool `name` of TOOLS."""
    result: ToolResult
    try:
        if name not in TOOLS:
            result = ToolResult(False, None, f"unknown tool {name}; known tools: {', '.join(TOOLS)}")
        else:
            problems = validate_arguments(describe_tool(TOOLS[name])["function"]["parameters"], arguments)
            if problems:
                result = ToolResult(False, None, f"{name} not called. " + " | ".join(problems))
            else:
                result = ToolResult(True, TOOLS[name](**arguments))
    except Exception as failure:
        result = ToolResult(False, None, f"{name} error: {failure}")
    return result


def calculator(expression: str) -> float:
    """Evaluate an arithmetic expression: numbers, + - * / **, a sign (+ or -) before a number, parentheses.

    Args:
        expression: the arithmetic to work out, such as "3 + 5 * 2" or "-(2 ** 10) / 4"
    """
    try:
        root = ast.parse(expression, mode="eval").body
    except SyntaxError as error:
        raise ValueError(f"cannot parse {expression!r}: {error.msg}") from None
    binary = {ast.Add: operator.add, ast.Sub: operator.sub, ast.Mult: operator.mul,
              ast.Div: operator.truediv, ast.Pow: operator.pow}
    # post-order walk with an explicit stack: no recursion limit to worry about
    stack = [(root, False)]
    values: list = []
    while stack:
        node, visited = stack.pop()
        if isinstance(node, ast.Constant):
            if isinstance(node.value, bool) or not isinstance(node.value, (int, float)):
                raise ValueError(f"not a number: {node.value!r}")
            values.append(node.value)
        elif isinstance(node, ast.UnaryOp) and isinstance(node.op, (ast.UAdd, ast.USub)):
            if not visited:
                stack += [(node, True), (node.operand, False)]
            else:
                operand = values.pop()
                values.append(-operand if isinstance(node.op, ast.USub) else operand)
        elif isinstance(node, ast.BinOp) and type(node.op) in binary:
            if not visited:
                stack += [(node, True), (node.right, False), (node.left, False)]
            else:
                right = values.pop()
                left = values.pop()
                if isinstance(node.op, ast.Div) and right == 0:
                    raise ValueError("division by zero")
                if isinstance(node.op, ast.Pow):
                    if left == 0 and right < 0:
                        raise ValueError("division by zero (0 to a negative power)")
                    if left != 0 and right * math.log10(abs(left)) > 100:
                        raise ValueError("power too large: the result would exceed 100 digits")
                try:
                    value = binary[type(node.op)](left, right)
                except OverflowError:
                    raise ValueError("result too large") from None
                if isinstance(value, complex):
                    raise ValueError("the result would be a complex number")
                values.append(value)
        else:
            raise ValueError(f"{type(node).__name__} is not allowed: only numbers and + - * / **")
    return values.pop()


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
