# expect: full
# style: compact comprehension-heavy code, messages prefixed "Error:", describe_tool through a helper
# style: that builds one property; calculator turns every non-ValueError into ValueError at the top.
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

TYPE_WORDS = {int: "integer", float: "number", str: "string", bool: "boolean", list: "array", dict: "object"}


def _property(annotation, text: str) -> dict:
    if annotation not in TYPE_WORDS:
        raise TypeError(f"unsupported annotation {annotation!r}")
    return {"type": TYPE_WORDS[annotation], "description": text}


def describe_tool(func: Callable) -> dict:
    """TODO 1.2"""
    summary, texts = parse_docstring(func.__doc__)
    hints, params = typing.get_type_hints(func), inspect.signature(func).parameters
    return {"type": "function", "function": {
        "name": func.__name__, "description": summary,
        "parameters": {"type": "object",
                       "properties": {n: _property(hints.get(n), texts.get(n, "")) for n in params},
                       "required": [n for n, p in params.items() if p.default is inspect.Parameter.empty],
                       "additionalProperties": False}}}


# ---------------------------------------------------------------- TODO 1.3 check the arguments

def validate_arguments(parameters: dict, arguments) -> list[str]:
    """TODO 1.3"""
    if not isinstance(arguments, dict):
        return [f"Error: arguments should be a JSON object, but got {arguments!r}"]
    props, req = parameters.get("properties", {}), parameters.get("required", [])
    is_type = {"integer": lambda v: isinstance(v, int) and not isinstance(v, bool),
               "number": lambda v: isinstance(v, (int, float)) and not isinstance(v, bool),
               "string": lambda v: isinstance(v, str), "boolean": lambda v: isinstance(v, bool),
               "array": lambda v: isinstance(v, list), "object": lambda v: isinstance(v, dict)}
    return ([f"Error: missing argument {n}" for n in req if n not in arguments]
            + [f"Error: unknown argument {n}" for n in arguments if n not in props]
            + [f"Error: argument {n} has to be a(n) {props[n]['type']}, was {v!r}" for n, v in arguments.items()
               if n in props and props[n].get("type") in is_type and not is_type[props[n]["type"]](v)])


# ---------------------------------------------------------------- TODO 1.4 run a tool, never raise

def run_tool(name: str, arguments: dict) -> ToolResult:
    """TODO 1.4"""
    if name not in TOOLS:
        return ToolResult(False, error=f"Error: {name} is not a tool I have. Tools: {', '.join(TOOLS)}")
    try:
        problems = validate_arguments(describe_tool(TOOLS[name])["function"]["parameters"], arguments)
        if problems:
            return ToolResult(False, error="; ".join(problems))
        return ToolResult(True, TOOLS[name](**arguments))
    except Exception as e:
        return ToolResult(False, error=f"Error: {name}: {e}")


# ---------------------------------------------------------------- TODO 1.5 the calculator

def calculator(expression: str) -> float:
    """Evaluate an arithmetic expression: numbers, + - * / **, unary minus and parentheses.

    Args:
        expression: the arithmetic to work out, such as "3 + 5 * 2" or "-(2 ** 10) / 4"
    """
    ops = {ast.Add: operator.add, ast.Sub: operator.sub, ast.Mult: operator.mul,
           ast.Div: operator.truediv, ast.Pow: operator.pow}

    def ev(n):
        if type(n) is ast.Constant and type(n.value) in (int, float):
            return n.value
        if type(n) is ast.UnaryOp and type(n.op) in (ast.USub, ast.UAdd):
            return -ev(n.operand) if type(n.op) is ast.USub else ev(n.operand)
        if type(n) is ast.BinOp and type(n.op) in ops:
            a, b = ev(n.left), ev(n.right)
            if type(n.op) is ast.Pow and a not in (0, 1, -1) and b * math.log10(abs(a)) > 100:
                raise ValueError("Error: power too large (over 100 digits)")
            return ops[type(n.op)](a, b)
        raise ValueError(f"Error: not allowed: {ast.dump(n)[:60]}")

    try:
        result = ev(ast.parse(expression, mode="eval").body)
    except ValueError:
        raise
    except ZeroDivisionError:
        raise ValueError("Error: division by zero") from None
    except SyntaxError:
        raise ValueError("Error: that is not an arithmetic expression") from None
    except Exception as other:
        raise ValueError(f"Error: cannot compute: {other}") from None
    if isinstance(result, complex):
        raise ValueError("Error: not a real number")
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
