# expect: full
# style: text.partition('\nArgs:\n'); json_type_of() compare; problems grouped per argument; ops keyed by class name.
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


def parse_docstring(doc: str | None) -> tuple[str, dict[str, str]]:
    """TODO 1.1 — a docstring as (summary, {parameter name: its description})."""
    text = inspect.cleandoc(doc or "")
    head, found, tail = text.partition("\nArgs:\n")
    summary = " ".join(line.strip() for line in head.split("\n\n")[0].splitlines())
    if not found:
        return summary, {}
    params: dict[str, str] = {}
    last = None
    indent_of_names = None
    for line in tail.splitlines():
        if not line.strip() or not line[0].isspace():
            break  # a blank line, or "Returns:" at the margin
        indent = len(line) - len(line.lstrip())
        if indent_of_names is None:
            indent_of_names = indent
        if indent == indent_of_names:
            last, _, description = line.strip().partition(":")
            params[last.strip()] = description.strip()
        elif last:
            params[last.strip()] += " " + line.strip()
    return summary, params


JSON_TYPES = {"bool": "boolean", "int": "integer", "float": "number", "str": "string", "list": "array",
              "dict": "object"}


def describe_tool(func: Callable) -> dict:
    """TODO 1.2 — the description of `func`."""
    summary, documented = parse_docstring(func.__doc__)
    hints = typing.get_type_hints(func)
    props, required = {}, []
    for param in inspect.signature(func).parameters.values():
        annotation = hints.get(param.name, param.annotation)
        type_name = getattr(annotation, "__name__", str(annotation))
        if type_name not in JSON_TYPES or typing.get_args(annotation):
            raise TypeError(f"don't know the JSON type of {param.name}: {annotation}")
        props[param.name] = {"type": JSON_TYPES[type_name], "description": documented.get(param.name, "")}
        if param.default is inspect.Parameter.empty:
            required.append(param.name)
    parameters = {"type": "object", "properties": props, "required": required, "additionalProperties": False}
    return {"type": "function", "function": {"name": func.__name__, "description": summary,
                                             "parameters": parameters}}


def json_type_of(value) -> str:
    """The JSON type a Python value is sent as."""
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "boolean"
    if isinstance(value, int):
        return "integer"
    if isinstance(value, float):
        return "number"
    if isinstance(value, str):
        return "string"
    if isinstance(value, list):
        return "array"
    if isinstance(value, dict):
        return "object"
    return type(value).__name__


def validate_arguments(parameters: dict, arguments) -> list[str]:
    """TODO 1.3 — every problem of `arguments` against `parameters`."""
    if not isinstance(arguments, dict):
        return [f"expected the arguments as a JSON object, but they are a {json_type_of(arguments)}"]
    props = parameters.get("properties", {})
    by_name: dict[str, list[str]] = {}
    for name in parameters.get("required", []):
        if name not in arguments:
            by_name.setdefault(name, []).append("missing")
    for name, value in arguments.items():
        if name not in props:
            by_name.setdefault(name, []).append(f"unknown (use {', '.join(props)})")
            continue
        expected, actual = props[name].get("type"), json_type_of(value)
        if expected and actual != expected and not (expected == "number" and actual == "integer"):
            by_name.setdefault(name, []).append(f"should be {expected}, is {actual}")
    return [f"argument {name!r}: {', '.join(notes)}" for name, notes in by_name.items()]


def run_tool(name: str, arguments: dict) -> ToolResult:
    """TODO 1.4 — run the tool `name` of TOOLS."""
    try:
        func = TOOLS[name]
    except (KeyError, TypeError):
        return ToolResult(False, error=f"unknown tool {name!r}: use one of {', '.join(TOOLS)}")
    try:
        issues = validate_arguments(describe_tool(func)["function"]["parameters"], arguments)
    except Exception as exc:
        return ToolResult(False, error=f"could not check the arguments: {exc}")
    if issues:
        return ToolResult(False, error=f"bad arguments for {name}, it was not called: " + "; ".join(issues))
    try:
        result = func(**arguments)
    except Exception as exc:
        return ToolResult(False, error=f"{name} failed with {exc.__class__.__name__}: {exc}")
    return ToolResult(True, output=result)


OPERATIONS = {"Add": operator.add, "Sub": operator.sub, "Mult": operator.mul, "Div": operator.truediv,
              "Pow": operator.pow, "USub": operator.neg, "UAdd": operator.pos}


def _power(base, exponent):
    if base == 0 and exponent < 0:
        raise ValueError("0 to a negative power is a division by zero")
    if base != 0 and exponent * math.log10(abs(base)) > 100:
        raise ValueError("the result would be larger than 100 digits")
    result = base ** exponent
    if isinstance(result, complex):
        raise ValueError("a negative number to a fractional power has no real value")
    return result


def _value(node):
    kind = type(node).__name__
    if kind == "Constant":
        if type(node.value) not in (int, float):
            raise ValueError(f"only numbers may appear, not {node.value!r}")
        return node.value
    if kind == "UnaryOp" and type(node.op).__name__ in ("USub", "UAdd"):
        return OPERATIONS[type(node.op).__name__](_value(node.operand))
    if kind == "BinOp" and type(node.op).__name__ in ("Add", "Sub", "Mult", "Div", "Pow"):
        op = type(node.op).__name__
        left, right = _value(node.left), _value(node.right)
        if op == "Div" and right == 0:
            raise ValueError("division by zero")
        if op == "Pow":
            return _power(left, right)
        return OPERATIONS[op](left, right)
    raise ValueError(f"{kind} is not allowed: the calculator does arithmetic only")


def calculator(expression: str) -> float:
    """Evaluate an arithmetic expression: numbers, + - * / **, a sign (+ or -) before a number, parentheses.

    Args:
        expression: the arithmetic to work out, such as "3 + 5 * 2" or "-(2 ** 10) / 4"
    """
    try:
        tree = ast.parse(expression, mode="eval")
    except SyntaxError:
        raise ValueError(f"could not read {expression!r} as arithmetic") from None
    try:
        return _value(tree.body)
    except OverflowError:
        raise ValueError("the result is too large") from None


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
