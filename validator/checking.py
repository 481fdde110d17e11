"""What a lesson's checks are written with: the `check` marker, `expect`, and the `learner` handle.

A check is a plain pytest test. It calls the learner's functions through `learner` (they run in the
child process), looks at what came back and at the transcript, and fails with `Fail(key, ...)`:
a message key from lesson.yaml or validator/messages.yaml, so the report can speak en or zh.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Callable

import pytest

from mock_llm import LessonWorld, Scenario, TextReactSession
from mock_llm.chat import ChatSession
from mock_llm.tools import grading_tools

from .lessons import Lesson
from .runner import Opaque, Outcome, Record, Submission, Unawaited


def check(todo: str, points: int, en: str, zh: str):
    """Tag a check with its TODO, its points and its title in both languages."""
    return pytest.mark.todo(todo, points=points, title={"en": en, "zh": zh})


class Fail(Exception):
    """A failed check: a message key and its parameters; `detail` is shown verbatim (a traceback)."""

    def __init__(self, key: str, detail: str = "", **params):
        super().__init__(key)
        self.key, self.detail, self.params = key, detail, params


def expect(condition, key: str, **params):
    if not condition:
        raise Fail(key, **params)


def shown(value) -> str:
    """A value from the learner's process as the learner would write it in Python: a str as is,
    a dataclass as ToolResult(success=True, …), anything else by its repr()."""
    if isinstance(value, str):
        return value
    return _python(value)


def _python(value) -> str:
    if isinstance(value, Record):
        return f"{value.type}({', '.join(f'{k}={_python(v)}' for k, v in value.fields.items())})"
    if isinstance(value, Opaque):
        return value.text
    if isinstance(value, list):
        return "[" + ", ".join(_python(v) for v in value) + "]"
    if isinstance(value, tuple):
        return "(" + ", ".join(_python(v) for v in value) + ("," if len(value) == 1 else "") + ")"
    if isinstance(value, dict):
        return "{" + ", ".join(f"{_python(k)}: {_python(v)}" for k, v in value.items()) + "}"
    return repr(value)


def registry_arg(names: list[str]) -> dict:
    """A name -> function dict for the learner's code, each function run by the grader."""
    return {"$registry": names}


def completion_arg(response: dict) -> dict:
    """A Chat Completions response body, rebuilt in the child as an openai ChatCompletion."""
    return {"$completion": response}


def tools_arg(world: LessonWorld, names: list[str], extra: dict[str, str] | None = None) -> dict:
    """Tools for the learner's code: built in the child as its own Tool objects, run by the grader."""
    described = dict(world.tool_descriptions, **(extra or {}))
    return {"$tools": [{"name": n, "description": described[n]} for n in names]}


def steps_arg(steps: list[dict]) -> dict:
    return {"$steps": steps}


@dataclass
class ToolCall:
    name: str
    input: object  # the one positional argument (text protocol) or the keyword arguments (a dict)
    output: object
    failed: bool
    round: int  # how many model calls had been made when the tool ran


@dataclass
class ToolBox:
    """Runs the tools the learner's code calls, in the grader, and records every call."""
    world: LessonWorld
    calls: list[ToolCall] = field(default_factory=list)
    rounds: Callable[[], int] = lambda: 0

    def __post_init__(self):
        self.tools = grading_tools(self.world)  # once per run, not once per call

    def __call__(self, name: str, *args, **kwargs):
        given = args[0] if len(args) == 1 and not kwargs else (kwargs if not args else [*args, kwargs])
        tool = self.tools.get(name)
        try:
            if tool is None:
                raise LookupError(f"no tool named {name!r} in the grader")
            output = tool(*args, **kwargs)
        except Exception as error:
            self.calls.append(ToolCall(name, given, str(error), True, self.rounds()))
            raise
        self.calls.append(ToolCall(name, given, output, False, self.rounds()))
        return output


@dataclass
class AgentRun:
    """One run of the learner's loop on a scenario: what it returned and everything it did."""
    scenario: Scenario
    answer: object = None
    exchanges: list = field(default_factory=list)  # text: Exchange(prompt, reply); chat: HttpExchange
    tool_calls: list[ToolCall] = field(default_factory=list)
    outcome: Outcome | None = None


@dataclass
class Learner:
    """The learner's file as the checks see it: call its functions, run its agent on a scenario."""
    submission: Submission
    lesson: Lesson
    world: LessonWorld
    runs: list[AgentRun] = field(default_factory=list)  # every agent run of the current check
    printed: str = ""  # what the learner's code printed during the last call
    live_model: object = None  # validate.py --live: a real endpoint stands in for the mock
    limit: float | None = None  # seconds per call, if not the lesson's

    @property
    def time_limit(self) -> float:
        return self.limit or self.lesson.time_limit

    def call(self, func: str, *args, model=None, tools=None):
        outcome = self.submission.call(func, *args, timeout=self.time_limit, model=model, tools=tools)
        return self.result(func, outcome)

    def result(self, func: str, outcome: Outcome):
        """The value the call returned, or Fail with the reason it has none."""
        self.printed = outcome.stdout
        if outcome.unawaited or isinstance(outcome.value, Unawaited):
            raise Fail("unawaited", func=func)
        if outcome.problem:
            error = outcome.error or {}
            key = "import_syntax" if "line" in error else outcome.problem
            raise Fail(key, detail=error.get("traceback", ""), func=func,
                       seconds=outcome.detail, status=outcome.detail,
                       type=error.get("type", ""), message=error.get("message", ""),
                       line=error.get("line", "?"), text=error.get("text", ""))
        if outcome.error:
            error = outcome.error
            message = error["message"]
            if error["type"] == "NotImplementedError" and message.startswith("TODO"):
                raise Fail("not_implemented", todo=message.split(":")[0])
            key = "exited" if error["type"] == "SystemExit" else "crashed"
            raise Fail(key, detail=error.get("traceback", ""), func=func, type=error["type"],
                       message=message)
        return outcome.value

    def run_agent(self, func: str, scenario: str, *args) -> AgentRun:
        """Run func(question, *args) on a scenario, against a fresh session of the mock model
        speaking the lesson's protocol (or the live model); the run keeps the transcript and
        every tool call."""
        story = self.world.scenarios[scenario]
        session = self.live_model or (
            ChatSession(story, self.world.seed, budget=self.lesson.llm_call_budget)
            if self.world.protocol == "chat" else TextReactSession(story, budget=self.lesson.llm_call_budget))
        model = session.handle_raw if self.world.protocol == "chat" else session.reply
        toolbox = ToolBox(self.world, rounds=lambda: len(session.transcript))
        run = AgentRun(story, exchanges=session.transcript, tool_calls=toolbox.calls)
        self.runs.append(run)
        run.outcome = self.submission.call(func, story.question, *args, timeout=self.time_limit,
                                           model=model, tools=toolbox)
        if run.outcome.problem == "budget":
            raise Fail("budget", func=func, budget=self.lesson.llm_call_budget,
                       limit=self.lesson.step_limit)
        run.answer = self.result(func, run.outcome)
        return run
