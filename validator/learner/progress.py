"""The learner's way through the course, read from their workspace: `list`, `next`, `hint`,
`reset`, the progress bar, their own copy of an exercise, and what to do after a lesson passes.
"""
from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

from mock_llm import ScenarioError
from validator.console import kit_command, shown_path, stderr
from validator.learner import workspace
from validator.lessons import LessonError, lesson_names, load_lesson, said, say

if TYPE_CHECKING:
    from rich.console import Console


def my_copy(lesson, lang: str) -> Path:
    """The learner's copy of the lesson's exercise; made now, from the template, it says so in one
    line (on stderr: it is no part of a report or a results file)."""
    path, created = workspace.working_copy(lesson)
    if created:
        stderr().print(say("working_copy_made", lang, path=shown_path(path), template=shown_path(lesson.exercise)),
                       style="cyan", markup=False)
    return path


def after_pass(lesson, console: Console, lang: str) -> None:
    """What to do now: the next lesson, the reference solution to compare with (where this copy of
    the course has one), another seed."""
    names = lesson_names()
    later = names[names.index(lesson.name) + 1:] if lesson.name in names else []
    if lesson.solution.is_file():
        console.print(say("after_pass", lang, solution=shown_path(lesson.solution), name=lesson.name,
                          command=kit_command()),
                      markup=False)
    else:
        console.print(say("after_pass_other_seed", lang, name=lesson.name, command=kit_command()), markup=False)
    if later:
        console.print(say("after_pass_next", lang, name=later[0], command=kit_command()), style="bold", markup=False)
    else:
        console.print(say("course_done", lang), style="bold green", markup=False)


def list_lessons(console: Console, lang: str) -> int:
    """Every lesson with your best score so far (from your progress, no grading: instant)."""
    from rich.table import Table  # only here: grading does without it

    state = workspace.load_state().get("lessons", {})
    table = Table(box=None, pad_edge=False)
    for column in ("list_lesson", "list_title", "list_status", "list_score"):
        table.add_column(say(column, lang))
    names, passed = lesson_names(), 0
    for name in names:
        try:
            lesson = load_lesson(name)
        except (LessonError, ScenarioError) as error:
            table.add_row(name, "?", say("list_broken", lang, error=said(error, lang)), "", style="red")
            continue
        entry = state.get(name) or {}
        if entry.get("passed"):
            passed += 1
            status, style = say("status_passed", lang), "green"
        elif entry:
            status, style = say("status_started", lang), "yellow"
        else:
            status, style = say("status_new", lang), None
        score = f"{entry['best']}/{entry['max']}" if "max" in entry else ""
        table.add_row(name, lesson.title[lang], status, score, style=style)
    console.print(table)
    console.print(progress_bar(passed, len(names), lang))
    return 0


def progress_bar(done: int, total: int, lang: str, width: int = 30) -> str:
    filled = round(width * done / total) if total else 0
    return f"{'█' * filled}{'░' * (width - filled)} " + say("course_progress", lang, done=done, total=total)


def first_unfinished() -> str | None:
    state = workspace.load_state().get("lessons", {})
    return next((n for n in lesson_names() if not (state.get(n) or {}).get("passed")), None)


def next_lesson(console: Console, lang: str) -> int:
    name = first_unfinished()
    if name is None:
        console.print(say("course_done", lang), style="bold green", markup=False)
        return 0
    lesson = load_lesson(name)
    path = workspace.folder() / lesson.exercise.name
    console.print(say("next_lesson", lang, name=name, title=lesson.title[lang],
                      readme=shown_path(lesson.folder / ("README.md" if lang == "en" else f"README.{lang}.md")),
                      path=shown_path(path), command=kit_command()), markup=False)
    return 0


def hint(lesson, console: Console, lang: str) -> int:
    """Grade your copy quietly, then show the next hint level of the first TODO that fails."""
    from rich.text import Text

    from validator.grading.grade import grade
    from validator.grading.report import block, first_failing_todo

    path = my_copy(lesson, lang)
    result = grade(lesson, path)
    workspace.record_score(lesson.name, result.score, result.max_score)
    todo_id = first_failing_todo(result)
    if todo_id is None:
        console.print(say("hint_all_pass", lang, name=lesson.name), style="green", markup=False)
        return 0
    todo = lesson.todo(todo_id)
    level = workspace.next_hint_level(lesson.name, todo_id, len(todo.hints))
    console.print(say("hint_header", lang, todo=todo_id, title=todo.title[lang], function=todo.function,
                      level=level, levels=len(todo.hints)), style="bold", markup=False)
    for shown in todo.hints[:level]:
        block(console, shown[lang], 4, "yellow", lead=Text("  • ", style="yellow"))
    if level < len(todo.hints):
        console.print(say("hint_more", lang, name=lesson.name, command=kit_command()), style="dim", markup=False)
    return 1


def reset(lesson, console: Console, lang: str, yes: bool) -> int:
    path = workspace.folder() / lesson.exercise.name
    if path.exists() and not yes:
        console.print(say("reset_confirm", lang, path=shown_path(path)), end=" ", markup=False)
        try:
            answer = input()
        except EOFError:
            answer = ""
        if answer.strip().lower() not in ("y", "yes", "是", "好"):
            console.print(say("reset_cancelled", lang), markup=False)
            return 1
    backup = workspace.reset(lesson)
    console.print(say("reset_done", lang, path=shown_path(path), name=lesson.name), markup=False)
    if backup:
        console.print(say("reset_backup", lang, backup=shown_path(backup)), style="dim", markup=False)
    return 0
