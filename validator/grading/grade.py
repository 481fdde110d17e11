"""Grade one file: run the lesson's checks with pytest and collect one result per check.

A small pytest plugin (`Collector`) gives the checks their fixtures and records each outcome with
its TODO and points, as exercism's test runner does; report.py turns the results into output.
"""
from __future__ import annotations

import linecache
import os
import sys
import time
import traceback
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

import pytest

from mock_llm import DEFAULT_SEED, LessonWorld, load_world
from validator.checking import CHECK_FIXTURES, AgentRun, Fail, Learner
from validator.grading.runner import Submission, start_submission
from validator.lessons import Lesson, LessonError

if TYPE_CHECKING:
    from validator.grading.notebooks import Program


@dataclass
class CheckResult:
    name: str
    todo: str
    points: int
    title: dict  # {"en": ..., "zh": ...}
    passed: bool
    failure: Fail | None = None
    runs: list[AgentRun] = field(default_factory=list)
    printed: str = ""  # the learner's printing during the check's last call


@dataclass
class Grade:
    lesson: Lesson
    path: Path
    seed: int
    checks: list[CheckResult]
    seconds: float = 0.0
    notebook: Program | None = None  # the notebook whose code `path` holds (notebooks.py)

    @property
    def score(self) -> int:
        return sum(c.points for c in self.checks if c.passed)

    @property
    def max_score(self) -> int:
        return sum(c.points for c in self.checks)

    def todo_score(self, todo_id: str) -> tuple[int, int]:
        mine = [c for c in self.checks if c.todo == todo_id]
        return sum(c.points for c in mine if c.passed), sum(c.points for c in mine)


TODO_MARKER = "todo(id, points, title): the TODO a check grades"  # registered wherever the checks are collected
# pytest plugins a grading run has no use for; leaving them out saves startup time on every grade.
# (unraisableexception runs the garbage collector twice as pytest ends, after the last check: an
# unraisable exception of the grader's own goes to its stderr without it, as Python prints it.)
UNUSED_PLUGINS = ("cacheprovider", "terminal", "junitxml", "pastebin", "doctest", "logging",
                  "warnings", "faulthandler", "stepwise", "legacypath", "tmpdir", "monkeypatch",
                  "recwarn", "setuponly", "setupplan", "debugging", "unittest", "nose", "unraisableexception")


class Collector:
    """The pytest plugin: runs the checks, each with the fixtures it names, and records every result."""

    def __init__(self, lesson: Lesson, submission: Submission, world: LessonWorld):
        self.lesson, self.submission = lesson, submission
        self.scenario_world = world  # handed to the checks as their `world`
        self.results: list[CheckResult] = []
        self.learners: dict[str, Learner] = {}
        self.interrupted = False

    def pytest_keyboard_interrupt(self, excinfo):
        # Ctrl-C; not pytest's own Interrupted (a KeyboardInterrupt too), which a collection error raises
        self.interrupted = isinstance(excinfo.value, KeyboardInterrupt) and not isinstance(
            excinfo.value, pytest.Session.Interrupted)

    def pytest_configure(self, config):
        config.addinivalue_line("markers", TODO_MARKER)
        config.option.tbstyle = "no"  # failures are reported from Fail, not pytest's tracebacks

    def pytest_collection_modifyitems(self, items):
        """The checks by TODO, in lesson.yaml's order, each TODO's in the file's: a check added at the
        end of checks.py is reported with its TODO's."""
        order = {todo.id: index for index, todo in enumerate(self.lesson.todos)}

        def todo_index(item):
            marker = item.get_closest_marker("todo")
            return order.get(str(marker.args[0]), len(order)) if marker else len(order)
        items.sort(key=todo_index)

    def pytest_runtestloop(self, session):
        """Run the collected checks ourselves (run_items, watch and class grading too): a check is
        called with its fixtures and its exception kept. pytest's own protocol around each one (its
        hooks, fixture setup, reports) costs more than many a check: a third of a class worker's
        time a student."""
        if not checks_loaded(session):
            return None  # pytest's own loop says why the checks could not be collected
        self.run(session.items)
        return True

    def run(self, items) -> None:
        for item in items:
            self._record(item, self._call(item))

    def _call(self, item) -> BaseException | None:
        """Call the check `item`, handing it the fixtures it names; what it raised, if anything."""
        asked = list(item.fixturenames)
        try:
            if set(asked) - set(CHECK_FIXTURES) or hasattr(item, "callspec"):
                raise LessonError(f"{item.name} asks for {', '.join(asked)}, or is parametrized: a check takes "
                                  f"{' and '.join(CHECK_FIXTURES)}, no other fixture")
            learner = self.learners[item.nodeid] = Learner(self.submission, self.lesson, self.scenario_world)
            fixtures = {"learner": learner, "world": self.scenario_world}
            item.obj(**{name: fixtures[name] for name in asked})
        except (KeyboardInterrupt, pytest.exit.Exception):  # Ctrl-C: the run stops (pytest_keyboard_interrupt)
            raise
        except BaseException as error:  # noqa: B036 - as pytest, a check that raised anything failed
            return error
        return None

    def _record(self, item, error: BaseException | None) -> None:
        marker = item.get_closest_marker("todo")
        if marker is None:
            raise LessonError(f"{item.nodeid}: a check needs @check(todo, points, en, zh)")
        failure = None
        learner = self.learners.get(item.nodeid)
        if error is not None:
            failure = error if isinstance(error, Fail) else _assert_failed(item, error) or _grader_failed(item, error)
            if isinstance(error, Fail) and learner:  # a cause before the loop's: tools lost in execute_tool
                failure = learner.tools_lost(str(marker.args[0])) or failure
        self.results.append(CheckResult(
            name=item.name, todo=str(marker.args[0]), points=int(marker.kwargs["points"]),
            title=marker.kwargs["title"], passed=error is None, failure=failure,
            runs=learner.runs if learner else [], printed=learner.printed if learner else ""))


def _assert_failed(item, error: BaseException) -> Fail | None:
    """A plain `assert condition, "message"` of the check itself (or of a helper in checking.py)
    fails the check as any pytest test fails: the learner reads its message, or, with none, its
    line. An AssertionError from anywhere else is the grader's own failure."""
    if type(error) is not AssertionError or error.__traceback__ is None:
        return None
    last = error.__traceback__
    while last.tb_next:
        last = last.tb_next
    where = Path(last.tb_frame.f_code.co_filename)
    if where not in (Path(item.path), Path(__file__).with_name("checking.py")):
        return None
    if str(error):
        return Fail("check_assert", message=str(error))
    return Fail("check_assert_line", line=linecache.getline(str(where), last.tb_lineno).strip())


def _grader_failed(item, error: BaseException) -> Fail:
    """A check that crashed: a bug of the grader's, on what the learner's code sent it, maybe. The
    report, which the learner reads, names the exception's type only; the traceback (the grader's
    paths, its values) goes to the grader's stderr, which the instructor reads. A lesson's own
    error (a check that builds a type lesson.yaml does not declare) is said whole: its author
    reads it, and it holds nothing of the grader's."""
    if isinstance(error, LessonError):
        return Fail("check_lesson_error", message=str(error))
    sys.stderr.write(f"reactlings: the check {item.nodeid} crashed:\n{''.join(traceback.format_exception(error))}")
    return Fail("check_crashed", type=type(error).__name__)


def run_checks(lesson: Lesson, collector: Collector, *plugins) -> None:
    """pytest on the lesson's checks with our plugins only: no conftest file, no plugin that
    installed itself, no ini options are taken from anywhere a submission could have written."""
    code = pytest.main(pytest_arguments(lesson), plugins=[collector, *plugins])
    if collector.interrupted:  # Ctrl-C, which pytest catches: the command that runs us says "stopped"
        raise KeyboardInterrupt
    if code not in (pytest.ExitCode.OK, pytest.ExitCode.TESTS_FAILED) or not collector.results:
        raise checks_broken(lesson, code)


def checks_broken(lesson: Lesson, code: int) -> LessonError:
    """The one error for a lesson whose checks pytest could not collect or run, however graded."""
    return LessonError(f"the checks of {lesson.name} could not run ({lesson.checks}, pytest exit code {int(code)})")


def pytest_arguments(lesson: Lesson) -> list[str]:
    """pytest's command line for the lesson's checks, with our plugins only."""
    os.environ["PYTEST_DISABLE_PLUGIN_AUTOLOAD"] = "1"
    return [str(lesson.checks), "-s", "--assert=plain", "--import-mode=importlib", "-o", "addopts=",
            "--noconftest", *(arg for plugin in UNUSED_PLUGINS for arg in ("-p", f"no:{plugin}"))]


def checks_loaded(session) -> bool:
    """Whether pytest collected the checks: a plugin that runs them itself (watch, class grading)
    leaves a failed collection to pytest's own loop, and run_checks then says why."""
    return not session.testsfailed and bool(session.items)


def run_items(items, collector: Collector, submission: Submission, path: Path,
              world: LessonWorld | None = None) -> Grade:
    """Run checks pytest has already collected, once more, on another submission (watch, class
    grading): one pytest session serves many gradings, so each costs no pytest start-up. `world`:
    the submission's, fresh (else one is made at the last grading's seed)."""
    started = time.monotonic()
    # a world of the lesson's own for each grading: nothing a tool, a check or a run kept in it
    # (day11's rounds of tool calls, the tool calls that ran) is seen by the next one
    collector.scenario_world = world or load_world(collector.lesson.folder, collector.scenario_world.seed)
    collector.results.clear()
    collector.learners.clear()
    collector.submission = submission
    submission.load()
    try:
        collector.run(items)
    finally:
        submission.close()
    world = collector.scenario_world
    return Grade(collector.lesson, path, world.seed, list(collector.results), time.monotonic() - started)


def grade(lesson: Lesson, path: Path, seed: int = DEFAULT_SEED,
          started: tuple[LessonWorld, Submission] | None = None) -> Grade:
    """Run every check of `lesson` against the file at `path`; `started`: its child, started
    already at `seed` (runner.start_submission), which this closes."""
    path = Path(path).resolve()
    if not path.is_file():
        raise LessonError("no_such_file", path=path)
    began = time.monotonic()
    world, submission = started or start_submission(lesson, path, seed)
    collector = Collector(lesson, submission, world)
    try:
        run_checks(lesson, collector)
    finally:
        submission.close()
    return Grade(lesson, path, seed, collector.results, time.monotonic() - began)
