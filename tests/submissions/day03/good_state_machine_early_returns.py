# expect: full
# style: a state machine over the docstring's lines; explicit if-chain type tests; early returns in run_tool;
# style: a module-level recursive evaluator with op tables.
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
    if doc is None:
        return "", {}
    text = inspect.cleandoc(doc)
    summary_lines: list[str] = []
    params: dict[str, str] = {}
    state = "summary"
    args_indent = 0
    name_indent = None
    last = None
    for line in text.split("\n"):
        stripped = line.strip()
        indent = len(line) - len(line.lstrip(" "))
        if state == "summary":
            if stripped:
                summary_lines.append(stripped)
                continue
            state = "between"
            continue
        if state == "between":
            if stripped == "Args:":
                state = "args"
                args_indent = indent
            continue
        if state == "args":
            if not stripped or indent <= args_indent:
                state = "done"
                continue
            if name_indent is None:
                name_indent = indent
            if indent == name_indent:
                key, _sep, rest = stripped.partition(":")
                last = key.strip()
                params[last] = rest.strip()
            elif last is not None:
                params[last] = (params[last] + " " + stripped).strip()
    return " ".join(summary_lines), params


JSON_TYPE_OF = {bool: "boolean", int: "integer", float: "number", str: "string", list: "array", dict: "object"}


def describe_tool(func: Callable) -> dict:
    """TODO 1.2 — the description of `func`."""
    summary, param_docs = parse_docstring(func.__doc__)
    hints = typing.get_type_hints(func)
    properties = {}
    required = []
    for pname, param in inspect.signature(func).parameters.items():
        annotation = hints.get(pname)
        if annotation not in JSON_TYPE_OF:
            raise TypeError(f"cannot describe parameter {pname} of {func.__name__}: annotation {annotation!r}")
        prop = {"type": JSON_TYPE_OF[annotation]}
        if pname in param_docs:
            prop["description"] = param_docs[pname]
        properties[pname] = prop
        if param.default is inspect.Parameter.empty:
            required.append(pname)
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


def _matches(json_type: str, value) -> bool:
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
    """TODO 1.3 — every problem of `arguments` against `parameters`."""
    if not isinstance(arguments, dict):
        return [f"Expected the arguments as an object mapping names to values, got {type(arguments).__name__}"]
    props = parameters.get("properties", {})
    errors = []
    for req in parameters.get("required", []):
        if req not in arguments:
            errors.append(f"Missing required argument `{req}`")
    for key, value in arguments.items():
        if key not in props:
            errors.append(f"Unexpected argument `{key}` (allowed: {', '.join(props)})")
            continue
        want = props[key].get("type")
        if want and not _matches(want, value):
            errors.append(f"Argument `{key}` should be a {want.upper()}, but got {value!r}")
    return errors


def run_tool(name: str, arguments: dict) -> ToolResult:
    """TODO 1.4 — run the tool `name` of TOOLS."""
    if name not in TOOLS:
        return ToolResult(success=False, error=f"Tool `{name}` does not exist. Available: {', '.join(TOOLS)}")
    func = TOOLS[name]
    try:
        schema = describe_tool(func)["function"]["parameters"]
        errors = validate_arguments(schema, arguments)
    except Exception as exc:
        return ToolResult(success=False, error=f"could not check the arguments of {name}: {exc}")
    if errors:
        return ToolResult(success=False, error="Invalid arguments for " + name + ": " + "; ".join(errors))
    try:
        value = func(**arguments)
    except Exception as exc:
        return ToolResult(success=False, error=f"{name} raised {type(exc).__name__}: {exc}")
    return ToolResult(success=True, output=value)


BIN_OPS = {ast.Add: operator.add, ast.Sub: operator.sub, ast.Mult: operator.mul, ast.Div: operator.truediv,
           ast.Pow: operator.pow}
UNARY_OPS = {ast.UAdd: operator.pos, ast.USub: operator.neg}
MAX_DIGITS = 100


def _evaluate(node):
    if isinstance(node, ast.Expression):
        return _evaluate(node.body)
    if isinstance(node, ast.Constant):
        if isinstance(node.value, bool) or not isinstance(node.value, (int, float)):
            raise ValueError(f"unsupported constant: {node.value!r}")
        return node.value
    if isinstance(node, ast.UnaryOp) and type(node.op) in UNARY_OPS:
        return UNARY_OPS[type(node.op)](_evaluate(node.operand))
    if isinstance(node, ast.BinOp) and type(node.op) in BIN_OPS:
        left = _evaluate(node.left)
        right = _evaluate(node.right)
        if isinstance(node.op, ast.Div) and right == 0:
            raise ValueError("cannot divide by zero")
        if isinstance(node.op, ast.Pow):
            if left == 0 and right < 0:
                raise ValueError("zero cannot be raised to a negative power (division by zero)")
            if abs(left) > 1 and right * math.log10(abs(left)) > MAX_DIGITS:
                raise ValueError(f"the result of this power would have more than {MAX_DIGITS} digits")
            result = left ** right
            if isinstance(result, complex):
                raise ValueError("the result is not a real number")
            return result
        return BIN_OPS[type(node.op)](left, right)
    raise ValueError(f"unsupported syntax: {type(node).__name__}")


def calculator(expression: str) -> float:
    """Evaluate an arithmetic expression: numbers, + - * / **, a sign (+ or -) before a number, parentheses.

    Args:
        expression: the arithmetic to work out, such as "3 + 5 * 2" or "-(2 ** 10) / 4"
    """
    try:
        tree = ast.parse(expression, mode="eval")
    except SyntaxError as exc:
        raise ValueError(f"invalid expression: {exc.msg}") from exc
    result = _evaluate(tree)
    if isinstance(result, float) and (math.isinf(result) or math.isnan(result)):
        raise ValueError("the result is too large to represent")
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
