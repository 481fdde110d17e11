# expect: full
# style: lru_cache'd schema copied per call; Python type words in messages; newline-listed errors; a calculator
# style: that computes in floats and gives whole results back as int.
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
import functools


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
    text = inspect.cleandoc(doc) if doc else ""
    lines = text.splitlines()
    # summary: up to the first blank line
    end = lines.index("") if "" in lines else len(lines)
    summary = " ".join(part.strip() for part in lines[:end])

    params: dict[str, str] = {}
    in_args = False
    args_at = name_at = -1
    current = ""
    for line in lines[end:]:
        width = len(line) - len(line.lstrip())
        if not in_args:
            if line.strip() == "Args:":
                in_args, args_at = True, width
            continue
        if line.strip() == "" or width <= args_at:
            break
        if name_at < 0:
            name_at = width
        if width == name_at:
            current, _, rest = line.strip().partition(":")
            params[current] = rest.strip()
        elif current:
            params[current] = " ".join([params[current], line.strip()])
    return summary, params


_TYPE_WORDS = [(bool, "boolean"), (int, "integer"), (float, "number"), (str, "string"), (list, "array"),
               (dict, "object")]


@functools.lru_cache(maxsize=None)
def _schema_of(func) -> dict:
    summary, docs = parse_docstring(func.__doc__)
    hints = typing.get_type_hints(func)
    properties, required = {}, []
    for name, parameter in inspect.signature(func).parameters.items():
        word = next((w for cls, w in _TYPE_WORDS if hints.get(name) is cls), None)
        if word is None:
            raise TypeError(f"{name}: unsupported annotation {hints.get(name)!r}")
        properties[name] = {"type": word}
        if docs.get(name):
            properties[name]["description"] = docs[name]
        if parameter.default is inspect.Parameter.empty:
            required.append(name)
    return {"type": "function",
            "function": {"name": func.__name__, "description": summary,
                         "parameters": {"type": "object", "properties": properties, "required": required,
                                        "additionalProperties": False}}}


def describe_tool(func: Callable) -> dict:
    """TODO 1.2 — the description of `func`."""
    return json.loads(json.dumps(_schema_of(func)))  # a fresh copy: callers may change theirs


def validate_arguments(parameters: dict, arguments) -> list[str]:
    """TODO 1.3 — every problem of `arguments` against `parameters`."""
    if not isinstance(arguments, dict):
        return [f"arguments: expected a dict (JSON object), got {type(arguments).__name__}"]
    python_word = {"integer": "int", "number": "float", "string": "str", "boolean": "bool", "array": "list",
                   "object": "dict"}
    props = parameters.get("properties", {})
    out: list[str] = []
    for name in parameters.get("required", []):
        if name not in arguments:
            out.append(f"'{name}' is required")
    for name, value in arguments.items():
        spec = props.get(name)
        if spec is None:
            out.append(f"'{name}' is not a known parameter (known: {sorted(props)})")
            continue
        expected = spec.get("type")
        if expected == "boolean":
            ok = isinstance(value, bool)
        elif isinstance(value, bool):
            ok = False
        elif expected == "integer":
            ok = isinstance(value, int)
        elif expected == "number":
            ok = isinstance(value, (int, float))
        elif expected == "string":
            ok = isinstance(value, str)
        elif expected == "array":
            ok = isinstance(value, list)
        elif expected == "object":
            ok = isinstance(value, dict)
        else:
            ok = True
        if not ok:
            out.append(f"'{name}' must be {python_word.get(expected, expected)}, "
                       f"not {type(value).__name__} ({value!r})")
    return out


def run_tool(name: str, arguments: dict) -> ToolResult:
    """TODO 1.4 — run the tool `name` of TOOLS."""
    if name not in TOOLS:
        known = "\n".join(f"- {tool}" for tool in TOOLS)
        return ToolResult(success=False, error=f"'{name}' is unknown. Available tools:\n{known}")
    func = TOOLS[name]
    try:
        problems = validate_arguments(describe_tool(func)["function"]["parameters"], arguments)
        if problems:
            return ToolResult(success=False,
                              error=f"{name} was not run:\n" + "\n".join(f"- {p}" for p in problems))
        output = func(**arguments)
    except Exception as exc:
        return ToolResult(success=False, error=f"{name}: {exc.__class__.__name__}: {exc}")
    return ToolResult(success=True, output=output)


def calculator(expression: str) -> float:
    """Evaluate an arithmetic expression: numbers, + - * / **, a sign (+ or -) before a number, parentheses.

    Args:
        expression: the arithmetic to work out, such as "3 + 5 * 2" or "-(2 ** 10) / 4"
    """
    def ev(node) -> float:
        if isinstance(node, ast.Constant) and type(node.value) in (int, float):
            return float(node.value)
        if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.USub):
            return -ev(node.operand)
        if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.UAdd):
            return ev(node.operand)
        if isinstance(node, ast.BinOp):
            x, y = ev(node.left), ev(node.right)
            if isinstance(node.op, ast.Add):
                return x + y
            if isinstance(node.op, ast.Sub):
                return x - y
            if isinstance(node.op, ast.Mult):
                return x * y
            if isinstance(node.op, ast.Div):
                if y == 0:
                    raise ValueError("division by zero")
                return x / y
            if isinstance(node.op, ast.Pow):
                if x == 0:
                    if y < 0:
                        raise ValueError("division by zero: 0 to a negative power")
                    return 0.0 if y > 0 else 1.0
                if y * math.log10(abs(x)) > 100:
                    raise ValueError("power too big: over 100 digits")
                if x < 0 and not y.is_integer():
                    raise ValueError("a negative base needs a whole exponent")
                return x ** y
        raise ValueError(f"{ast.dump(node)[:40]}… is not arithmetic")

    try:
        parsed = ast.parse(expression, mode="eval")
    except SyntaxError:
        raise ValueError(f"syntax error in {expression!r}") from None
    result = ev(parsed.body)
    return int(result) if result.is_integer() and abs(result) < 2 ** 53 else result


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
