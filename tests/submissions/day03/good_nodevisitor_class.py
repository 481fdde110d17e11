# expect: full
# style: calculator is an ast.NodeVisitor subclass; parse_docstring is a small state machine that
# style: measures indentation itself; validate_arguments uses a dict of checker lambdas and f-strings.
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
    lines = inspect.cleandoc(doc or "").split("\n")
    state = "summary"
    summary_parts: list[str] = []
    params: dict[str, str] = {}
    args_indent = name_indent = None
    current = None
    for line in lines:
        stripped = line.strip()
        indent = len(line) - len(line.lstrip())
        if state == "summary":
            if stripped:
                summary_parts.append(stripped)
                continue
            state = "between"
            continue
        if state == "between":
            if stripped == "Args:":
                state, args_indent = "args", indent
            continue
        if state == "args":
            if not stripped or indent <= args_indent:
                state = "done"
                break
            if name_indent is None:
                name_indent = indent
            if indent == name_indent:
                key, sep, rest = stripped.partition(":")
                current = key.strip()
                params[current] = rest.strip()
            elif current:
                params[current] = params[current] + " " + stripped
    return " ".join(summary_parts), params


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

CHECKERS: dict[str, Callable[[object], bool]] = {
    "integer": lambda v: type(v) is int,
    "number": lambda v: type(v) in (int, float),
    "string": lambda v: type(v) is str,
    "boolean": lambda v: type(v) is bool,
    "array": lambda v: type(v) is list,
    "object": lambda v: type(v) is dict,
}


def validate_arguments(parameters: dict, arguments) -> list[str]:
    """TODO 1.3"""
    if not isinstance(arguments, dict):
        return [f"arguments must be an object mapping names to values, got {type(arguments).__name__}"]
    props = parameters.get("properties", {})
    errors = [f"missing required argument '{n}'" for n in parameters.get("required", []) if n not in arguments]
    errors += [f"unexpected argument '{n}' (allowed: {', '.join(props)})" for n in arguments if n not in props]
    for n, v in arguments.items():
        t = props.get(n, {}).get("type")
        if t in CHECKERS and not CHECKERS[t](v):
            errors.append(f"'{n}' should be {t}, got {type(v).__name__} {v!r}")
    return errors


# ---------------------------------------------------------------- TODO 1.4 run a tool, never raise

def run_tool(name: str, arguments: dict) -> ToolResult:
    """TODO 1.4"""
    try:
        func = TOOLS[name]
    except KeyError:
        return ToolResult(success=False, error=f"Unknown tool {name!r}. Known tools: {sorted(TOOLS)}")
    problems = validate_arguments(describe_tool(func)["function"]["parameters"], arguments)
    if problems:
        return ToolResult(success=False, error="Invalid arguments: " + "; ".join(problems))
    try:
        return ToolResult(success=True, output=func(**arguments))
    except Exception as exc:  # the tool's own failure goes to the model
        return ToolResult(success=False, error=f"{name} raised {exc.__class__.__name__}: {exc}")


# ---------------------------------------------------------------- TODO 1.5 the calculator

class _Arithmetic(ast.NodeVisitor):
    """Computes an expression tree, allowing numbers and + - * / ** only."""
    BIN = {ast.Add: operator.add, ast.Sub: operator.sub, ast.Mult: operator.mul,
           ast.Div: operator.truediv, ast.Pow: operator.pow}

    def visit_Expression(self, node):
        return self.visit(node.body)

    def visit_Constant(self, node):
        if isinstance(node.value, bool) or not isinstance(node.value, (int, float)):
            raise ValueError(f"not a number: {node.value!r}")
        return node.value

    def visit_UnaryOp(self, node):
        if isinstance(node.op, ast.USub):
            return -self.visit(node.operand)
        if isinstance(node.op, ast.UAdd):
            return self.visit(node.operand)
        raise ValueError("only unary + and - are allowed")

    def visit_BinOp(self, node):
        fn = self.BIN.get(type(node.op))
        if fn is None:
            raise ValueError(f"operator {type(node.op).__name__} is not allowed")
        left, right = self.visit(node.left), self.visit(node.right)
        if isinstance(node.op, ast.Div) and right == 0:
            raise ValueError("cannot divide by zero")
        if isinstance(node.op, ast.Pow):
            if left == 0 and right < 0:
                raise ValueError("cannot divide by zero (0 to a negative power)")
            if left != 0 and right * math.log10(abs(left)) > 100:
                raise ValueError("power too large: the result would have more than 100 digits")
        value = fn(left, right)
        if isinstance(value, complex):
            raise ValueError("result is not a real number")
        return value

    def generic_visit(self, node):
        raise ValueError(f"{type(node).__name__} is not allowed in an arithmetic expression")


def calculator(expression: str) -> float:
    """Evaluate an arithmetic expression: numbers, + - * / **, unary minus and parentheses.

    Args:
        expression: the arithmetic to work out, such as "3 + 5 * 2" or "-(2 ** 10) / 4"
    """
    try:
        tree = ast.parse(expression, mode="eval")
    except SyntaxError:
        raise ValueError(f"could not parse {expression!r} as arithmetic") from None
    try:
        return _Arithmetic().visit(tree)
    except (OverflowError, RecursionError) as exc:
        raise ValueError(f"too large to compute: {exc}") from None


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
