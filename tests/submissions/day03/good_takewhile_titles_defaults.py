# expect: full
# style: parse_docstring with itertools.takewhile/dropwhile over cleandoc's lines; properties carry title and default; problems as 'Expected X for Y' sentences; run_tool joins problems on new lines; the calculator a dict of operator lambdas with a log10 size check
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


import itertools


def parse_docstring(doc: str | None) -> tuple[str, dict[str, str]]:
    if not doc:
        return "", {}
    lines = inspect.cleandoc(doc).splitlines()
    summary = " ".join(line.strip() for line in itertools.takewhile(str.strip, lines))
    rest = list(itertools.dropwhile(lambda line: line.strip() != "Args:", lines))
    params: dict[str, str] = {}
    if not rest:
        return summary, params
    base = len(rest[0]) - len(rest[0].lstrip())
    body = list(itertools.takewhile(lambda l: l.strip() and len(l) - len(l.lstrip()) > base, rest[1:]))
    if not body:
        return summary, params
    names_at = len(body[0]) - len(body[0].lstrip())
    last = None
    for line in body:
        if len(line) - len(line.lstrip()) == names_at:
            last, text = (part.strip() for part in line.split(":", 1)) if ":" in line else (line.strip(), "")
            params[last] = text
        elif last:
            params[last] = f"{params[last]} {line.strip()}"
    return summary, params


JSON_TYPES = {int: "integer", float: "number", str: "string", bool: "boolean", list: "array", dict: "object"}


def describe_tool(func: Callable) -> dict:
    summary, texts = parse_docstring(func.__doc__)
    hints = typing.get_type_hints(func)
    properties: dict = {}
    required: list = []
    for name, param in inspect.signature(func).parameters.items():
        prop = {"type": JSON_TYPES[hints[name]], "title": name.replace("_", " ").title()}
        if name in texts:
            prop["description"] = texts[name]
        if param.default is param.empty:
            required.append(name)
        else:
            prop["default"] = param.default
        properties[name] = prop
    return {"type": "function",
            "function": {"name": func.__name__, "description": summary,
                         "parameters": {"type": "object", "properties": properties, "required": required,
                                        "additionalProperties": False}}}


CHECKERS = {
    "integer": lambda v: type(v) is int,
    "number": lambda v: type(v) in (int, float),
    "string": lambda v: type(v) is str,
    "boolean": lambda v: type(v) is bool,
    "array": lambda v: type(v) is list,
    "object": lambda v: type(v) is dict,
}


def validate_arguments(parameters: dict, arguments) -> list[str]:
    if not isinstance(arguments, dict):
        return [f"Expected an object of named arguments, got {type(arguments).__name__}"]
    properties = parameters.get("properties", {})
    found = [f"Expected a value for {name}, which is required" for name in parameters.get("required", ())
             if name not in arguments]
    for name, value in arguments.items():
        if name not in properties:
            found.append(f"Unexpected argument {name} (allowed: {', '.join(properties)})")
            continue
        wanted = properties[name].get("type")
        if wanted in CHECKERS and not CHECKERS[wanted](value):
            found.append(f"Expected {wanted} for {name}, got {json.dumps(value)}")
    return found


def run_tool(name: str, arguments: dict) -> ToolResult:
    if name not in TOOLS:
        return ToolResult(False, error=f"Unknown tool {name}. Available: {', '.join(TOOLS)}")
    func = TOOLS[name]
    problems = validate_arguments(describe_tool(func)["function"]["parameters"], arguments)
    if problems:
        return ToolResult(False, error=f"Invalid arguments for {name}:\n" + "\n".join(f"- {p}" for p in problems))
    try:
        output = func(**arguments)
    except Exception as exc:
        return ToolResult(False, error=f"{name} raised {type(exc).__name__}: {exc}")
    return ToolResult(True, output=output)


OPS = {ast.Add: lambda x, y: x + y, ast.Sub: lambda x, y: x - y, ast.Mult: lambda x, y: x * y,
       ast.Div: lambda x, y: x / y, ast.Pow: lambda x, y: x ** y}


def _walk(node):
    if isinstance(node, ast.Expression):
        return _walk(node.body)
    if isinstance(node, ast.Constant) and type(node.value) in (int, float):
        return node.value
    if isinstance(node, ast.UnaryOp) and type(node.op) in (ast.UAdd, ast.USub):
        value = _walk(node.operand)
        return value if isinstance(node.op, ast.UAdd) else -value
    if isinstance(node, ast.BinOp) and type(node.op) in OPS:
        x, y = _walk(node.left), _walk(node.right)
        if isinstance(node.op, ast.Div) and y == 0:
            raise ValueError("cannot divide by zero")
        if isinstance(node.op, ast.Pow):
            if x == 0 and y < 0:
                raise ValueError("0 to a negative power is a division by zero")
            if x != 0 and y * math.log10(abs(x)) > 100:
                raise ValueError("the power would have more than 100 digits")
            if x < 0 and y != int(y):
                raise ValueError("a negative number to a fractional power has no real value")
        return OPS[type(node.op)](x, y)
    raise ValueError(f"not allowed in an arithmetic expression: {type(node).__name__}")


def calculator(expression: str) -> float:
    """Evaluate an arithmetic expression: numbers, + - * / **, a sign (+ or -) before a number, parentheses.

    Args:
        expression: the arithmetic to work out, such as "3 + 5 * 2" or "-(2 ** 10) / 4"
    """
    try:
        tree = ast.parse(expression, mode="eval")
    except SyntaxError as error:
        raise ValueError(f"not a valid expression: {error.msg}") from None
    try:
        return _walk(tree)
    except (OverflowError, RecursionError) as error:
        raise ValueError(f"too large to compute: {error}") from None

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
