"""Scenarios: the tasks a lesson gives the agent, and the tool calls the mock model makes for each.

A lesson's `scenarios.yaml` holds the data; this module turns it into `Scenario` objects for one
seed. Seed 0 gives the numbers of the lesson text (3 + 5 * 2 = 13); any other seed draws new ones,
so an answer typed into the code instead of computed fails.
"""
from __future__ import annotations

import random
import re
from dataclasses import dataclass, field
from pathlib import Path

import yaml

LESSONS_DIR = Path(__file__).resolve().parent.parent / "lessons"
DEFAULT_SEED = 0


class ScenarioError(ValueError):
    """A scenarios.yaml that cannot be used; the message names the file and the problem."""


@dataclass(frozen=True)
class Call:
    tool: str
    input: str  # a template: {var}, {obs1}, {obs1:number}
    thought: str


@dataclass
class Scenario:
    name: str
    question: str
    calls: list[Call]
    answer: str
    tools: list[str]  # the tools the agent is given for this task
    repeat: bool  # never finish: after the scripted calls, repeat the last one with {n} counting
    values: dict = field(default_factory=dict)  # the drawn variables

    def call(self, index: int) -> Call | None:
        """The index-th tool call (0-based) the model makes, or None when it is ready to answer."""
        if index < len(self.calls):
            return self.calls[index]
        return self.calls[-1] if self.repeat else None

    def render(self, template: str, observations: list[str]) -> str:
        """Fill a template from the drawn values and the observations read so far."""
        names = dict(self.values, n=len(observations) + 1)
        names.update({f"obs{i}": obs for i, obs in enumerate(observations, start=1)})

        def fill(match: re.Match) -> str:
            name, flt = match.group(1), match.group(2)
            if name not in names:
                raise ScenarioError(f"scenario {self.name!r}: unknown placeholder {{{name}}}")
            value = str(names[name])
            return first_number(value) if flt == "number" else value

        return re.sub(r"\{(\w+)(?::(\w+))?\}", fill, template)


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
    """Everything one lesson's scenarios need for one seed: scenarios, tool descriptions, weather."""
    scenarios: dict[str, Scenario]
    tool_descriptions: dict[str, str]
    weather: dict[str, str]  # city -> report, for the Weather tool
    seed: int


def load_world(lesson: str, seed: int = DEFAULT_SEED, path: Path | None = None) -> LessonWorld:
    path = path or LESSONS_DIR / lesson / "scenarios.yaml"
    try:
        data = yaml.safe_load(path.read_text(encoding="utf-8"))
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
        scenarios = {
            name: Scenario(
                name=name,
                question="",
                calls=[Call(c["tool"], str(c["input"]), c.get("thought", "I should use a tool."))
                       for c in spec.get("calls", [])],
                answer=spec["answer"] if "answer" in spec else "",
                tools=spec.get("tools", list(data.get("tools", {}))),
                repeat=bool(spec.get("repeat", False)),
                values=values,
            )
            for name, spec in data["scenarios"].items()
        }
        for name, scenario in scenarios.items():
            scenario.question = scenario.render(data["scenarios"][name]["question"], [])
    except (KeyError, TypeError, ValueError) as err:
        raise ScenarioError(f"{path}: malformed scenario data ({type(err).__name__}: {err})") from None
    return LessonWorld(scenarios, dict(data.get("tools", {})), weather, seed)
