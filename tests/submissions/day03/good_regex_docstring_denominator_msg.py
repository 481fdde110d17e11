# expect: full
# style: regex docstring reading; a class of do_<Node> handlers for the calculator; division by zero said as
# style: 'cannot divide: the denominator is 0'.
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


_PARAM_LINE = re.compile(r"^(?P<indent>\s+)(?P<name>\w+)\s*:\s?(?P<text>.*)$")


def parse_docstring(doc: str | None) -> tuple[str, dict[str, str]]:
    """TODO 1.1 — a docstring as (summary, {parameter name: its description})."""
    cleaned = inspect.cleandoc(doc or "")
    if not cleaned:
        return "", {}
    paragraphs = re.split(r"\n\s*\n", cleaned)
    summary = re.sub(r"\s*\n\s*", " ", paragraphs[0].strip())
    lines = cleaned.splitlines()
    params: dict[str, str] = {}
    try:
        start = [line.strip() for line in lines].index("Args:")
    except ValueError:
        return summary, params
    section_indent = len(lines[start]) - len(lines[start].lstrip())
    name_indent = None
    current = None
    for line in lines[start + 1:]:
        if not line.strip():
            break
        indent = len(line) - len(line.lstrip())
        if indent <= section_indent:
            break
        if name_indent is None:
            name_indent = indent
        match = _PARAM_LINE.match(line)
        if indent == name_indent and match:
            current = match.group("name")
            params[current] = match.group("text").strip()
        elif current:
            params[current] = f"{params[current]} {line.strip()}"
    return summary, params


def describe_tool(func: Callable) -> dict:
    """TODO 1.2 — the description of `func`."""
    names_for = {"int": "integer", "float": "number", "str": "string", "bool": "boolean",
                 "list": "array", "dict": "object"}
    description, docs = parse_docstring(inspect.getdoc(func) if func.__doc__ else None)
    hints = typing.get_type_hints(func)
    sig = inspect.signature(func)
    props = {
        p.name: {"type": names_for[hints[p.name].__name__], "description": docs.get(p.name, "")}
        for p in sig.parameters.values()
    }
    required = [p.name for p in sig.parameters.values() if p.default is p.empty]
    return {"type": "function",
            "function": {"name": func.__name__, "description": description,
                         "parameters": {"type": "object", "properties": props, "required": required,
                                        "additionalProperties": False}}}


PYTHON_CLASSES = {"integer": (int,), "number": (int, float), "string": (str,), "boolean": (bool,),
                  "array": (list,), "object": (dict,)}


def validate_arguments(parameters: dict, arguments) -> list[str]:
    """TODO 1.3 — every problem of `arguments` against `parameters`."""
    if not isinstance(arguments, dict):
        return [f"arguments must be a JSON object, but {type(arguments).__name__} was given"]
    properties = parameters.get("properties", {})
    missing = [f"missing argument: {n}" for n in parameters.get("required", []) if n not in arguments]
    unknown = [f"unknown argument: {n} (known: {', '.join(properties) or 'none'})"
               for n in arguments if n not in properties]
    wrong = []
    for n, v in arguments.items():
        if n not in properties:
            continue
        t = properties[n].get("type")
        classes = PYTHON_CLASSES.get(t)
        if classes is None:
            continue
        if (isinstance(v, bool) and t != "boolean") or not isinstance(v, classes):
            wrong.append(f"wrong type for {n}: expected {t}, got {json.dumps(v, default=str)}")
    return missing + unknown + wrong


def run_tool(name: str, arguments: dict) -> ToolResult:
    """TODO 1.4 — run the tool `name` of TOOLS."""
    func = TOOLS.get(name)
    if func is None:
        return ToolResult(False, error=f"No tool named {name!r}. Choose one of: {', '.join(sorted(TOOLS))}.")
    try:
        problems = validate_arguments(describe_tool(func)["function"]["parameters"], arguments)
        if problems:
            return ToolResult(False, error="; ".join(problems) + f" — {name} was not run")
        return ToolResult(True, output=func(**arguments))
    except Exception as e:  # the tool's own failure, reported to the model
        return ToolResult(False, error=str(e) or type(e).__name__)


class _Arithmetic:
    """Computes an expression's syntax tree, node by node, for the allowed nodes only."""

    def run(self, node):
        handler = getattr(self, "do_" + type(node).__name__, None)
        if handler is None:
            raise ValueError(f"{type(node).__name__} is not allowed in an arithmetic expression")
        return handler(node)

    def do_Expression(self, node):
        return self.run(node.body)

    def do_Constant(self, node):
        if type(node.value) not in (int, float):
            raise ValueError(f"only numbers are allowed, not {node.value!r}")
        return node.value

    def do_UnaryOp(self, node):
        operand = self.run(node.operand)
        if isinstance(node.op, ast.USub):
            return -operand
        if isinstance(node.op, ast.UAdd):
            return +operand
        raise ValueError(f"the operator {type(node.op).__name__} is not allowed")

    def do_BinOp(self, node):
        left, right = self.run(node.left), self.run(node.right)
        op = node.op
        if isinstance(op, ast.Add):
            return left + right
        if isinstance(op, ast.Sub):
            return left - right
        if isinstance(op, ast.Mult):
            return left * right
        if isinstance(op, ast.Div):
            if right == 0:
                raise ValueError("cannot divide: the denominator is 0")
            return left / right
        if isinstance(op, ast.Pow):
            if left == 0 and right < 0:
                raise ValueError("cannot divide: the denominator is 0")
            if left != 0 and right * math.log10(abs(left)) > 100:
                raise ValueError("this power has more than 100 digits")
            result = left ** right
            if isinstance(result, complex):
                raise ValueError("a negative number to a fractional power is not real")
            return result
        raise ValueError(f"the operator {type(op).__name__} is not allowed")


def calculator(expression: str) -> float:
    """Evaluate an arithmetic expression: numbers, + - * / **, a sign (+ or -) before a number, parentheses.

    Args:
        expression: the arithmetic to work out, such as "3 + 5 * 2" or "-(2 ** 10) / 4"
    """
    try:
        tree = ast.parse(expression, mode="eval")
    except SyntaxError:
        raise ValueError(f"{expression!r} is not an arithmetic expression")
    try:
        return _Arithmetic().run(tree)
    except OverflowError:
        raise ValueError("the result is too large")


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
