# expect: full
# style: parse_docstring with re.split/re.match; describe_tool adds "default" to optional properties;
# style: validate_arguments and run_tool write Chinese messages (不在可用工具列表中); calculator uses match/case.
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


# ---------------------------------------------------------------- TODO 1.1 read a docstring

def parse_docstring(doc: str | None) -> tuple[str, dict[str, str]]:
    """TODO 1.1 — (summary, {name: description})."""
    if doc is None:
        return "", {}
    text = inspect.cleandoc(doc)
    paragraphs = re.split(r"\n\s*\n", text)
    summary = " ".join(line.strip() for line in paragraphs[0].splitlines())
    if summary.strip() == "Args:":
        summary = ""
    params: dict[str, str] = {}
    lines = text.splitlines()
    for i, line in enumerate(lines):
        head = re.match(r"^(\s*)Args:\s*$", line)
        if not head:
            continue
        outer = len(head.group(1))
        name_indent = None
        last = None
        for row in lines[i + 1:]:
            if not row.strip():
                break
            indent = len(row) - len(row.lstrip(" "))
            if indent <= outer:
                break
            if name_indent is None:
                name_indent = indent
            m = re.match(r"^\s*(\w+)\s*:\s*(.*)$", row)
            if indent == name_indent and m:
                last = m.group(1)
                params[last] = m.group(2).strip()
            elif last:
                params[last] = f"{params[last]} {row.strip()}"
        break
    return summary, params


# ---------------------------------------------------------------- TODO 1.2 describe a function

def describe_tool(func: Callable) -> dict:
    """TODO 1.2"""
    summary, args_doc = parse_docstring(func.__doc__)
    hints = typing.get_type_hints(func)
    hints.pop("return", None)
    kinds = {bool: "boolean", int: "integer", float: "number", str: "string", list: "array", dict: "object"}
    props = {}
    required = []
    for pname, p in inspect.signature(func).parameters.items():
        if pname not in hints or hints[pname] not in kinds:
            raise TypeError(f"cannot describe parameter {pname} of {func.__name__}")
        prop = {"type": kinds[hints[pname]], "description": args_doc.get(pname, "")}
        if p.default is inspect.Parameter.empty:
            required.append(pname)
        else:
            prop["default"] = p.default
        props[pname] = prop
    return {
        "type": "function",
        "function": {
            "name": func.__name__,
            "description": summary,
            "parameters": {"type": "object", "properties": props, "required": required,
                           "additionalProperties": False},
        },
    }


# ---------------------------------------------------------------- TODO 1.3 check the arguments

def validate_arguments(parameters: dict, arguments) -> list[str]:
    """TODO 1.3"""
    if not isinstance(arguments, dict):
        return [f"参数必须是一个 JSON 对象（名字: 值），收到的是 {type(arguments).__name__}"]
    words = {"integer": "整数", "number": "数字", "string": "字符串", "boolean": "布尔值",
             "array": "数组", "object": "对象"}
    props = parameters.get("properties", {})
    problems = []
    for name in parameters.get("required", []):
        if name not in arguments:
            problems.append(f"缺少必填参数 {name}")
    for name, value in arguments.items():
        if name not in props:
            problems.append(f"没有名为 {name} 的参数，可用的参数有：{'、'.join(props)}")
            continue
        want = props[name].get("type")
        if isinstance(value, bool):
            ok = want == "boolean"
        elif isinstance(value, int):
            ok = want in ("integer", "number")
        elif isinstance(value, float):
            ok = want == "number"
        elif isinstance(value, str):
            ok = want == "string"
        elif isinstance(value, list):
            ok = want == "array"
        elif isinstance(value, dict):
            ok = want == "object"
        else:
            ok = False
        if want in words and not ok:
            problems.append(f"参数 {name} 应为{words[want]}，而不是 {value!r}")
    return problems


# ---------------------------------------------------------------- TODO 1.4 run a tool, never raise

def run_tool(name: str, arguments: dict) -> ToolResult:
    """TODO 1.4"""
    if name not in TOOLS:
        return ToolResult(False, error=f"工具 {name} 不在可用工具列表中：{', '.join(TOOLS)}")
    func = TOOLS[name]
    try:
        schema = describe_tool(func)["function"]["parameters"]
        problems = validate_arguments(schema, arguments)
    except Exception as exc:
        return ToolResult(False, error=f"无法检查 {name} 的参数：{exc}")
    if problems:
        return ToolResult(False, error=f"没有调用 {name}：" + "；".join(problems))
    try:
        output = func(**arguments)
    except Exception as exc:
        return ToolResult(False, error=f"{name} 执行出错：{exc}")
    return ToolResult(True, output=output)


# ---------------------------------------------------------------- TODO 1.5 the calculator

def calculator(expression: str) -> float:
    """Evaluate an arithmetic expression: numbers, + - * / **, unary minus and parentheses.

    Args:
        expression: the arithmetic to work out, such as "3 + 5 * 2" or "-(2 ** 10) / 4"
    """
    def walk(node):
        match node:
            case ast.Expression(body=body):
                return walk(body)
            case ast.Constant(value=v) if type(v) in (int, float):
                return v
            case ast.UnaryOp(op=ast.USub(), operand=x):
                return -walk(x)
            case ast.UnaryOp(op=ast.UAdd(), operand=x):
                return +walk(x)
            case ast.BinOp(left=l, op=op, right=r):
                a, b = walk(l), walk(r)
                match op:
                    case ast.Add():
                        return a + b
                    case ast.Sub():
                        return a - b
                    case ast.Mult():
                        return a * b
                    case ast.Div():
                        if b == 0:
                            raise ValueError("除数不能为零 (division by zero)")
                        return a / b
                    case ast.Pow():
                        if a != 0 and b * math.log10(abs(a)) > 100:
                            raise ValueError("乘方结果超过 100 位，拒绝计算")
                        if a == 0 and b < 0:
                            raise ValueError("division by zero")
                        r = a ** b
                        if isinstance(r, complex):
                            raise ValueError("结果不是实数")
                        return r
        raise ValueError(f"不允许的表达式成分：{type(node).__name__}")

    try:
        tree = ast.parse(expression, mode="eval")
    except SyntaxError as exc:
        raise ValueError(f"不是合法的算式：{exc.msg}") from None
    try:
        return walk(tree)
    except (OverflowError, RecursionError):
        raise ValueError("数值太大") from None


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
