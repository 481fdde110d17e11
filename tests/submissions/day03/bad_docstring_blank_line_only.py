# expect-lose: 1.1
# expect-keep: 1.2 1.3 1.4 1.5
# expect-message: 'Returns:' and 'Raises:' start sections of their own
# why: The Args section ends only at a blank line, not at a line indented like "Args:", so a
# why: "Returns:" right after the last parameter is skipped and the line under it read as a parameter.
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
    text = inspect.cleandoc(doc or "")
    if not text:
        return "", {}
    lines = text.splitlines()

    summary_lines = []
    for line in lines:
        if not line.strip():
            break
        summary_lines.append(line.strip())
    summary = " ".join(summary_lines)

    params: dict[str, str] = {}
    in_args = False
    args_indent = 0
    name_indent = None
    current = None
    for line in lines:
        indent = len(line) - len(line.lstrip())
        stripped = line.strip()
        if not in_args:
            if stripped == "Args:":
                in_args = True
                args_indent = indent
            continue
        if not stripped:
            break
        if name_indent is None:
            name_indent = indent
        if indent == name_indent:
            name, _, desc = stripped.partition(":")
            current = name.strip()
            params[current] = desc.strip()
        elif indent > name_indent and current is not None:
            params[current] = (params[current] + " " + stripped).strip()
    return summary, params


# ---------------------------------------------------------------- TODO 1.2 describe a function

JSON_TYPES = {int: "integer", float: "number", str: "string", bool: "boolean", list: "array", dict: "object"}


def describe_tool(func: Callable) -> dict:
    summary, descriptions = parse_docstring(func.__doc__)
    hints = typing.get_type_hints(func)
    properties = {}
    required = []
    for name, param in inspect.signature(func).parameters.items():
        annotation = hints.get(name)
        if annotation not in JSON_TYPES:
            raise TypeError(f"no JSON type for parameter {name!r}: {annotation!r}")
        properties[name] = {"type": JSON_TYPES[annotation], "description": descriptions.get(name, "")}
        if param.default is inspect.Parameter.empty:
            required.append(name)
    return {
        "type": "function",
        "function": {
            "name": func.__name__,
            "description": summary,
            "parameters": {
                "type": "object",
                "properties": properties,
                "required": required,
                "additionalProperties": False,
            },
        },
    }


# ---------------------------------------------------------------- TODO 1.3 check the arguments

def _has_type(value, json_type: str) -> bool:
    if json_type == "boolean":
        return isinstance(value, bool)
    if isinstance(value, bool):
        return False
    if json_type == "integer":
        return isinstance(value, int)
    if json_type == "number":
        return isinstance(value, (int, float))
    if json_type == "string":
        return isinstance(value, str)
    if json_type == "array":
        return isinstance(value, list)
    if json_type == "object":
        return isinstance(value, dict)
    return True


def validate_arguments(parameters: dict, arguments) -> list[str]:
    if not isinstance(arguments, dict):
        return [f"the arguments must be a JSON object (name -> value), not {arguments!r}"]
    properties = parameters.get("properties", {})
    problems = []
    for name in parameters.get("required", []):
        if name not in arguments:
            problems.append(f"the required argument '{name}' is missing")
    for name, value in arguments.items():
        if name not in properties:
            problems.append(f"there is no argument '{name}'; the arguments are: {', '.join(properties)}")
            continue
        expected = properties[name].get("type")
        if expected and not _has_type(value, expected):
            problems.append(f"the argument '{name}' must be of type {expected}, not {json.dumps(value)}")
    return problems


# ---------------------------------------------------------------- TODO 1.4 run a tool, never raise

def run_tool(name: str, arguments: dict) -> ToolResult:
    if name not in TOOLS:
        return ToolResult(False, error=f"unknown tool '{name}'; the tools are: {', '.join(TOOLS)}")
    func = TOOLS[name]
    try:
        problems = validate_arguments(describe_tool(func)["function"]["parameters"], arguments)
    except Exception as exc:
        return ToolResult(False, error=f"could not check the arguments of {name}: {exc}")
    if problems:
        return ToolResult(False, error=f"{name} was not called: " + "; ".join(problems))
    try:
        return ToolResult(True, output=func(**arguments))
    except Exception as exc:
        return ToolResult(False, error=f"{name} failed: {exc}")


# ---------------------------------------------------------------- TODO 1.5 the calculator

_BIN_OPS = {ast.Add: operator.add, ast.Sub: operator.sub, ast.Mult: operator.mul,
            ast.Div: operator.truediv, ast.Pow: operator.pow}
_UN_OPS = {ast.USub: operator.neg, ast.UAdd: operator.pos}
MAX_DIGITS = 100


def _eval_node(node):
    if isinstance(node, ast.Constant):
        if isinstance(node.value, bool) or not isinstance(node.value, (int, float)):
            raise ValueError(f"only numbers are allowed, not {node.value!r}")
        return node.value
    if isinstance(node, ast.UnaryOp) and type(node.op) in _UN_OPS:
        return _UN_OPS[type(node.op)](_eval_node(node.operand))
    if isinstance(node, ast.BinOp) and type(node.op) in _BIN_OPS:
        left = _eval_node(node.left)
        right = _eval_node(node.right)
        if isinstance(node.op, ast.Div) and right == 0:
            raise ValueError("division by zero")
        if isinstance(node.op, ast.Pow):
            if left == 0 and right < 0:
                raise ValueError("division by zero: 0 to a negative power")
            if abs(left) > 1 and right * math.log10(abs(left)) > MAX_DIGITS:
                raise ValueError(f"the result of {left} ** {right} would have more than {MAX_DIGITS} digits")
            result = left ** right
            if isinstance(result, complex):
                raise ValueError("the result is not a real number")
            return result
        return _BIN_OPS[type(node.op)](left, right)
    raise ValueError(f"not allowed in an arithmetic expression: {type(node).__name__}")


def calculator(expression: str) -> float:
    """Evaluate an arithmetic expression: numbers, + - * / **, unary minus and parentheses.

    Args:
        expression: the arithmetic to work out, such as "3 + 5 * 2" or "-(2 ** 10) / 4"
    """
    if not isinstance(expression, str):
        raise ValueError("the expression must be text")
    try:
        tree = ast.parse(expression, mode="eval")
    except SyntaxError as exc:
        raise ValueError(f"not a valid expression: {exc.msg}") from None
    try:
        return _eval_node(tree.body)
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
