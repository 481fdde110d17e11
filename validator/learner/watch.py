"""`python validate.py watch [dayNN]`: grade your copy of the exercise on every save.

One pytest session stays open for a lesson: the checks are collected once and run again after each
save, in the same warm process (the grader, pytest, the mock are imported once), so a result comes
back a moment after you save. The screen shows the score, the first failing check with its
message, the hints you asked for and the course's progress. When the lesson passes it moves on to
the next one. Keys: `h` the next hint, `q` (or Ctrl-C) quit. With no terminal (piped), it prints
one line per grading and reads no keys.
"""
from __future__ import annotations

import contextlib
import os
import queue
import sys
import threading
import time
from pathlib import Path

import pytest
import watchfiles
from rich.console import Console
from rich.padding import Padding
from rich.text import Text

from mock_llm import load_world
from validator.grading.grade import Collector, Grade, checks_loaded, run_checks, run_items
from validator.grading.report import failure_text, first_failing_todo
from validator.grading.runner import open_submission
from validator.isolation import jail
from validator.learner import workspace
from validator.learner.artifacts import page_path, write_trace_page
from validator.learner.progress import first_unfinished, my_copy, progress_bar  # the same bar as `list`
from validator.lessons import lesson_names, load_lesson, say

QUIT, HINT, SAVED = "quit", "hint", "saved"


class Keys:
    """Single key presses from the terminal, read by a thread; `wake` is set on each one."""

    def __init__(self, wake: threading.Event):
        self.wake, self.pressed = wake, queue.Queue()
        self.saved_mode = None
        if not sys.stdin.isatty():
            return
        try:
            import termios
            import tty
        except ImportError:  # Windows: msvcrt reads single keys without any mode to set
            import msvcrt
            self.read_key = msvcrt.getwch
        else:
            self.saved_mode = termios.tcgetattr(sys.stdin.fileno())
            tty.setcbreak(sys.stdin.fileno())
            self.read_key = lambda: os.read(sys.stdin.fileno(), 1).decode("utf-8", "replace")
        threading.Thread(target=self._read, daemon=True, name="keys").start()

    def _read(self):
        while True:
            key = self.read_key().lower()
            if key in ("q", "h"):
                self.pressed.put(QUIT if key == "q" else HINT)
                self.wake.set()

    def restore(self):
        if self.saved_mode is not None:
            import termios
            termios.tcsetattr(sys.stdin.fileno(), termios.TCSADRAIN, self.saved_mode)


class WatchLoop:
    """A pytest plugin that runs the collected checks again after every save of the file."""

    def __init__(self, lesson, path, collector: Collector, screen: "Screen", keys: Keys, wake: threading.Event,
                 page: Path | None = None, open_page: bool = False):
        self.lesson, self.path, self.collector = lesson, path, collector
        self.page, self.open_page = page, open_page  # --html: the trace page rewritten after each grading
        self.screen, self.keys, self.wake = screen, keys, wake
        self.passed = False
        self.graded = None  # the file's signature when it was last graded
        self.reserve = None  # a child with its interpreter started, waiting to load the file

    def new_child(self):
        child = open_submission(self.lesson, self.collector.scenario_world, self.path)
        child.spawn(load=False)
        return child

    @pytest.hookimpl(tryfirst=True)
    def pytest_runtestloop(self, session):
        if not checks_loaded(session):
            return None
        while True:
            grade = self.grade_once(session.items)
            workspace.record_score(self.lesson.name, grade.score, grade.max_score)
            self.screen.draw(grade)
            if self.page:
                write_trace_page(grade, self.screen.lang, self.page, self.open_page)
                self.open_page = False  # opened once: the learner reloads the tab after a save
            if grade.score == grade.max_score:
                self.passed = True
                self.reserve.close()
                return True
            event = self.wait()
            while event == HINT:
                self.screen.more_hint(grade)
                event = self.wait()
            if event == QUIT:
                self.reserve.close()
                return True

    def grade_once(self, items) -> Grade:
        self.graded = self.signature()
        try:
            return run_items(items, self.collector, self.reserve or self.new_child(), self.path)
        finally:
            self.reserve = self.new_child()  # started now, while the learner edits: ready at the save

    def wait(self) -> str:
        """The next event: a key pressed, or the file saved. A real watcher wakes us; every half
        second the file's signature is compared too, for a save made before the watcher started."""
        while True:
            with contextlib.suppress(queue.Empty):
                return self.keys.pressed.get_nowait()
            self.wake.clear()
            for changes in watchfiles.watch(self.path.parent, stop_event=self.wake, debounce=50, step=20,
                                            watch_filter=self._is_ours, raise_interrupt=True,
                                            rust_timeout=500, yield_on_timeout=True):
                if changes or self.signature() != self.graded:
                    return SAVED

    def signature(self):
        try:
            stat = self.path.stat()
        except OSError:
            return None
        return stat.st_mtime_ns, stat.st_size

    def _is_ours(self, change, path: str) -> bool:
        return os.path.abspath(path) == str(self.path) and change != watchfiles.Change.deleted


class Screen:
    """What watch shows: redrawn whole on a terminal, one line per grading otherwise."""

    def __init__(self, console: Console, lang: str):
        self.console, self.lang = console, lang

    def draw(self, grade: Grade) -> None:
        say_ = lambda key, **params: say(key, self.lang, **params)  # noqa: E731
        state = workspace.load_state()
        passed = sum(1 for entry in state.get("lessons", {}).values() if entry.get("passed"))
        lesson = grade.lesson
        line = f"{lesson.name} {grade.score}/{grade.max_score}"
        if not self.console.is_terminal:
            todo = first_failing_todo(grade)
            print(line + (f" · {say_('report_summary', todo=todo)}" if todo else f" · {say_('report_summary_pass')}"),
                  flush=True)
            return
        self.console.clear()
        self.console.print(Text(f"reactlings watch · {lesson.name} · {lesson.title[self.lang]}", style="bold"))
        self.console.print(progress_bar(passed, len(lesson_names()), self.lang))
        self.console.print(Text(say_("report_score") + f"{grade.score}/{grade.max_score}", style="bold"))
        self.console.print()
        failing = next((c for c in grade.checks if not c.passed), None)
        if failing is None:
            self.console.print(Text(say_("report_all_passed"), style="green"))
            return
        todo = lesson.todo(failing.todo)
        self.console.print(Text.assemble((f"TODO {todo.id}  ", "bold"), f"{todo.title[self.lang]} ",
                                         (f"({todo.function})", "dim")))
        self.console.print(Text("  ✗ ", style="red") + Text(failing.title[self.lang]))
        self.console.print(Padding(Text(failure_text(failing, grade, self.lang)), (0, 0, 0, 6)))
        level = state.get("hints", {}).get(lesson.name, {}).get(todo.id, 0)
        for hint in todo.hints[:level]:
            self.console.print(Padding(Text("• " + hint[self.lang], style="yellow"), (0, 0, 0, 2)))
        self.console.print()
        self.console.print(Text(say_("watch_keys", path=os.path.relpath(grade.path)), style="dim"))

    def more_hint(self, grade: Grade) -> None:
        todo_id = first_failing_todo(grade)
        if todo_id is not None:
            workspace.next_hint_level(grade.lesson.name, todo_id, len(grade.lesson.todo(todo_id).hints))
        self.draw(grade)


def watch(name: str | None, console: Console, lang: str, page: str | None = None, open_page: bool = False) -> int:
    """Grade on every save; with `page` (--html's PATH, "" for the default), rewrite the trace page
    after each grading, opened in the browser once with open_page."""
    # The learner's own code on their own machine: no jail to build at each save (and a child kept
    # in reserve must see the file as it is at the save, which a jail's view, made earlier, would not).
    os.environ[jail.OFF_VARIABLE] = "off"
    name = name or first_unfinished() or lesson_names()[-1]
    screen, wake = Screen(console, lang), threading.Event()
    keys = Keys(wake)
    try:
        while name:
            lesson = load_lesson(name)
            path = my_copy(lesson, lang)
            collector = Collector(lesson, None, load_world(lesson.folder))
            loop = WatchLoop(lesson, path.resolve(), collector, screen, keys, wake, page_path(page, lesson, path),
                             open_page)
            run_checks(lesson, collector, loop)
            if not loop.passed:
                return 0
            names = lesson_names()
            name = names[names.index(name) + 1] if name in names and name != names[-1] else None
            if name:
                console.print(say("watch_moving_on", lang, name=name), style="bold green", markup=False)
                time.sleep(1.5 if console.is_terminal else 0)
        console.print(say("course_done", lang), style="bold green", markup=False)
        return 0
    finally:
        keys.restore()
