# expect: full
# style: parse_docstring with index loops and str.split(':', 1); describe_tool with a list of
# style: (class, word) pairs checked with `is`; validate_arguments names types by their Python words.
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
    """TODO 1.1"""
    if not doc:
        return ("", {})
    lines = inspect.cleandoc(doc).splitlines()
    i = 0
    summary = []
    while i < len(lines) and lines[i].strip():
        summary.append(lines[i].strip())
        i += 1
    args = {}
    stripped = [l.strip() for l in lines]
    if "Args:" in stripped:
        j = stripped.index("Args:")
        base = len(lines[j]) - len(lines[j].lstrip())
        j += 1
        first = None
        name = None
        while j < len(lines):
            line = lines[j]
            ind = len(line) - len(line.lstrip())
            if line.strip() == "" or ind <= base:
                break
            first = ind if first is None else first
            if ind == first:
                parts = line.strip().split(":", 1)
                name = parts[0].strip()
                args[name] = parts[1].strip() if len(parts) > 1 else ""
            else:
                args[name] += " " + line.strip()
            j += 1
    return (" ".join(summary), args)


# ---------------------------------------------------------------- TODO 1.2 describe a function

JSON_NAMES = [(bool, "boolean"), (int, "integer"), (float, "number"), (str, "string"),
              (list, "array"), (dict, "object")]


def json_type_of(annotation) -> str:
    for cls, word in JSON_NAMES:
        if annotation is cls:
            return word
    raise TypeError(f"no JSON type for {annotation!r}")


def describe_tool(func: Callable) -> dict:
    """TODO 1.2"""
    summary, docs = parse_docstring(func.__doc__)
    sig = inspect.signature(func)
    hints = typing.get_type_hints(func)
    properties = {n: {"type": json_type_of(hints.get(n)), "description": docs.get(n, n)}
                  for n in sig.parameters}
    required = [n for n, p in sig.parameters.items() if p.default is p.empty]
    return {"type": "function",
            "function": {"name": func.__name__, "description": summary,
                         "parameters": {"type": "object", "properties": properties,
                                        "required": required, "additionalProperties": False}}}


# ---------------------------------------------------------------- TODO 1.3 check the arguments

PY_WORD = {"integer": "int", "number": "float", "string": "str", "boolean": "bool", "array": "list",
           "object": "dict"}


def _fits(value, json_type: str) -> bool:
    if json_type == "boolean":
        return isinstance(value, bool)
    if isinstance(value, bool):
        return False
    if json_type == "integer":
        return isinstance(value, int)
    if json_type == "number":
        return isinstance(value, (int, float))
    return isinstance(value, {"string": str, "array": list, "object": dict}[json_type])


def validate_arguments(parameters: dict, arguments) -> list[str]:
    """TODO 1.3"""
    if type(arguments) is not dict:
        return ["arguments: expected a dict of name -> value"]
    properties = parameters["properties"]
    out = []
    for req in parameters.get("required", ()):
        if req not in arguments:
            out.append(f"{req}: required but not given")
    for key in arguments:
        if key not in properties:
            out.append(f"{key}: not a parameter of this tool (parameters: {', '.join(properties)})")
        else:
            t = properties[key].get("type")
            if t in PY_WORD and not _fits(arguments[key], t):
                out.append(f"{key}: expected {PY_WORD[t]}, got {arguments[key]!r}")
    return out


# ---------------------------------------------------------------- TODO 1.4 run a tool, never raise

def run_tool(name: str, arguments: dict) -> ToolResult:
    """TODO 1.4"""
    if name not in TOOLS:
        return ToolResult(False, None, f"no tool named {name}; choose from {', '.join(TOOLS)}")
    fn = TOOLS[name]
    issues = validate_arguments(describe_tool(fn)["function"]["parameters"], arguments)
    if len(issues) > 0:
        return ToolResult(False, None, f"{name} not run. Problems: " + " | ".join(issues))
    try:
        out = fn(**arguments)
    except Exception as err:
        return ToolResult(False, None, f"{name} failed: {err}")
    else:
        return ToolResult(True, out, "")


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
