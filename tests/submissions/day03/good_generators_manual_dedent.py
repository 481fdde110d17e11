# expect: full
# style: no inspect.cleandoc (own margin); problems from three generators; calculator with lambda op table.
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
    if doc is None or not doc.strip():
        return ("", {})
    raw = doc.expandtabs().split("\n")
    # the first line has no indentation of its own; the others share the source's margin
    rest = [line for line in raw[1:] if line.strip()]
    margin = min((len(line) - len(line.lstrip()) for line in rest), default=0)
    lines = [raw[0].strip()] + [line[margin:].rstrip() for line in raw[1:]]
    while lines and not lines[0]:
        lines.pop(0)

    summary_words = []
    index = 0
    while index < len(lines) and lines[index].strip():
        summary_words.append(lines[index].strip())
        index += 1

    params = {}
    for index, line in enumerate(lines):
        if line.strip() != "Args:":
            continue
        outer = len(line) - len(line.lstrip())
        inner = None
        name = None
        for body in lines[index + 1:]:
            depth = len(body) - len(body.lstrip())
            if not body.strip() or depth <= outer:
                break
            inner = depth if inner is None else inner
            if depth == inner:
                name, _, text = body.strip().partition(":")
                params[name.strip()] = text.strip()
            elif name is not None:
                params[name.strip()] += " " + body.strip()
        break
    return " ".join(summary_words), params


def describe_tool(func: Callable) -> dict:
    """TODO 1.2 — the description of `func`."""
    table = {"int": "integer", "float": "number", "str": "string", "bool": "boolean", "list": "array",
             "dict": "object"}
    summary, described = parse_docstring(func.__doc__)
    hints = typing.get_type_hints(func)
    parameters = inspect.signature(func).parameters
    schema = {"type": "object", "properties": {}, "required": [], "additionalProperties": False}
    for pname, param in parameters.items():
        hint = hints.get(pname)
        if getattr(hint, "__name__", None) not in table or typing.get_origin(hint) is not None:
            raise TypeError(f"parameter {pname}: cannot map {hint!r} to a JSON type")
        schema["properties"][pname] = {"type": table[hint.__name__]}
        if pname in described:
            schema["properties"][pname]["description"] = described[pname]
        if param.default is param.empty:
            schema["required"].append(pname)
    return dict(type="function", function=dict(name=func.__name__, description=summary, parameters=schema))


def _missing(parameters, arguments):
    for name in parameters.get("required", []):
        if name not in arguments:
            yield f"the required argument '{name}' was not given"


def _unknown(parameters, arguments):
    known = parameters.get("properties", {})
    for name in arguments:
        if name not in known:
            yield f"'{name}' is not an argument of this tool; it takes: {', '.join(known)}"


def _wrong_types(parameters, arguments):
    accepted = {"integer": int, "number": (int, float), "string": str, "boolean": bool, "array": list,
                "object": dict}
    for name, value in arguments.items():
        spec = parameters.get("properties", {}).get(name)
        if not spec or spec.get("type") not in accepted:
            continue
        expected = spec["type"]
        is_bool = isinstance(value, bool)
        if (expected == "boolean") != is_bool or not isinstance(value, accepted[expected]):
            yield f"'{name}' should be of type {expected}; {json.dumps(value, default=repr)} is not"


def validate_arguments(parameters: dict, arguments) -> list[str]:
    """TODO 1.3 — every problem of `arguments` against `parameters`."""
    if not isinstance(arguments, dict):
        return [f"the arguments are not a JSON object: {arguments!r}"]
    return [*_missing(parameters, arguments), *_unknown(parameters, arguments),
            *_wrong_types(parameters, arguments)]


def run_tool(name: str, arguments: dict) -> ToolResult:
    """TODO 1.4 — run the tool `name` of TOOLS."""
    function = TOOLS.get(name) if isinstance(name, str) else None
    if function is None:
        return ToolResult(False, error=f"{name!r} is not among the tools ({', '.join(TOOLS)})")
    try:
        problems = validate_arguments(describe_tool(function)["function"]["parameters"], arguments)
    except Exception as error:  # never let the agent crash
        problems = [f"the arguments could not be checked ({error})"]
    if problems:
        return ToolResult(False, error=f"did not call {name}: " + "; ".join(problems))
    try:
        output = function(**arguments)
    except Exception as error:
        return ToolResult(False, error=f"{name}({json.dumps(arguments, default=str)}) raised: {error}")
    return ToolResult(True, output=output)


_OPS = {
    ast.Add: lambda a, b: a + b,
    ast.Sub: lambda a, b: a - b,
    ast.Mult: lambda a, b: a * b,
    ast.Div: lambda a, b: a / b,
    ast.Pow: lambda a, b: a ** b,
}


def calculator(expression: str) -> float:
    """Evaluate an arithmetic expression: numbers, + - * / **, a sign (+ or -) before a number, parentheses.

    Args:
        expression: the arithmetic to work out, such as "3 + 5 * 2" or "-(2 ** 10) / 4"
    """
    def walk(node):
        if type(node) is ast.Constant:
            if type(node.value) in (int, float):
                return node.value
            raise ValueError(f"{node.value!r} is not a number")
        if type(node) is ast.UnaryOp:
            if type(node.op) is ast.USub:
                return -walk(node.operand)
            if type(node.op) is ast.UAdd:
                return walk(node.operand)
            raise ValueError(f"the operator {type(node.op).__name__} is not allowed")
        if type(node) is ast.BinOp:
            if type(node.op) not in _OPS:
                raise ValueError(f"the operator {type(node.op).__name__} is not allowed")
            left, right = walk(node.left), walk(node.right)
            if type(node.op) is ast.Div and right == 0:
                raise ValueError(f"division by zero in {ast.unparse(node)}")
            if type(node.op) is ast.Pow:
                if left == 0 and right < 0:
                    raise ValueError("division by zero: 0 raised to a negative power")
                if left != 0 and right * math.log10(abs(left)) > 100:
                    raise ValueError(f"{ast.unparse(node)} has over 100 digits: too large")
                value = _OPS[ast.Pow](left, right)
                if isinstance(value, complex):
                    raise ValueError("a fractional power of a negative number is not a real number")
                return value
            return _OPS[type(node.op)](left, right)
        raise ValueError(f"{type(node).__name__} is not arithmetic")

    try:
        tree = ast.parse(expression, mode="eval")
    except (SyntaxError, ValueError) as error:  # ValueError: a null character in the text
        raise ValueError(f"not a valid expression: {error}") from None
    return walk(tree.body)


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
