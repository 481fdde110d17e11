# expect: full
# style: parse_docstring returns a typing.NamedTuple (summary, params), a tuple with field names; otherwise the reference solution
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
from typing import Callable, NamedTuple


class Docstring(NamedTuple):
    """A docstring as read: its summary, and each parameter's text by name."""
    summary: str
    params: dict[str, str]


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
    if doc is None:
        return Docstring("", {})
    lines = inspect.cleandoc(doc).splitlines()
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
    return Docstring(" ".join(summary), params)


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
    """TODO 1.3 — every problem of `arguments` against `parameters` (a schema as describe_tool
    writes them), one message each, naming the argument; [] when there is none.

    Problems: arguments that are not a dict; a required argument missing; an argument the schema
    does not know; a value of the wrong JSON type. JSON's types, not Python's: True is a boolean,
    not an integer; 3 is a number as well as an integer.
    """
    if not isinstance(arguments, dict):
        return [f"the arguments must be a JSON object of name: value, not {json.dumps(arguments)}"]
    of_type = {
        "integer": lambda v: isinstance(v, int) and not isinstance(v, bool),
        "number": lambda v: isinstance(v, (int, float)) and not isinstance(v, bool),
        "string": lambda v: isinstance(v, str),
        "boolean": lambda v: isinstance(v, bool),
        "array": lambda v: isinstance(v, list),
        "object": lambda v: isinstance(v, dict),
    }
    properties = parameters.get("properties", {})
    problems = [f"the argument {name!r} is missing" for name in parameters.get("required", [])
                if name not in arguments]
    for name, value in arguments.items():
        expected = properties.get(name, {}).get("type")
        if name not in properties:
            problems.append(f"there is no argument {name!r}; the arguments are: {', '.join(properties)}")
        elif expected in of_type and not of_type[expected](value):
            problems.append(f"the argument {name!r} must be of type {expected}, "
                            f"not {json.dumps(value, default=repr)}")
    return problems


# ---------------------------------------------------------------- TODO 1.4 run a tool, never raise

def run_tool(name: str, arguments: dict) -> ToolResult:
    """TODO 1.4 — run the tool `name` of TOOLS on `arguments`, the way a model asked for it.

    Checked first: an unknown tool, or arguments that validate_arguments finds problems with,
    give ToolResult(False, error=…) and the function is not called. Otherwise call it with
    **arguments: ToolResult(True, output=what it returned), or, if it raises,
    ToolResult(False, error=…) with the exception's message. Never raises itself.
    """
    func = TOOLS.get(name)
    if func is None:
        return ToolResult(False, error=f"there is no tool {name!r}; the tools are: {', '.join(TOOLS)}")
    try:
        problems = validate_arguments(describe_tool(func)["function"]["parameters"], arguments)
        if problems:
            return ToolResult(False, error=f"{name} was not called: {'; '.join(problems)}")
        return ToolResult(True, output=func(**arguments))
    except Exception as error:
        return ToolResult(False, error=f"{name} failed: {type(error).__name__}: {error}")


# ---------------------------------------------------------------- TODO 1.5 the calculator

def calculator(expression: str) -> float:
    """Evaluate an arithmetic expression: numbers, + - * / **, a sign (+ or -) before a number, parentheses.

    Args:
        expression: the arithmetic to work out, such as "3 + 5 * 2" or "-(2 ** 10) / 4"
    """
    # TODO 1.5 — walk the expression's syntax tree (ast.parse(expression, mode="eval")); never
    # eval() it, which would run any code the model sends. Return an int or a float. Raise
    # ValueError, with the reason, for everything else: names, calls, attributes, strings, an
    # expression that does not parse, a division by zero, a power whose result would have more
    # than 100 digits (work that out before computing it).
    operators = {ast.Add: operator.add, ast.Sub: operator.sub, ast.Mult: operator.mul,
                 ast.Div: operator.truediv, ast.Pow: operator.pow}

    def number(node: ast.AST) -> int | float:
        if isinstance(node, ast.Constant) and type(node.value) in (int, float):
            return node.value
        if isinstance(node, ast.UnaryOp) and isinstance(node.op, (ast.USub, ast.UAdd)):
            value = number(node.operand)
            return -value if isinstance(node.op, ast.USub) else value
        if isinstance(node, ast.BinOp) and type(node.op) in operators:
            left, right = number(node.left), number(node.right)
            if isinstance(node.op, ast.Div) and right == 0:
                raise ValueError("division by zero")
            # a ** b has about b * log10(|a|) digits: refuse it before Python spends hours on it
            if isinstance(node.op, ast.Pow) and left != 0 and right * math.log10(abs(left)) > 100:
                raise ValueError(f"{ast.unparse(node)} is too large: more than 100 digits")
            result = operators[type(node.op)](left, right)
            if isinstance(result, complex):
                raise ValueError(f"{ast.unparse(node)} is not a real number")
            return result
        raise ValueError(f"only numbers, + - * / ** and parentheses are allowed, not {ast.unparse(node)!r}")

    try:
        tree = ast.parse(expression.strip(), mode="eval")
    except SyntaxError:
        raise ValueError(f"not an arithmetic expression: {expression!r}") from None
    except (RecursionError, MemoryError):  # text nested thousands deep, such as '-' * 5000 + '1'
        raise ValueError("the expression is nested too deeply") from None
    try:
        result = number(tree.body)
    except ZeroDivisionError:  # 0 ** -1
        raise ValueError("division by zero") from None
    except (OverflowError, RecursionError):
        raise ValueError("the expression or its result is too large") from None
    if isinstance(result, float) and not math.isfinite(result):
        raise ValueError("the result is too large")
    return result


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
