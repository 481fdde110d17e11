# expect: full
# style: a Toolbox class runs the tools and checks values by their exact type (type(True) is bool,
# style: never int); describe_tool reads func.__code__, __defaults__ and __annotations__ instead of
# style: inspect; parse_docstring uses textwrap.dedent and itertools.takewhile; the calculator is a
# style: dispatch table with an exponent cap and a bit_length estimate for powers of integers.
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
import itertools
import textwrap
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


class Toolbox:
    """The tools a model may call, and the rules their arguments must follow."""
    JSON = {int: "integer", float: "number", str: "string", bool: "boolean", list: "array", dict: "object"}
    EXACT = {"integer": (int,), "number": (int, float), "string": (str,), "boolean": (bool,),
             "array": (list,), "object": (dict,)}

    def __init__(self, tools: dict):
        self.tools = tools

    @classmethod
    def problems(cls, parameters: dict, arguments) -> list[str]:
        if type(arguments) is not dict:
            return [f"arguments must be an object, not {type(arguments).__name__}"]
        properties = parameters.get("properties", {})
        found = [f"'{name}' is required" for name in parameters.get("required", []) if name not in arguments]
        for name, value in arguments.items():
            if name not in properties:
                found.append(f"'{name}' is not a parameter (known: {', '.join(properties)})")
            elif type(value) not in cls.EXACT.get(properties[name].get("type"), (type(value),)):
                found.append(f"'{name}' should be {properties[name]['type']}, got {type(value).__name__}")
        return found

    def run(self, name: str, arguments) -> ToolResult:
        if name not in self.tools:
            return ToolResult(False, error=f"no such tool: '{name}'")
        func = self.tools[name]
        found = self.problems(describe_tool(func)["function"]["parameters"], arguments)
        if found:
            return ToolResult(False, error=" / ".join(found))
        try:
            return ToolResult(True, output=func(**arguments))
        except Exception as error:
            return ToolResult(False, error=f"{name} raised {type(error).__name__}: {error}")


# ---------------------------------------------------------------- TODO 1.1 read a docstring

def parse_docstring(doc: str | None) -> tuple[str, dict[str, str]]:
    """TODO 1.1 — a docstring as (summary, {parameter name: its description}).

    The summary is the first paragraph, its lines joined with single spaces. The parameters come
    from the "Args:" section: one "name: description" line each (split at the first colon only);
    a line indented deeper than the names continues the description above it. The section ends at
    a blank line or at the next section ("Returns:", "Raises:", …). `doc` is the docstring as
    written, indentation and all (func.__doc__), or None: then ("", {}).
    """
    if not doc:
        return "", {}
    first, _, rest = doc.partition("\n")
    lines = [first.strip(), *textwrap.dedent(rest).splitlines()]
    while lines and not lines[0].strip():
        lines.pop(0)
    summary = " ".join(line.strip() for line in itertools.takewhile(str.strip, lines))
    params: dict[str, str] = {}
    if "Args:" in lines:
        block = itertools.takewhile(lambda line: line.startswith((" ", "\t")),
                                    lines[lines.index("Args:") + 1:])
        for line in block:
            if line.startswith("        ") and params:
                last = next(reversed(params))
                params[last] += " " + line.strip()
            else:
                name, _, text = line.strip().partition(":")
                params[name] = text.strip()
    return summary, params


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
    code = func.__code__
    names = code.co_varnames[:code.co_argcount]
    first_optional = len(names) - len(func.__defaults__ or ())
    summary, documented = parse_docstring(func.__doc__)
    properties = {}
    for name in names:
        properties[name] = {"type": Toolbox.JSON[func.__annotations__[name]]}
        if name in documented:
            properties[name]["description"] = documented[name]
    return {
        "type": "function",
        "function": {
            "name": func.__name__,
            "description": summary,
            "parameters": {
                "type": "object",
                "properties": properties,
                "required": list(names[:first_optional]),
                "additionalProperties": False,
            },
        },
    }


# ---------------------------------------------------------------- TODO 1.3 check the arguments

def validate_arguments(parameters: dict, arguments) -> list[str]:
    """TODO 1.3 — every problem of `arguments` against `parameters` (a schema as describe_tool
    writes them), one message each, naming the argument; [] when there is none.

    Problems: arguments that are not a dict; a required argument missing; an argument the schema
    does not know; a value of the wrong JSON type. JSON's types, not Python's: True is a boolean,
    not an integer; 3 is a number as well as an integer.
    """
    return Toolbox.problems(parameters, arguments)


# ---------------------------------------------------------------- TODO 1.4 run a tool, never raise

def run_tool(name: str, arguments: dict) -> ToolResult:
    """TODO 1.4 — run the tool `name` of TOOLS on `arguments`, the way a model asked for it.

    Checked first: an unknown tool, or arguments that validate_arguments finds problems with,
    give ToolResult(False, error=…) and the function is not called. Otherwise call it with
    **arguments: ToolResult(True, output=what it returned), or, if it raises,
    ToolResult(False, error=…) with the exception's message. Never raises itself.
    """
    return Toolbox(TOOLS).run(name, arguments)


# ---------------------------------------------------------------- TODO 1.5 the calculator

def calculator(expression: str) -> float:
    """Evaluate an arithmetic expression: numbers, + - * / **, unary minus and parentheses.

    Args:
        expression: the arithmetic to work out, such as "3 + 5 * 2" or "-(2 ** 10) / 4"
    """
    # TODO 1.5 — walk the expression's syntax tree (ast.parse(expression, mode="eval")); never
    # eval() it, which would run any code the model sends. Return an int or a float. Raise
    # ValueError, with the reason, for everything else: names, calls, attributes, strings, an
    # expression that does not parse, a division by zero, a power whose result would have more
    # than 100 digits (work that out before computing it).
    ops = {ast.Add: operator.add, ast.Sub: operator.sub, ast.Mult: operator.mul,
           ast.Div: operator.truediv, ast.Pow: operator.pow}

    def ev(node):
        if isinstance(node, ast.Constant) and type(node.value) in (int, float):
            return node.value
        if isinstance(node, ast.UnaryOp) and type(node.op) in (ast.USub, ast.UAdd):
            value = ev(node.operand)
            return -value if type(node.op) is ast.USub else value
        if isinstance(node, ast.BinOp) and type(node.op) in ops:
            a, b = ev(node.left), ev(node.right)
            if type(node.op) is ast.Pow:
                if abs(b) > 100:
                    raise ValueError("exponents above 100 are not allowed")
                if isinstance(a, int) and a.bit_length() * b > 400:
                    raise ValueError("the result would be over 120 digits long")
            try:
                result = ops[type(node.op)](a, b)
                if type(result) is complex:
                    raise ValueError(f"{ast.unparse(node)} has no real value")
                return result
            except ZeroDivisionError:
                raise ValueError("division by zero") from None
            except OverflowError:
                raise ValueError("the result is too large") from None
        raise ValueError(f"{ast.unparse(node)} is not arithmetic")

    try:
        return ev(ast.parse(expression, mode="eval").body)
    except SyntaxError:
        raise ValueError("could not parse the expression") from None


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
