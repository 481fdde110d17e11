"""Lessons: each is a folder under lessons/ with a lesson.yaml (title, TODOs, hints, messages), the
exercise file, the checks (pytest tests) and the mock's scenarios. Folder names give the order."""
from __future__ import annotations

import locale
import os
import string
from dataclasses import dataclass, field
from pathlib import Path

import yaml

from mock_llm import ScenarioError, check_protocol
from validator.files import LESSONS_DIR, SOLUTIONS_DIR, read_yaml

LANGS = ("en", "zh")


class LessonError(Exception):
    """Bad input a user can fix: an unknown lesson, a missing file, a malformed lesson.yaml.

    `key` names a message of messages.yaml, said in the user's language; errors only lesson
    authors meet pass their English text as the key."""

    def __init__(self, key: str, **params):
        super().__init__(say(key, "en", **params))
        self.key, self.params = key, params

    def said(self, lang: str) -> str:
        return say(self.key, lang, **self.params)


def said(error: Exception, lang: str) -> str:
    """An error's message in `lang`: a LessonError's translated, any other's as it is."""
    return error.said(lang) if isinstance(error, LessonError) else str(error)


@dataclass
class Todo:
    id: str
    function: str
    title: dict
    hints: list[dict]  # levels, each {en, zh}: from a nudge to nearly the answer

    @property
    def hint(self) -> dict:
        """The first level: what a report shows under a failing TODO."""
        return self.hints[0]


def _hints(value) -> list[dict]:
    """`hint: {en, zh}` (one level) or `hints: [{en, zh}, ...]` (levelled), as a list of levels."""
    levels = value if isinstance(value, list) else [value]
    if not levels or not all(isinstance(h, dict) and "en" in h and "zh" in h for h in levels):
        raise ValueError("each hint needs an en and a zh text")
    return levels


@dataclass
class Lesson:
    name: str
    folder: Path
    title: dict
    exercise: Path
    checks: Path
    time_limit: float
    llm_call_budget: int
    step_limit: str  # the name of the loop's step-limit parameter, for messages
    live: list[str]  # the scenarios `validate.py --live` runs against a real model
    todos: list[Todo]
    model_function: str | None  # the exercise's function that calls the model (llm_call), if any
    types: list[str]  # the exercise's classes the checks build (Tool, AgentStep, …)
    solution: Path
    messages: dict = field(default_factory=dict)
    files: list[Path] = field(default_factory=list)  # the lesson's files the learner's code may read
    sleep_given: bool = False  # its functions are handed a `sleep`: in graded calls time.sleep is refused

    def todo(self, todo_id: str) -> Todo:
        return next(t for t in self.todos if t.id == todo_id)


def lesson_names() -> list[str]:
    return sorted(p.parent.name for p in LESSONS_DIR.glob("*/lesson.yaml"))


def load_lesson(name: str) -> Lesson:
    """A lesson by name (lessons/<name>/), or by the path of any folder holding a lesson.yaml."""
    folder = LESSONS_DIR / name
    if not (folder / "lesson.yaml").is_file() and (Path(name) / "lesson.yaml").is_file():
        folder = Path(name).resolve()
    path = folder / "lesson.yaml"
    if not path.is_file():
        known = ", ".join(lesson_names()) or "none"
        raise LessonError("unknown_lesson", name=name, known=known)
    try:
        data = read_yaml(path)
        _check_shape(data)
        lesson = Lesson(
            name=folder.name, folder=folder, title=data["title"],
            exercise=folder / data["exercise"], checks=folder / data.get("checks", "checks.py"),
            time_limit=float(data.get("time_limit", 3)),
            llm_call_budget=int(data.get("llm_call_budget", 25)),
            step_limit=data.get("step_limit", "max_steps"),
            live=list(data.get("live", [])),
            todos=[Todo(str(t["id"]), t["function"], t["title"], _hints(t.get("hints", t.get("hint"))))
                   for t in data["todos"]],
            model_function=data.get("model_function"),
            types=[str(t) for t in data.get("types", [])],
            solution=(folder / data["solution"]) if "solution" in data else SOLUTIONS_DIR / f"{folder.name}.py",
            messages=data.get("messages", {}),
            files=[folder / str(f) for f in data.get("files", [])],
            sleep_given=bool(data.get("sleep_given", False)),
        )
        for file in lesson.files:
            if not file.is_file():
                raise LessonError(f"{path}: `files` names {file.name}, which is not in {folder}")
        scenarios = read_yaml(folder / "scenarios.yaml")
        check_protocol(str(scenarios.get("protocol", "")) if isinstance(scenarios, dict) else "")
    except FileNotFoundError as err:
        raise LessonError(f"{folder}: missing {Path(err.filename).name}") from None
    except yaml.YAMLError as err:
        raise LessonError(f"{path}: not valid YAML: {err}") from None
    except ScenarioError as err:
        raise LessonError(f"{folder / 'scenarios.yaml'}: {err}") from None
    except ValueError as err:  # _check_shape's: what the file lacks
        raise LessonError(f"{path}: {err}") from None
    except (KeyError, TypeError) as err:
        raise LessonError(f"{path}: malformed lesson data ({type(err).__name__}: {err})") from None
    return lesson


def _check_shape(data) -> None:
    """What a lesson.yaml must hold, said as its author reads it (not a KeyError from deep inside):
    a ValueError, reported with the file's path by load_lesson."""
    if not isinstance(data, dict):
        raise ValueError("the file holds no `key: value` lines (title:, exercise:, todos: ...)")
    for key in ("title", "exercise", "todos"):
        if key not in data:
            raise ValueError(f"no `{key}:`")
    for key, kind in (("time_limit", (int, float)), ("llm_call_budget", int)):
        value = data.get(key, 1)
        if isinstance(value, bool) or not isinstance(value, kind) or value <= 0:
            raise ValueError(f"`{key}: {value}` is not a number above 0")
    if not isinstance(data["todos"], list) or not data["todos"]:
        raise ValueError("`todos:` is not a list of TODOs (each with id, function and title)")
    seen = set()
    for number, todo in enumerate(data["todos"], start=1):
        missing = [key for key in ("id", "function", "title") if not isinstance(todo, dict) or key not in todo]
        if missing:
            raise ValueError(f"TODO number {number} has no `{missing[0]}:`")
        if str(todo["id"]) in seen:
            raise ValueError(f"two TODOs have the id {todo['id']}")
        seen.add(str(todo["id"]))


def default_lang() -> str:
    """zh when the locale says Chinese, else en."""
    for var in ("LC_ALL", "LC_MESSAGES", "LANG", "LANGUAGE"):
        if os.environ.get(var):
            return "zh" if os.environ[var].lower().startswith("zh") else "en"
    return "zh" if (locale.getlocale()[0] or "").lower().startswith("zh") else "en"


_catalog: dict | None = None


def catalog() -> dict:
    """The validator's own messages (validator/messages.yaml): key -> {en: ..., zh: ...}."""
    global _catalog
    if _catalog is None:
        _catalog = read_yaml(Path(__file__).with_name("messages.yaml"))
    return _catalog


class _Keep(dict):
    def __missing__(self, key):  # a message names a parameter nobody gave: show it, don't crash
        return "{" + key + "}"


def say(key: str, lang: str, source: Lesson | None = None, /, **params) -> str:
    """The message `key` in `lang`, from the lesson's messages (source) or the validator's."""
    entry = (source.messages if source else {}).get(key) or catalog().get(key) or {"en": key}
    text = entry.get(lang) or entry["en"]
    if "{where}" in text and "where" not in params:  # a line of the learner's file: `line` says which
        params["where"] = say("where_line", lang, line=params.get("line", "?"))
    return string.Formatter().vformat(text, (), _Keep(_told_apart(text, params)))


def _told_apart(text: str, params: dict) -> dict:
    """The params, with two that differ but would read alike ("OPENAI_TIMEOUT was 20, but load_config
    gave timeout=20": the str "20" and the number 20) given as their repr(), which tells them apart."""
    formatter, shown = string.Formatter(), {}
    for _, name, spec, conversion in formatter.parse(text):
        if name in params and name not in shown and not conversion:  # {x!r} shows its type already
            try:
                shown[name] = formatter.format_field(params[name], spec or "")
            except (TypeError, ValueError):  # a spec that does not fit the value: vformat says so
                return params
    alike = {a for a in shown for b in shown
             if a != b and shown[a] == shown[b] and (type(params[a]) is not type(params[b]) or params[a] != params[b])}
    return {name: repr(value) if name in alike else value for name, value in params.items()}
