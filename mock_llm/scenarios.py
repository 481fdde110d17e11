"""Scenarios: the tasks a lesson gives the agent, and the tool calls the mock model makes for each.

A lesson's `scenarios.yaml` holds the data; this module turns it into `Scenario` objects for one
seed. Seed 0 gives the numbers of the lesson text (3 + 5 * 2 = 13); any other seed draws new ones,
so an answer typed into the code instead of computed fails.
"""
from __future__ import annotations

import ast
import json
import random
import re
from dataclasses import dataclass, field
from pathlib import Path

import yaml

LESSONS_DIR = Path(__file__).resolve().parent.parent / "lessons"
DEFAULT_SEED = 0


def read_yaml(path: Path):
    """A YAML file's data, with libyaml's fast safe loader when PyYAML was built with it."""
    return yaml.load(path.read_text(encoding="utf-8"), Loader=getattr(yaml, "CSafeLoader", yaml.SafeLoader))


class ScenarioError(ValueError):
    """A scenarios.yaml that cannot be used; the message names the file and the problem."""


@dataclass(frozen=True)
class Call:
    tool: str
    input: str = ""  # text protocol: a template such as "{a} + {b} * {c}" or "{obs1:number} * 9 / 5"
    args: dict | None = None  # chat protocol: the function arguments, each value a template
    thought: str = "I should use a tool."


@dataclass
class Scenario:
    name: str
    question: str
    turns: list[list[Call]]  # one model reply each; a turn of several calls is a parallel call
    answer: str
    tools: list[str]  # the tools the agent is given for this task
    repeat: bool  # never finish: after the scripted turns, repeat the last one with {n} counting
    values: dict = field(default_factory=dict)  # the drawn variables

    def turn(self, index: int) -> list[Call] | None:
        """The calls of the index-th tool-calling reply (0-based), or None when ready to answer."""
        if index < len(self.turns):
            return self.turns[index]
        return self.turns[-1] if self.repeat else None

    def call(self, index: int) -> Call | None:
        """Text protocol: one call per reply."""
        turn = self.turn(index)
        return turn[0] if turn else None

    def render(self, template: str, observations: list[str]) -> str:
        """Fill a template from the drawn values and the observations read so far.

        {a} a drawn value · {obs1} the first observation · {obs1:number} the first number in it ·
        {obs1.price} a field of it, read as JSON (or a Python literal) · {n} the next call's number.
        """
        names = dict(self.values, n=len(observations) + 1)
        names.update({f"obs{i}": obs for i, obs in enumerate(observations, start=1)})

        def fill(match: re.Match) -> str:
            name, key, flt = match.group(1), match.group(2), match.group(3)
            if name not in names:
                raise ScenarioError(f"scenario {self.name!r}: unknown placeholder {{{name}}}")
            value = str(names[name])
            if key:
                value = str(field_of(value, key))
            return first_number(value) if flt == "number" else value

        return re.sub(r"\{(\w+)(?:\.(\w+))?(?::(\w+))?\}", fill, template)

    def render_args(self, call: Call, observations: list[str]) -> dict:
        return {k: self.render(str(v), observations) for k, v in (call.args or {}).items()}


def field_of(text: str, key: str):
    """text["key"] when text is a JSON object (or a Python dict literal); else the text itself."""
    for parse in (json.loads, ast.literal_eval):
        try:
            data = parse(text)
        except (ValueError, SyntaxError, TypeError, MemoryError, RecursionError):
            continue
        if isinstance(data, dict) and key in data:
            return data[key]
    return text


def first_number(text: str) -> str:
    """The first number written in text ("sunny, 25°C" -> "25"), or the text itself if none."""
    match = re.search(r"-?\d+(?:\.\d+)?", text)
    return match.group(0) if match else text


def draw(spec: dict, rng: random.Random, seed: int):
    """One variable: its default for seed 0, else drawn from `between: [lo, hi]` or `one_of: [...]`."""
    if seed == DEFAULT_SEED:
        return spec["default"]
    if "between" in spec:
        low, high = spec["between"]
        return rng.randint(low, high)
    return rng.choice(spec["one_of"])


@dataclass
class LessonWorld:
    """Everything one lesson's scenarios need for one seed: scenarios, tools and their data."""
    scenarios: dict[str, Scenario]
    tool_descriptions: dict[str, str]
    weather: dict[str, str]  # city -> report, for the Weather tool
    quotes: dict[str, dict]  # ticker -> quote, for get_quote
    seed: int
    protocol: str  # "text": ReAct lines in the reply text; "chat": Chat Completions tool_calls


def _turn(spec) -> list[Call]:
    """A scenario's `calls` entry: one call (a mapping) or parallel calls (a list of mappings)."""
    specs = spec if isinstance(spec, list) else [spec]
    return [Call(c["tool"], str(c.get("input", "")), c.get("args"), c.get("thought", Call.thought))
            for c in specs]


def _quote(base: dict, rng: random.Random, seed: int) -> dict:
    if seed == DEFAULT_SEED:
        return dict(base)
    return dict(base, price=round(base["price"] * rng.uniform(0.5, 1.5), 1),
                pe=round(base["pe"] * rng.uniform(0.6, 1.4), 1),
                change_1y_pct=round(rng.uniform(-40, 120), 1))


def load_world(lesson: str, seed: int = DEFAULT_SEED, path: Path | None = None) -> LessonWorld:
    path = path or LESSONS_DIR / lesson / "scenarios.yaml"
    try:
        data = read_yaml(path)
    except FileNotFoundError:
        raise ScenarioError(f"{path}: no such file (lesson {lesson!r} has no scenarios)") from None
    except yaml.YAMLError as err:
        raise ScenarioError(f"{path}: not valid YAML: {err}") from None
    if not isinstance(data, dict) or "scenarios" not in data:
        raise ScenarioError(f"{path}: expected a mapping with a 'scenarios' key")

    # A string seed keeps draws stable across Python versions and runs (no hash randomisation).
    rng = random.Random(f"{lesson}:{seed}")
    try:
        values = {name: draw(spec, rng, seed) for name, spec in data.get("vars", {}).items()}
        weather = {
            city: f"{sky}, {temp if seed == DEFAULT_SEED else rng.randint(-10, 38)}°C"
            for city, (sky, temp) in data.get("weather", {}).items()
        }
        quotes = {ticker: {"ticker": ticker, **_quote(base, rng, seed)}
                  for ticker, base in data.get("quotes", {}).items()}
        scenarios = {}
        for name, spec in data["scenarios"].items():
            scenario = Scenario(
                name=name, question="", turns=[_turn(c) for c in spec.get("calls", [])],
                answer=spec.get("answer", ""), tools=spec.get("tools", list(data.get("tools", {}))),
                repeat=bool(spec.get("repeat", False)), values=values)
            scenario.question = scenario.render(spec["question"], [])
            scenarios[name] = scenario
    except (KeyError, TypeError, ValueError) as err:
        raise ScenarioError(f"{path}: malformed scenario data ({type(err).__name__}: {err})") from None
    return LessonWorld(scenarios, dict(data.get("tools", {})), weather, quotes, seed,
                       data.get("protocol", "text"))
