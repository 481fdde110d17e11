"""What the authors' commands do (their arguments: cli/authors.py):

    python validate.py check-lesson [dayNN|PATH ...] [--fix] [--audit]   everything a lesson must satisfy
    python validate.py new dayNN|PATH --protocol NAME                    a new lesson that already grades

check-lesson prints one line per rule: pass, FAIL with what to fix, or skip with why; exit status 1
when a rule fails. Without a lesson it checks every lesson of lessons/. --fix first writes what is
generated: the exercise files (from the solutions), the READMEs' navigation lines, the root
README's course table (and, with --audit, the measured score into lesson.yaml).
"""
from __future__ import annotations

import os

from validator.authoring.templates import stale
from validator.lessons import LessonError, load_lesson

from . import course, rules
from .scaffold import new_lesson


def new(given: str, protocol_name: str) -> int:
    written = new_lesson(given, protocol_name)
    for path in written:
        print(f"wrote {_shown(path)}")
    print(f"next: python validate.py check-lesson {given}, then make it your lesson (README: Adding a lesson)")
    return 0


def check(names: list[str], fix: bool, audit: bool, jobs: int) -> int:
    lessons = [load_lesson(name) for name in names]
    failed = False
    for lesson in lessons:
        if fix:
            for path in fixed(lesson):
                print(f"wrote {_shown(path)}")
        print(f"{lesson.name} ({_shown(lesson.folder)})")
        verdicts = rules.check_lesson(lesson)
        verdicts.append(audited(lesson, fix, jobs) if audit else
                        rules.Verdict("audit", "skip", "not asked for (--audit: a minute or more)"))
        for verdict in verdicts:
            show(verdict)
        failed |= any(v.status == "FAIL" for v in verdicts)
    return 1 if failed else 0


def audited(lesson, fix: bool, jobs: int) -> rules.Verdict:
    """The audit's verdict; with fix, its score written into lesson.yaml."""
    try:
        verdict, measured = rules.audit_rule(lesson, jobs)
    except LessonError as error:  # the reference solution fails: no audit without one
        return rules.Verdict("audit", "FAIL", str(error), "make the solution score full marks first")
    if fix and not rules.record_audit(lesson, measured):
        print("  note: lesson.yaml has no `course:` `audit:` line to write the score to")
    return verdict


def fixed(lesson) -> list:
    """Write the lesson's generated files: its exercise file, its course's navigation and table."""
    wanted = stale(lesson)
    if wanted is not None:
        lesson.exercise.write_text(wanted, encoding="utf-8")
    return ([lesson.exercise] if wanted is not None else []) + course.fix_course(lesson.folder)


def show(verdict: rules.Verdict) -> None:
    print(f"  {verdict.status:<4}  {verdict.rule}" + (f": {verdict.detail}" if verdict.detail else ""))
    if verdict.fix:
        print(f"        fix: {verdict.fix}")


def _shown(path) -> str:
    try:
        return os.path.relpath(path)
    except ValueError:
        return str(path)
