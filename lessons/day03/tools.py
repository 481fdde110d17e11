"""The data day03's checks draw for one seed. This lesson's tools run in your process (the checks
call them through your run_tool), so the grader runs no tool of its own: there is no `tools()`.

`values` are the numbers and names the checks use; `functions` are tools you have never seen, each
with its parameters and its JSON Schema (the one describe_tool should write for it); `docstrings`
are docstrings written for some of them, in the layouts real code uses, with what parse_docstring
should read from each.
"""
from __future__ import annotations

import random

from mock_llm.scenarios import draw

JSON_TYPES = ("integer", "number", "string", "boolean", "array", "object")


def tables(data: dict, rng: random.Random, seed: int) -> dict:
    """Seed 0: each value's default, the functions in the file's order with their example values
    (the lesson text's). Another seed: other values, another order, other numbers."""
    values = {name: draw(spec, rng, seed) for name, spec in data["values"].items()}
    functions = [function(name, spec, rng, seed) for name, spec in data["functions"].items()]
    if seed != 0:
        rng.shuffle(functions)
    return {"values": values, "functions": functions, "docstrings": docstrings(functions)}


def function(name: str, spec: dict, rng: random.Random, seed: int) -> dict:
    params = []
    for entry in spec["params"]:
        param_name, json_type, text, example = entry[:4]
        if json_type not in JSON_TYPES:
            raise ValueError(f"{name}.{param_name}: unknown JSON type {json_type!r}")
        if seed != 0 and json_type == "integer":
            example = rng.randint(1, 60)
        elif seed != 0 and json_type == "number":
            example = rng.randint(1, 500) + rng.choice([0.25, 0.5, 0.75])
        elif seed != 0 and json_type == "boolean":
            example = rng.choice([True, False])
        params.append({"name": param_name, "type": json_type, "text": text, "example": example,
                       "optional": "optional" in entry[4:]})
    properties = {p["name"]: {"type": p["type"], "description": p["text"]} for p in params}
    return {"name": name, "summary": spec["summary"], "details": spec["details"], "returns": spec["returns"],
            "raises": spec["raises"], "params": params,
            "parameters": {"type": "object", "properties": properties,
                           "required": [p["name"] for p in params if not p["optional"]],
                           "additionalProperties": False}}


def docstrings(functions: list[dict]) -> dict:
    """case -> {"doc": the docstring as func.__doc__ holds it, "summary": …, "params": {…}}."""
    plain, wrapped, sections, short, described = functions[:5]
    return {
        "plain": read_as(plain, write(plain)),
        "described": dict(read_as(described, write(described, described=True)), details=described["details"]),
        "wrapped": read_as(wrapped, write(wrapped, wrap=True)),
        "wrapped_colon": read_as(with_colon(wrapped), write(with_colon(wrapped), wrap=True)),
        "sections": dict(read_as(sections, write(sections, sections="Returns")), next="Returns"),
        "raises_first": dict(read_as(sections, write(sections, sections="Raises")), next="Raises"),
        # sections a parser that knows only Returns and Raises by name reads as parameters
        "other_sections": [dict(read_as(sections, write(sections, sections=name)), next=name)
                           for name in OTHER_SECTIONS],
        "summary_only": {"doc": short["summary"], "summary": short["summary"], "params": {}},
        "none": {"doc": None, "summary": "", "params": {}},
    }


# Other sections of the Google style, each with what it holds: its name is no parameter's.
OTHER_SECTIONS = ("Yields", "Example", "Note")


def with_colon(fn: dict) -> dict:
    """fn with its longest parameter description ending in words with a colon, which, wrapped, fall
    on the description's second line: a colon there does not start another parameter."""
    longest = max(fn["params"], key=lambda p: len(p["text"]))
    params = [dict(p, text=p["text"] + " (written as key: value)") if p is longest else p for p in fn["params"]]
    return dict(fn, params=params)


def read_as(fn: dict, doc: str) -> dict:
    return {"doc": doc, "summary": fn["summary"], "params": {p["name"]: p["text"] for p in fn["params"]}}


def write(fn: dict, wrap: bool = False, sections: str = "", described: bool = False) -> str:
    """The docstring of a function defined at module level, exactly as its __doc__ holds it: the
    first line right after the quotes, the others indented by four spaces, the closing quotes on
    a line of their own. `wrap`: the summary starts on the second line and runs over two lines,
    and the longest parameter description over two. `described`: a second paragraph, over two
    lines, between the summary and Args: more about the function, no part of its summary.
    `sections`: Returns and Raises after Args, the one named ("Returns" or "Raises") first, with no
    blank line before it (the Args section ends at a blank line or a dedent); another name (one
    of OTHER_SECTIONS) comes right after Args the same way, then Raises."""
    summary = halves(fn["summary"]) if wrap else [fn["summary"]]
    longest = max(fn["params"], key=lambda p: len(p["text"]))["name"]
    lines = [*summary, ""]
    if described:
        lines += [*halves(fn["details"]), ""]
    lines.append("Args:")
    for p in fn["params"]:
        text = halves(p["text"]) if wrap and p["name"] == longest else [p["text"]]
        lines.append(f"    {p['name']}: {text[0]}")
        lines += [f"        {more}" for more in text[1:]]
    if sections:
        parts = {"Returns": ["Returns:", f"    {fn['returns']}"], "Raises": ["Raises:", f"    {fn['raises']}"]}
        example = ", ".join(repr(p["example"]) for p in fn["params"] if not p["optional"])
        other = {"Yields": ["Yields:", f"    {fn['returns']}"],
                 "Example": ["Example:", f"    >>> {fn['name']}({example})"],
                 "Note": ["Note:", *(f"    {half}" for half in halves(fn["details"]))]}
        if sections in other:
            lines += [*other[sections], "", *parts["Raises"]]
        else:
            first, second = sorted(parts, key=lambda name: name != sections)
            lines += [*parts[first], "", *parts[second]]
    body = "\n".join(f"    {line}" if line else "" for line in lines[1:])
    doc = f"{lines[0]}\n{body}\n    "
    return f"\n    {doc}" if wrap else doc


def halves(text: str) -> list[str]:
    """Text cut at the space nearest its middle."""
    spaces = [i for i, ch in enumerate(text) if ch == " "]
    cut = min(spaces, key=lambda i: abs(i - len(text) / 2))
    return [text[:cut], text[cut + 1:]]
