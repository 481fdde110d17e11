# expect: full
# style: calculator dispatches on node type through a dict of small handler functions; validation
# style: messages use Python type words ("should be an int"); unknown tool: "unrecognized tool".
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


# ---------------------------------------------------------------- TODO 1.1 read a docstring

def parse_docstring(doc: str | None) -> tuple[str, dict[str, str]]:
    """TODO 1.1 — a docstring as (summary, {parameter name: its description}).

    The summary is the first paragraph, its lines joined with single spaces. The parameters come
    from the "Args:" section: one "name: description" line each (split at the first colon only);
    a line indented deeper than the names continues the description above it. The section ends at
    a blank line or at the next section ("Returns:", "Raises:", …). `doc` is the docstring as
    written, indentation and all (func.__doc__), or None: then ("", {}).
    """
    lines = inspect.cleandoc(doc or "").splitlines()
    summary = []
    for line in lines:
        if not line.strip():
            break
        summary.append(line.strip())

    def indent(line: str) -> int:
        return len(line) - len(line.lstrip())

    params: dict[str, str] = {}
    start = next((i for i, line in enumerate(lines) if line.strip() == "Args:"), None)
    if start is not None:
        names_at, current = None, None
        for line in lines[start + 1:]:
            if not line.strip() or indent(line) <= indent(lines[start]):
                break  # a blank line, or the next section
            if names_at is None:
                names_at = indent(line)
            if indent(line) == names_at:
                name, _, text = line.partition(":")
                current = name.strip()
                params[current] = text.strip()
            elif current is not None:
                params[current] += " " + line.strip()
    return " ".join(summary), params


# ---------------------------------------------------------------- TODO 1.2 describe a function

def describe_tool(func: Callable) -> dict:
    """TODO 1.2 — the description of `func` that a Chat Completions request sends in `tools`:

        {"type": "function",
         "function": {"name": …, "description": the docstring's summary,
                      "parameters": {"type": "object",
                                     "properties": {name: {"type": …, "description": …}, …},
                                     "required": [the parameters without a default],
                                     "additionalProperties": False}}}

    Types: int -> "integer", float -> "number", str -> "string", bool -> "boolean",
    list -> "array", dict -> "object". Each description comes from parse_docstring.
    """
    json_types = {int: "integer", float: "number", str: "string", bool: "boolean", list: "array",
                  dict: "object"}
    summary, documented = parse_docstring(func.__doc__)
    hints = typing.get_type_hints(func)  # the annotations as classes, even when written as text
    properties, required = {}, []
    for name, param in inspect.signature(func).parameters.items():
        if hints.get(name) not in json_types:
            raise TypeError(f"{func.__name__}: parameter {name!r} needs one of the annotations "
                            "int, float, str, bool, list or dict")
        properties[name] = {"type": json_types[hints[name]]}
        if name in documented:
            properties[name]["description"] = documented[name]
        if param.default is inspect.Parameter.empty:
            required.append(name)
    parameters = {"type": "object", "properties": properties, "required": required,
                  "additionalProperties": False}
    return {"type": "function",
            "function": {"name": func.__name__, "description": summary, "parameters": parameters}}


# ---------------------------------------------------------------- TODO 1.3 check the arguments

def validate_arguments(parameters: dict, arguments) -> list[str]:
    """TODO 1.3"""
    py = {"integer": "an int", "number": "a float or an int", "string": "a str", "boolean": "a bool",
          "array": "a list", "object": "a dict"}
    if not isinstance(arguments, dict):
        return [f"arguments should be a dict, not {type(arguments).__name__}"]
    out = []
    props = parameters.get("properties", {})
    for name in parameters.get("required", []):
        if name not in arguments:
            out.append(f"'{name}' is required")
    for name, value in arguments.items():
        if name not in props:
            out.append(f"'{name}' is not an argument of this tool")
            continue
        want = props[name].get("type")
        good = {
            "integer": type(value) is int,
            "number": type(value) in (int, float),
            "string": type(value) is str,
            "boolean": type(value) is bool,
            "array": type(value) is list,
            "object": type(value) is dict,
        }.get(want, True)
        if not good:
            out.append(f"'{name}' should be {py[want]}, but it is {value!r}")
    return out


# ---------------------------------------------------------------- TODO 1.4 run a tool, never raise

def run_tool(name: str, arguments: dict) -> ToolResult:
    """TODO 1.4"""
    if name not in TOOLS:
        return ToolResult(False, error=f"unrecognized tool {name!r} (tools: {', '.join(TOOLS)})")
    try:
        problems = validate_arguments(describe_tool(TOOLS[name])["function"]["parameters"], arguments)
    except Exception as e:
        return ToolResult(False, error=str(e))
    if problems:
        return ToolResult(False, error=". ".join(problems))
    try:
        return ToolResult(True, output=TOOLS[name](**arguments))
    except Exception as e:
        return ToolResult(False, error=f"{type(e).__name__}: {e}")


# ---------------------------------------------------------------- TODO 1.5 the calculator

def _const(node):
    if type(node.value) in (int, float):
        return node.value
    raise ValueError(f"only numbers are allowed, not {node.value!r}")


def _unary(node):
    handlers = {ast.USub: lambda v: -v, ast.UAdd: lambda v: v}
    if type(node.op) not in handlers:
        raise ValueError("only unary + and - are allowed")
    return handlers[type(node.op)](_eval(node.operand))


def _binary(node):
    a, b = _eval(node.left), _eval(node.right)
    op = type(node.op)
    if op is ast.Add:
        return a + b
    if op is ast.Sub:
        return a - b
    if op is ast.Mult:
        return a * b
    if op is ast.Div:
        if b == 0:
            raise ValueError("division by zero is undefined")
        return a / b
    if op is ast.Pow:
        if a == 0 and b < 0:
            raise ValueError("division by zero")
        if a != 0 and b * math.log10(abs(a)) > 100:
            raise ValueError("the result would be too large (over 100 digits)")
        r = a ** b
        if isinstance(r, complex):
            raise ValueError("complex result")
        return r
    raise ValueError(f"operator {op.__name__} is not allowed")


_HANDLERS = {ast.Constant: _const, ast.UnaryOp: _unary, ast.BinOp: _binary}


def _eval(node):
    handler = _HANDLERS.get(type(node))
    if handler is None:
        raise ValueError(f"{type(node).__name__} nodes are not allowed")
    return handler(node)


def calculator(expression: str) -> float:
    """Evaluate an arithmetic expression: numbers, + - * / **, unary minus and parentheses.

    Args:
        expression: the arithmetic to work out, such as "3 + 5 * 2" or "-(2 ** 10) / 4"
    """
    try:
        tree = ast.parse(expression, mode="eval")
    except SyntaxError:
        raise ValueError(f"{expression!r} is not valid arithmetic") from None
    try:
        return _eval(tree.body)
    except (OverflowError, RecursionError):
        raise ValueError("too large") from None


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
