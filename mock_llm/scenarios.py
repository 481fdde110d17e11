"""Scenarios: the tasks a lesson gives the agent, and the tool calls the mock model makes for each.

A lesson's `scenarios.yaml` holds the data; this module turns it into `Scenario` objects for one
seed. Seed 0 gives the numbers of the lesson text (3 + 5 * 2 = 13); any other seed draws new ones,
so an answer typed into the code instead of computed fails.
"""
from __future__ import annotations

import ast
import importlib.util
import inspect
import json
import random
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable

import yaml

from validator.files import read_yaml

DEFAULT_SEED = 0


class ScenarioError(ValueError):
    """A scenarios.yaml that cannot be used; the message names the file and the problem."""


@dataclass(frozen=True)
class Call:
    tool: str
    input: str = ""  # text protocol: a template such as "{a} + {b} * {c}" or "{obs1:number} * 9 / 5"
    args: dict | None = None  # chat protocol: the function arguments, each value a template
    thought: str = "I should use a tool."
    made_up: str | None = None  # text protocol: what the mock writes on after this request (text_react.py)
    guess: str | None = None  # text protocol: the made-up Observation, a template (default: imagined())
    strict: bool = False  # text protocol: needs the tool named, and this step after the one before
    off_format: str | None = None  # text protocol: its first request comes as this prose, until corrected
    misspelt: str | None = None  # text protocol: the tool is asked for under this wrong name first
    echo: bool = False  # text protocol: its first reply begins with the format lines of its prompt


@dataclass
class Scenario:
    name: str
    question: str
    turns: list[list[Call]]  # one model reply each; a turn of several calls is a parallel call
    answer: str
    tools: list[str]  # the tools the agent is given for this task
    repeat: bool  # never finish: after the scripted turns, repeat the last one with {n} counting
    values: dict = field(default_factory=dict)  # the drawn variables
    # chat protocol, a conversation (chat.py): the user's later turns, each a scenario of its own
    follow_ups: list["Scenario"] = field(default_factory=list)
    refers_to: int = 0  # a follow-up: the user turn (1: the scenario's question) it needs to be understood
    unclear: str = ""  # a follow-up: what the model says when that turn is not in the request

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
        def value_of(name: str) -> str:  # looked up, not gathered: a run may read thousands of observations
            number = name[3:] if name.startswith("obs") else ""
            if name == "n":
                return str(len(observations) + 1)
            if number.isdigit() and 1 <= int(number) <= len(observations):
                return observations[int(number) - 1]
            if name in self.values:
                return str(self.values[name])
            raise ScenarioError(f"scenario {self.name!r}: unknown placeholder {{{name}}}")

        def fill(match: re.Match) -> str:
            name, key, flt = match.group(1), match.group(2), match.group(3)
            value = value_of(name)
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
    """Everything one lesson's scenarios need for one seed: the scenarios, the tools the grader
    runs for the agent, and their data. `world.weather` is the lesson's data table `weather`."""
    scenarios: dict[str, Scenario]
    tool_descriptions: dict[str, str]
    data: dict  # the lesson's tables (scenarios.yaml `data:`), drawn for this seed by its tools.py
    tools: dict[str, Callable]  # name -> the function the grader runs for a tool call
    seed: int
    protocol: type  # the Session class of the lesson's protocol (mock_llm/registry.py)
    module: object = None  # the lesson's tools.py
    # whether the learner's code now waits, every thread of it blocked: the grader sets it for the
    # run in progress (a tool that holds calls at a barrier asks it, day11); outside one, always
    learner_idle: Callable[[], bool] = lambda: True
    learner_unanswered: Callable[[], int] = lambda: 0  # and how many of its tool calls wait for their answer
    ran: list = field(default_factory=list)  # the tool calls of every agent run so far: what really ran

    def __getattr__(self, name):
        data = self.__dict__.get("data") or {}
        if name in data:
            return data[name]
        raise AttributeError(name)

    def session(self, scenario: str, budget: int = 25):
        """A fresh mock session of the lesson's protocol on one of its scenarios."""
        return self.protocol(self.scenarios[scenario], self.seed, budget)

    def scripted(self, *texts_by_preference: list[str]) -> str | None:
        """The name of the scenario whose question is in these texts (earlier lists first: the
        conversation's first question decides, if it can), or None: a question to improvise."""
        for texts in texts_by_preference:
            for name, scenario in self.scenarios.items():
                if any(scenario.question in text for text in texts):
                    return name
        return None

    def improvise(self, question: str, request=None) -> Scenario:
        """A question no scenario scripts (a learner playing with their agent): the lesson's
        tools.py `plan(question, world)` says which tools answer it, in scenarios.yaml's form
        ({"calls": [...], "answer": "..."}); when none fits, the model says so, naming the tools
        the learner's `request` (the prompt, the messages, a Chat Completions body) offered it."""
        planner = getattr(self.module, "plan", None)
        spec = planner(question, self) if planner else None
        if not spec:
            tools = ", ".join(self.offered_tools(request)) or "none"
            return Scenario("unscripted", "", [], "None of the tools I was given can help with that question "
                            f"(I was given: {tools}). Ask about something they can do.", [], repeat=False)
        return Scenario("unscripted", "", [_turn(c) for c in spec.get("calls", [])], spec["answer"],
                        list(self.tool_descriptions), repeat=False)


    def offered_tools(self, request) -> list[str]:
        """The tools a request offers the model: a Chat Completions body's `tools`, by their
        function names; else the lesson's tools whose names its prompt or messages mention."""
        if isinstance(request, dict) and isinstance(request.get("tools"), list):
            functions = [t.get("function") for t in request["tools"] if isinstance(t, dict)]
            return [str(f["name"]) for f in functions if isinstance(f, dict) and "name" in f]
        text = str(request.get("messages") if isinstance(request, dict) else request)
        return [name for name in self.tool_descriptions if re.search(rf"\b{re.escape(name)}\b", text)]


def _turn(spec) -> list[Call]:
    """A scenario's `calls` entry: one call (a mapping) or parallel calls (a list of mappings)."""
    specs = spec if isinstance(spec, list) else [spec]
    calls = [Call(c["tool"], str(c.get("input", "")), c.get("args"), c.get("thought", Call.thought),
                  c.get("made_up"), c.get("guess"), bool(c.get("strict", False)), c.get("off_format"),
                  c.get("misspelt"), bool(c.get("echo", False))) for c in specs]
    if any(c.made_up not in MADE_UP for c in calls):
        raise ValueError(f"made_up must be one of {', '.join(m for m in MADE_UP if m)}")
    return calls


MADE_UP = (None, "none", "observation", "final", "answer", "rounds")  # see text_react.py


_tool_modules: dict[Path, object] = {}


def lesson_tools(folder: Path):
    """The lesson's tools.py (imported once), or None. It may define `tables(data, rng, seed)`
    (the data tables for one seed) and must define `tools(world)` (name -> function) when the
    lesson's scenarios give the agent tools."""
    path = (folder / "tools.py").resolve()
    if path not in _tool_modules:
        if not path.is_file():
            _tool_modules[path] = None
        else:
            spec = importlib.util.spec_from_file_location(f"reactlings_lesson_tools_{folder.name}", path)
            module = importlib.util.module_from_spec(spec)
            spec.loader.exec_module(module)
            _tool_modules[path] = module
    return _tool_modules[path]


def read_scenarios(folder: Path, path: Path | None = None) -> tuple[dict, Path]:
    """A lesson's scenarios.yaml (or `path`), checked to be a mapping with scenarios, and its path."""
    path = path or folder / "scenarios.yaml"
    try:
        data = read_yaml(path)
    except FileNotFoundError:
        raise ScenarioError(f"{path}: no such file (lesson {folder.name!r} has no scenarios)") from None
    except yaml.YAMLError as err:
        raise ScenarioError(f"{path}: not valid YAML: {err}") from None
    if not isinstance(data, dict) or "scenarios" not in data:
        raise ScenarioError(f"{path}: expected a mapping with a 'scenarios' key")
    return data, path


def build_world(folder: Path, data: dict, path: Path, seed: int, session_class: type) -> LessonWorld:
    """The world of a lesson for one seed, from its scenarios' data, speaking `session_class`'s
    protocol (registry.load_world looks it up by the name the data gives)."""
    # A string seed keeps draws stable across Python versions and runs (no hash randomisation).
    rng = random.Random(f"{folder.name}:{seed}")
    module = lesson_tools(folder)
    try:
        values = {name: draw(spec, rng, seed) for name, spec in data.get("vars", {}).items()}
        tables = dict(data.get("data") or {})
        if module is not None and hasattr(module, "tables"):
            tables = module.tables(tables, rng, seed)
        def build(name: str, spec: dict, tools: list, number: int = 1) -> Scenario:
            scenario = Scenario(
                name=name, question="", turns=[_turn(c) for c in spec.get("calls", [])],
                answer=spec.get("answer", ""), tools=spec.get("tools", tools),
                repeat=bool(spec.get("repeat", False)), values=values,
                refers_to=int(spec.get("refers_to", 0)), unclear=str(spec.get("unclear", "")))
            if not 0 <= scenario.refers_to < number:
                raise ValueError(f"{name}: refers_to must name an earlier user turn (1 to {number - 1})")
            scenario.question = scenario.render(spec["question"], [])
            session_class.check_scenario(scenario)
            if number > 1 and spec.get("follow_ups"):
                raise ValueError(f"{name}: a follow-up has no follow-ups of its own")
            scenario.follow_ups = [build(f"{name}.{n}", s, scenario.tools, n)  # user turn n of the conversation
                                   for n, s in enumerate(spec.get("follow_ups", []), start=2)]
            return scenario

        scenarios = {name: build(name, spec, list(data.get("tools", {})))
                     for name, spec in data["scenarios"].items()}
    except (KeyError, TypeError, ValueError) as err:
        raise ScenarioError(f"{path}: malformed scenario data ({type(err).__name__}: {err})") from None
    world = LessonWorld(scenarios, dict(data.get("tools", {})), tables, {}, seed, session_class, module)
    if module is not None and hasattr(module, "tools"):
        world.tools = module.tools(world)
        for tool in world.tools.values():  # "get_news() got an unexpected keyword argument", not
            if inspect.isfunction(tool) and "<locals>" in tool.__qualname__:  # "tools.<locals>.get_news()"
                tool.__qualname__ = tool.__name__  # the learner's code sees the tool's errors
    missing = sorted({t for s in scenarios.values() for t in s.tools} - set(world.tools))
    if missing and data.get("tools"):
        raise ScenarioError(f"{path}: the scenarios give the agent tools that {folder / 'tools.py'} "
                            f"does not define: {', '.join(missing)}")
    return world
