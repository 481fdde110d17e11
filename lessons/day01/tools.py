"""The tools the grader runs for day01's agent. Plain functions of two numbers, called with the
decision's args as keyword arguments, exactly as the lesson's own add and multiply are."""
import re

from mock_llm.tools import product


def add(a, b):
    return a + b


def multiply(a, b):
    return product(a, b)  # a * b, bounded: the learner's code chooses a and b


def subtract(a, b):
    return a - b


def divide(a, b):
    return a / b  # b == 0 raises ZeroDivisionError: a tool that fails


def square_root(a):
    """A tool that fails with a ValueError, a class of exception the other checks never raise: an
    execute_tool that catches only the ones it has met (ZeroDivisionError, TypeError) lets it out."""
    if a < 0:
        raise ValueError(f"math domain error: {a} has no real square root")
    return a ** 0.5


class ServiceUnavailable(Exception):
    """An exception class of a tool's own, as libraries define theirs (the learner's code gets it as
    a RuntimeError: only built-in classes cross into its process)."""


def remote_add(a, b):
    """A tool that calls a service, down today: it raises an exception of its own class."""
    raise ServiceUnavailable(f"the remote calculator did not answer for {a} + {b}")


RATES = {"EUR": 0.92, "GBP": 0.79}  # exchange_rate's own table: a currency it lacks is its own KeyError


def exchange_rate(currency):
    """A tool whose own code raises KeyError (a look-up in its own dict): the same class as a name the
    registry lacks, so an execute_tool whose `except KeyError` means "unknown tool" takes the tool's
    error for an unknown name, and loses its message."""
    return RATES[currency]


def tools(world) -> dict:
    return {"add": add, "multiply": multiply, "subtract": subtract, "divide": divide,
            "square_root": square_root, "remote_add": remote_add, "exchange_rate": exchange_rate}


# ---------------------------------------------------------------- questions no scenario scripts

NUMBER = r"(\d+(?:\.\d+)?)"
SYMBOLS = {"+": "add", "*": "multiply", "×": "multiply", "x": "multiply"}
WORDS = {"add": "add", "plus": "add", "multiply": "multiply", "times": "multiply"}
FIRST = re.compile(rf"{NUMBER}\s*([+*×x])\s*{NUMBER}")
NEXT = re.compile(rf"(?:[^\d+*×]*?\b(add|plus|multiply|times)\b(?:\s+(?:it|that|the result))?(?:\s+by)?"
                  rf"|\s*([+*×]))\s*{NUMBER}", re.IGNORECASE)


def plan(question: str, world) -> dict | None:
    """How the mock answers a question no scenario scripts, so a learner can play with the agent:
    a chain of additions and multiplications, such as "7 × 8, then add 3" or "2 + 3, then multiply
    by 4", worked left to right with add and multiply, each step on the result before. A chain
    whose order is not the arithmetic's (2 + 3 * 4) gets no plan."""
    first = FIRST.search(question)
    if not first:
        return None
    steps = [(SYMBOLS[first.group(2)], first.group(1), first.group(3))]
    position = first.end()
    while (found := NEXT.match(question, position)) is not None:
        word, symbol, number = found.groups()
        tool = WORDS[word.lower()] if word else SYMBOLS[symbol]
        if symbol and tool == "multiply" and steps[-1][0] == "add":
            return None  # 2 + 3 * 4: left to right would give the wrong number
        steps.append((tool, f"{{obs{len(steps)}}}", number))
        position = found.end()
    calls = [{"tool": tool, "args": {"a": a, "b": b}, "thought": f"Next: {tool} {a} and {b}."}
             for tool, a, b in steps]
    return {"calls": calls, "answer": f"The result is {{obs{len(steps)}}}."}
