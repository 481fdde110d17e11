"""Tools that several lessons share. A lesson's own tools are in its folder (lessons/dayNN/tools.py);
all of them run in the grader, not in the learner's process, so the grader knows every call that
really happened and the learner's code only sees the results."""
from __future__ import annotations

import ast
import operator
from functools import lru_cache

_BINARY = {ast.Add: operator.add, ast.Sub: operator.sub, ast.Mult: operator.mul,
           ast.Div: operator.truediv, ast.FloorDiv: operator.floordiv, ast.Mod: operator.mod,
           ast.Pow: operator.pow}
SHORT = 200  # characters of an expression whose syntax tree is kept
MAX_BITS = 4096  # about 1200 digits: room for any arithmetic a task needs
REPEAT_LIMIT = 1_000_000  # items of a text or list a tool may repeat into: the grader's memory is not the learner's
_UNARY = {ast.UAdd: operator.pos, ast.USub: operator.neg}


def calculate(expression: str) -> str:
    """Arithmetic on numbers only; anything else raises ValueError with the reason. A division by
    zero raises ZeroDivisionError, as the calculator of each lesson's own file does: a learner's
    `except ZeroDivisionError` meets in the grader what it meets at home."""
    def value(node: ast.AST) -> float:
        if isinstance(node, ast.Constant) and type(node.value) in (int, float):
            return node.value
        if isinstance(node, ast.BinOp) and type(node.op) in _BINARY:
            left, right = value(node.left), value(node.right)
            if isinstance(node.op, ast.Pow):
                if abs(right) > 100:
                    raise ValueError("exponent too large")
                if isinstance(left, int) and left.bit_length() * abs(right) > MAX_BITS:
                    raise ValueError("number too large")
            result = _BINARY[type(node.op)](left, right)
            if isinstance(result, complex):
                raise ValueError("not a real number")
            if isinstance(result, int) and result.bit_length() > MAX_BITS:
                raise ValueError("number too large")
            return result
        if isinstance(node, ast.UnaryOp) and type(node.op) in _UNARY:
            return _UNARY[type(node.op)](value(node.operand))
        raise ValueError(f"not arithmetic: {ast.unparse(node)!r}")

    try:
        text = expression.strip()
        result = value(_short_expression(text) if len(text) <= SHORT else ast.parse(text, mode="eval").body)
    except SyntaxError:
        raise ValueError(f"not an expression: {expression!r}") from None
    except ZeroDivisionError:
        raise ZeroDivisionError("division by zero") from None
    except OverflowError:
        raise ValueError("number too large") from None
    if isinstance(result, float) and result.is_integer():
        result = int(result)
    return str(result)


@lru_cache(maxsize=512)
def _short_expression(text: str) -> ast.expr:
    """The syntax tree of a short expression, read once: the checks and the tools work out the same
    few a score of times a student (a long one, which only a learner's code sends, is not kept).
    Never changed by whoever reads it."""
    return ast.parse(text, mode="eval").body


def product(a, b):
    """a * b as Python computes it, for a tool given whatever a learner's code passes: ValueError
    where that repeats a text or a list past REPEAT_LIMIT items ("x" * 10**9 would be built in the
    grader, before any check of its size)."""
    for items, times in ((a, b), (b, a)):
        if isinstance(items, (str, bytes, list, tuple)) and isinstance(times, int) and len(items) * times > REPEAT_LIMIT:
            raise ValueError("result too large")
    return a * b
