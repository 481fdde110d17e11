"""The wire between the grader and the child process that runs a learner's file: both sides use it.

One JSON object per line, ASCII only (so a lone surrogate survives). Learner values cross as JSON
with a few tagged forms, because a tuple, a dataclass or a coroutine must keep its kind:

    {"$tuple": [...]}  {"$dict": [[key, value], ...]}  {"$dataclass": "ToolResult", "fields": {...}}
    {"$coroutine": "llm_call"}  {"$repr": "...", "$type": "Foo"}   (anything else: its repr)

Arguments the grader sends may also hold objects to build in the child:

    {"$tool": "Weather"}                         a function that runs the grader's tool
    {"$new": "Tool", "args": [...], "kwargs": {...}}   an instance of a class of the learner's file
    {"$function": {"name": ..., "doc": ..., "params": [[name, "integer", optional, default], ...]}}
                                                 a function to describe, never to call (day03)
    {"$model": "openai.types.chat:ChatCompletion", "data": {...}}   a library type, from its JSON

Requests from the child carry an "id"; the grader's answer carries the same id, so learner code
that calls the model or a tool from several threads gets its own answers.
This module uses only the standard library: the child imports it alone, without the rest of the kit.
"""
from __future__ import annotations

import dataclasses
import inspect
import json
import re
from dataclasses import dataclass

MESSAGE_LIMIT = 1024 * 1024  # bytes in one message (a prompt is a few kB); more is abuse
DEPTH_LIMIT = 100  # levels of arrays and objects in one message: encode() writes 20 at most, ×3


def dump(message: dict) -> bytes:
    return json.dumps(message).encode() + b"\n"


def loads(text: str | bytes, depth: int = DEPTH_LIMIT):
    """json.loads for text anyone may have written: ValueError, never a crash, for text that is
    not JSON, holds a number too long to read, or nests arrays and objects deeper than `depth`
    (the code that reads a value recurses; so does the parser, to Python's recursion limit)."""
    try:
        value = json.loads(text)
    except RecursionError:
        raise ValueError(f"nested more than {depth} levels deep") from None
    opening = ("[", "{") if isinstance(text, str) else (b"[", b"{")
    if text.count(opening[0]) + text.count(opening[1]) <= depth:
        return value  # too few brackets to nest that deep (most messages): no need to look
    stack = [(value, 1)]
    while stack:  # not recursive: a check of depth must not itself run out of stack
        item, level = stack.pop()
        if isinstance(item, (list, dict)):
            if level > depth:
                raise ValueError(f"nested more than {depth} levels deep")
            stack.extend((child, level + 1) for child in (item.values() if isinstance(item, dict) else item))
    return value


# A surrogate is written \ud800 to \udfff on the wire, which dump() keeps ASCII: an ASCII line without
# such an escape holds no lone one (json.loads reads other bytes with 'surrogatepass': those are looked at)
SURROGATE_ESCAPE = re.compile(rb"\\u[dD][89a-fA-F]")


class LineReader:
    """Splits what a socket delivers into messages. `feed` returns the complete ones; `printable`:
    each as printable() makes it (the grader's side: what the learner's code sent is shown)."""

    def __init__(self, limit: int = MESSAGE_LIMIT, printable: bool = False):
        self.buffer, self.limit, self.printable = b"", limit, printable

    def feed(self, chunk: bytes) -> list:
        self.buffer += chunk
        *lines, self.buffer = self.buffer.split(b"\n")
        if len(self.buffer) > self.limit:
            raise ValueError("message too large")
        return [self._read(line) for line in lines]

    def _read(self, line: bytes):
        value = loads(line)
        if self.printable and not (line.isascii() and not SURROGATE_ESCAPE.search(line)):
            return printable(value)
        return value


# ---------------------------------------------------------------- learner values -> JSON (child side)

def encode(value, depth: int = 0):
    """A learner's value as JSON. Tuples, dataclasses and coroutines keep their kind."""
    if depth > 20:
        return {"$repr": "…", "$type": type(value).__name__}
    if value is None or isinstance(value, (bool, int, float, str)):
        return value
    if isinstance(value, tuple):
        return {"$tuple": [encode(v, depth + 1) for v in value]}
    if isinstance(value, list):
        return [encode(v, depth + 1) for v in value]
    if isinstance(value, dict):
        return {"$dict": [[encode(k, depth + 1), encode(v, depth + 1)] for k, v in value.items()]}
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        fields = {f.name: encode(getattr(value, f.name), depth + 1) for f in dataclasses.fields(value)}
        return {"$dataclass": type(value).__name__, "fields": fields}
    if inspect.iscoroutine(value):
        value.close()
        return {"$coroutine": value.__qualname__}
    try:
        text = repr(value)[:300]
    except Exception as error:  # a learner's __repr__ that raises
        text = f"<{type(value).__name__}: repr() raised {type(error).__name__}>"
    return {"$repr": text, "$type": type(value).__name__}


# ---------------------------------------------------------------- JSON -> values (grader side)

@dataclass
class Record:
    """A dataclass instance from the learner's process: its class name and its fields."""
    type: str
    fields: dict

    def __getattr__(self, name):
        try:
            return self.__dict__["fields"][name]
        except KeyError:
            raise AttributeError(name) from None


@dataclass
class Opaque:
    """A value that does not cross as JSON: its type name and repr()."""
    type: str
    text: str


@dataclass
class Unawaited:
    """A coroutine returned where a value was expected: a missing `await`."""
    name: str


def decode(value):
    if isinstance(value, list):
        return [decode(v) for v in value]
    if not isinstance(value, dict):
        return value
    if "$tuple" in value:
        return tuple(decode(v) for v in value["$tuple"])
    if "$dict" in value:
        return {_hashable(decode(k)): decode(v) for k, v in value["$dict"]}
    if "$dataclass" in value:
        return Record(str(value["$dataclass"]), {str(k): decode(v) for k, v in dict(value["fields"]).items()})
    if "$coroutine" in value:
        return Unawaited(str(value["$coroutine"]))
    return Opaque(str(value.get("$type", "?")), str(value.get("$repr", "")))


def _hashable(key):
    return key if isinstance(key, (str, int, float, bool, tuple, type(None))) else repr(key)


def printable(value):
    """The message with each lone surrogate (text no terminal or file can hold) as a \\ud800 escape."""
    try:  # the usual case, at C speed: no lone surrogate anywhere, the message as it is
        json.dumps(value, ensure_ascii=False).encode("utf-8")
        return value
    except (UnicodeEncodeError, TypeError, ValueError):
        pass
    return _escaped(value)


def _escaped(value):
    if isinstance(value, str):
        return value.encode("utf-8", "backslashreplace").decode("utf-8")
    if isinstance(value, list):
        return [_escaped(v) for v in value]
    if isinstance(value, dict):
        return {_escaped(k): _escaped(v) for k, v in value.items()}
    return value
