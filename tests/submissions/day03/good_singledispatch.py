# expect: full
# style: regex-based docstring reader (paragraph split + re.match for parameter lines), exact-type table for validation,
# style: functools.singledispatch calculator over node classes, power size by math.log10, problems in Chinese
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

import functools

import re

_PARAM = re.compile(r"^(?P<indent>\s*)(?P<name>[A-Za-z_]\w*)\s*:\s?(?P<text>.*)$")

_JSON_OF = {bool: "boolean", int: "integer", float: "number", str: "string", list: "array", dict: "object"}

_JSON_WORD = {"integer": "整数", "number": "数字", "string": "字符串", "boolean": "布尔值", "array": "数组", "object": "对象"}

def _fits(expected: str, value) -> bool:
    actual = _JSON_OF.get(type(value))
    return actual == expected or (expected == "number" and actual == "integer")

@functools.singledispatch
def _value(node):
    raise ValueError(f"不允许的表达式：{ast.unparse(node) if isinstance(node, ast.AST) else node!r}")

@_value.register
def _(node: ast.Expression):
    return _value(node.body)

@_value.register
def _(node: ast.Constant):
    if type(node.value) not in (int, float):
        raise ValueError(f"只能计算数字，不能计算 {node.value!r}")
    return node.value

@_value.register
def _(node: ast.UnaryOp):
    if isinstance(node.op, ast.USub):
        return -_value(node.operand)
    if isinstance(node.op, ast.UAdd):
        return +_value(node.operand)
    raise ValueError(f"不允许的运算：{ast.unparse(node)}")

_BINARY = {ast.Add: operator.add, ast.Sub: operator.sub, ast.Mult: operator.mul, ast.Div: operator.truediv,
           ast.Pow: operator.pow}

@_value.register
def _(node: ast.BinOp):
    do = _BINARY.get(type(node.op))
    if do is None:
        raise ValueError(f"不允许的运算：{ast.unparse(node)}")
    left, right = _value(node.left), _value(node.right)
    if do is operator.truediv and right == 0:
        raise ValueError("不能除以零 (division by zero)")
    if do is operator.pow:
        if left == 0 and right < 0:
            raise ValueError("0 的负数次方是除以零 (division by zero)")
        if left != 0 and right * math.log10(abs(left)) > 100:
            raise ValueError(f"{ast.unparse(node)} 的结果超过 100 位，太大了")
    result = do(left, right)
    if isinstance(result, complex):
        raise ValueError("结果不是实数")
    return result



def parse_docstring(doc: str | None) -> tuple[str, dict[str, str]]:
    text = inspect.cleandoc(doc or "")
    if not text:
        return "", {}
    paragraphs = re.split(r"\n[ \t]*\n", text)
    summary = " ".join(line.strip() for line in paragraphs[0].splitlines())
    params: dict[str, str] = {}
    lines = text.splitlines()
    try:
        at = [line.strip() for line in lines].index("Args:")
    except ValueError:
        return summary, params
    base = len(lines[at]) - len(lines[at].lstrip())
    names_indent, last = None, None
    for line in lines[at + 1:]:
        indent = len(line) - len(line.lstrip())
        if not line.strip() or indent <= base:
            break
        found = _PARAM.match(line)
        if found and (names_indent is None or indent == names_indent):
            names_indent = indent
            last = found["name"]
            params[last] = found["text"].strip()
        elif last is not None:
            params[last] = f"{params[last]} {line.strip()}"
    return summary, params


# ---------------------------------------------------------------- TODO 1.2 describe a function

def describe_tool(func: Callable) -> dict:
    summary, texts = parse_docstring(func.__doc__)
    hints = typing.get_type_hints(func)
    properties, required = {}, []
    for name, parameter in inspect.signature(func).parameters.items():
        kind = _JSON_OF.get(hints.get(name))
        if kind is None:
            raise TypeError(f"no JSON type for parameter {name} of {func.__name__}")
        properties[name] = {"type": kind, **({"description": texts[name]} if name in texts else {})}
        if parameter.default is inspect.Parameter.empty:
            required.append(name)
    return {"type": "function", "function": {
        "name": func.__name__, "description": summary,
        "parameters": {"type": "object", "properties": properties, "required": required,
                       "additionalProperties": False}}}


# ---------------------------------------------------------------- TODO 1.3 check the arguments

def validate_arguments(parameters: dict, arguments) -> list[str]:
    if not isinstance(arguments, dict):
        return [f"参数必须是一个 JSON 对象（名字: 值），而不是 {arguments!r}"]
    properties = parameters.get("properties", {})
    problems = [f"缺少必需的参数 '{name}'" for name in parameters.get("required", []) if name not in arguments]
    for name, value in arguments.items():
        if name not in properties:
            problems.append(f"没有名为 '{name}' 的参数；可用的参数：{'、'.join(properties)}")
            continue
        expected = properties[name].get("type")
        if expected and not _fits(expected, value):
            problems.append(f"参数 '{name}' 应该是{_JSON_WORD.get(expected, expected)}（{expected}），收到的是 {value!r}")
    return problems


# ---------------------------------------------------------------- TODO 1.4 run a tool, never raise

def run_tool(name: str, arguments: dict) -> ToolResult:
    if name not in TOOLS:
        return ToolResult(False, error=f"没有名为 '{name}' 的工具；可用的工具：{'、'.join(TOOLS)}")
    func = TOOLS[name]
    try:
        problems = validate_arguments(describe_tool(func)["function"]["parameters"], arguments)
    except Exception as error:
        return ToolResult(False, error=f"无法检查参数：{error}")
    if problems:
        return ToolResult(False, error=f"没有调用 {name}：" + "；".join(problems))
    try:
        return ToolResult(True, output=func(**arguments))
    except Exception as error:
        return ToolResult(False, error=f"{name} 执行出错：{error}")


# ---------------------------------------------------------------- TODO 1.5 the calculator

def calculator(expression: str) -> float:
    """Evaluate an arithmetic expression: numbers, + - * / **, unary minus and parentheses.

    Args:
        expression: the arithmetic to work out, such as "3 + 5 * 2" or "-(2 ** 10) / 4"
    """
    try:
        tree = ast.parse(expression.strip(), mode="eval")
    except SyntaxError as error:
        raise ValueError(f"这不是一个算术表达式：{expression!r}") from None
    try:
        result = _value(tree)
    except (OverflowError, RecursionError):
        raise ValueError("表达式或结果太大") from None
    if isinstance(result, float) and not math.isfinite(result):
        raise ValueError("结果太大")
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
