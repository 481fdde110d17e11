"""Everything a lesson must satisfy, each rule a function of the lesson that says pass, fail (with
what to fix) or skip (with why): `python validate.py check-lesson dayNN` runs them in seconds, and
the kit's tests call the same functions, so a rule is stated once.
"""
from __future__ import annotations

import ast
import inspect
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Callable

from mock_llm import ScenarioError
from validator.authoring.templates import stale
from validator.files import ROOT
from validator.lessons import LANGS, Lesson, LessonError

from . import corpus, course, texts

FULL_MARKS_SEEDS = (0, 7)  # the lesson's own seed, and one that draws other numbers
FIX = course.FIX


@dataclass
class Verdict:
    rule: str
    status: str  # "pass", "FAIL" or "skip"
    detail: str = ""  # what was found
    fix: str = ""  # what to do about it, when it failed


def called(lesson: Lesson) -> str:
    """How a command names the lesson: a lesson of lessons/ by its name, any other by its folder."""
    return lesson.name if course.in_kit(lesson.folder) else str(lesson.folder)


def verdict(rule: str, problems: list[str], fix: str, passed: str = "") -> Verdict:
    return Verdict(rule, "FAIL", "; ".join(problems), fix) if problems else Verdict(rule, "pass", passed)


# ---------------------------------------------------------------- grading

def scores(lesson: Lesson, path: Path, seeds) -> list[tuple[int, int]]:
    from validator.grading.grade import grade  # only here: the other rules do without pytest's start-up
    return [(result.score, result.max_score) for result in (grade(lesson, path, seed) for seed in seeds)]


def solution_rule(lesson: Lesson) -> Verdict:
    name = "solution scores full marks"
    if not lesson.solution.is_file():
        return Verdict(name, "FAIL", f"no {lesson.solution}", "write the reference solution there")
    got = scores(lesson, lesson.solution, FULL_MARKS_SEEDS)
    short = [f"{score}/{most} at seed {seed}" for seed, (score, most) in zip(FULL_MARKS_SEEDS, got) if score < most]
    return verdict(name, short, f"python validate.py {called(lesson)} --solution --seed N shows what fails",
                   f"{got[0][0]}/{got[0][1]} at seeds {' and '.join(map(str, FULL_MARKS_SEEDS))}")


def template_rule(lesson: Lesson) -> Verdict:
    name = "exercise file scores 0"
    if not lesson.exercise.is_file():
        return Verdict(name, "FAIL", f"no {lesson.exercise.name}", f"{FIX} writes it from the solution")
    (score, most), = scores(lesson, lesson.exercise, FULL_MARKS_SEEDS[:1])
    return verdict(name, [f"{lesson.exercise.name} scores {score}/{most}"] if score else [],
                   "each check must need some TODO's code: put that code between # BEGIN SOLUTION and "
                   "# END SOLUTION in the solution", f"0/{most}")


def template_current_rule(lesson: Lesson) -> Verdict:
    name = "exercise file is made from the solution"
    if not lesson.solution.is_file():
        return Verdict(name, "skip", "no solution to make it from")
    return verdict(name, [f"{lesson.exercise.name} is not what the solution makes"] if stale(lesson) else [],
                   f"{FIX} (or python -m validator.authoring.templates) writes it")


# ---------------------------------------------------------------- the checks' source

def checks_import_problems(path: Path) -> list[str]:
    """Checks see the kit through validator.checking alone, so the core can change under them."""
    problems = []
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.ImportFrom):
            module = node.module or ""
        elif isinstance(node, ast.Import):
            module = node.names[0].name
        else:
            continue
        if module != "validator.checking" and module.split(".")[0] in ("validator", "mock_llm"):
            problems.append(f"{path.name}:{node.lineno} imports {module}")
    return problems


def checks_import_rule(lesson: Lesson) -> Verdict:
    return verdict("checks import only validator.checking", checks_import_problems(lesson.checks),
                   "use what validator.checking exports (its __all__); ask for more there")


def checks_signature_problems(checks: dict) -> list[str]:
    """A check asks for `learner` and `world` only, and is not parametrized: the grader calls it
    with those itself (grade.Collector), not through pytest's fixtures."""
    from validator.checking import CHECK_FIXTURES  # imported by the checks already (check_functions)
    problems = []
    for name, func in checks.items():
        asked = [p for p in inspect.signature(func).parameters if p not in CHECK_FIXTURES]
        if asked:
            problems.append(f"{name} asks for {', '.join(asked)}")
        if any(m.name == "parametrize" for m in getattr(func, "pytestmark", [])):
            problems.append(f"{name} is parametrized")
    return problems


def checks_signature_rule(lesson: Lesson) -> Verdict:
    return verdict("checks take learner and world only",
                   checks_signature_problems(texts.check_functions(lesson.folder)),
                   "take what a check needs from `learner` and `world`; a case per scenario is a loop inside the check")


def texts_rule(lesson: Lesson) -> Verdict:
    problems = texts.lesson_text_problems(lesson.folder)
    problems += texts.check_title_problems(lesson.folder, texts.check_functions(lesson.folder))
    return verdict("every text in en and zh", problems,
                   "give each title, hint, message and @check title both en and zh, with the same {placeholders}")


def message_keys_rule(lesson: Lesson) -> Verdict:
    return verdict("message keys exist, placeholders filled", texts.message_key_problems(lesson.folder),
                   "add the key under `messages:` in lesson.yaml (en and zh), or pass the missing parameters")


def readme_language_rule(lesson: Lesson) -> Verdict:
    folder = lesson.folder
    problems = [p for lang in LANGS for p in texts.readme_missing(folder, lang)]
    problems += texts.language_problems(folder) + texts.english_comments(folder) + texts.heading_problems(folder)
    return verdict("READMEs in their language, with the same headings", problems,
                   "README.md in English, README.zh.md in Chinese (its prose and its code comments; names stay "
                   "English), the same headings in the same order")


def readme_todos_rule(lesson: Lesson) -> Verdict:
    problems = [p for lang in LANGS for p in texts.readme_todo_problems(lesson.folder, lang)]
    return verdict("READMEs name each TODO with its function", problems,
                   "write `TODO x.y` and its function's name in README.md and README.zh.md")


# ---------------------------------------------------------------- the course

def navigation_rule(lesson: Lesson) -> Verdict:
    problems = [p for lang in LANGS for p in course.navigation_problems(lesson.folder, lang)]
    return verdict("READMEs link to the lessons before and after", problems, f"{FIX} writes the navigation lines")


def table_rule(lesson: Lesson) -> Verdict:
    name = "the root README's course table"
    if not course.in_kit(lesson.folder):
        return Verdict(name, "skip", "not a lesson of the kit's lessons/")
    return verdict(name, course.table_problems(), f"{FIX} writes it from each lesson.yaml `course:`")


def corpus_rule(lesson: Lesson) -> Verdict:
    name, minimum = "corpus minimum", texts.lesson_data(lesson.folder).get("corpus")
    folder = corpus.CORPUS / lesson.name
    if minimum is None:
        if not course.in_kit(lesson.folder):
            return Verdict(name, "skip", "a lesson outside lessons/ whose lesson.yaml sets no `corpus:`")
        least = smallest_minimum()
        return Verdict(name, "FAIL", "lesson.yaml sets no `corpus: {good: N, bad: M}`",
                       f"write at least {least['good']} good_*.py and {least['bad']} bad_*.py in "
                       f"{folder.relative_to(ROOT)}/ (the least any lesson has), then set `corpus:` to their numbers")
    return verdict(name, corpus.corpus_problems(lesson.name, minimum, [t.id for t in lesson.todos]),
                   f"add submissions to {folder.relative_to(ROOT)}/, each with its header (README: Adding a lesson)",
                   f"{minimum['good']} good, {minimum['bad']} bad at least")


def smallest_minimum() -> dict:
    minimums = [m for m in (texts.lesson_data(f).get("corpus") for f in course.kit_lessons()) if m]
    return {kind: min((m[kind] for m in minimums), default=1) for kind in ("good", "bad")}


# ---------------------------------------------------------------- all of them

RULES: list[Callable[[Lesson], Verdict]] = [
    solution_rule, template_rule, template_current_rule, checks_import_rule, checks_signature_rule, texts_rule,
    message_keys_rule, readme_language_rule, readme_todos_rule, navigation_rule, table_rule, corpus_rule]


def check_lesson(lesson: Lesson) -> list[Verdict]:
    """Every rule's verdict. A rule that cannot run (a file missing or malformed) fails with why."""
    verdicts = []
    for rule in RULES:
        try:
            verdicts.append(rule(lesson))
        except (LessonError, ScenarioError, OSError, SyntaxError, KeyError, TypeError, ValueError) as error:
            name = rule.__name__.removesuffix("_rule").replace("_", " ")
            verdicts.append(Verdict(name, "FAIL", f"could not check: {type(error).__name__}: {error}",
                                    "fix what it names, then run check-lesson again"))
    return verdicts


AUDIT_FIX = "read each survivor in `python validate.py audit LESSON` and add the check that kills it (README: audit)"


def audit_rule(lesson: Lesson, jobs: int) -> tuple[Verdict, str | None]:
    """The mutation audit's verdict (validator/authoring/audit.py, its THRESHOLD), and killed/counted."""
    from validator.authoring.audit import THRESHOLD, audit, passed
    result = audit(lesson, jobs=jobs)
    measured = f"{result.killed}/{len(result.counted)}"
    detail = f"{result.score:.1f} % ({measured}) killed on their own TODO"
    if passed(result):
        return Verdict("audit", "pass", detail), measured
    wrong = [f"stale equivalent {s}" for s in result.stale] + [
        f"{o.mutant.id} is listed as equivalent, but {o.status}" for o in result.outcomes if o.equivalent and o.status != "survived"]
    return Verdict("audit", "FAIL", "; ".join([f"{detail}, under {THRESHOLD:.0f} %"] + wrong),
                   AUDIT_FIX.replace("LESSON", called(lesson))), measured


def record_audit(lesson: Lesson, measured: str) -> bool:
    """Write killed/counted into lesson.yaml's `course:` `audit:` line; whether it has one."""
    path = lesson.folder / "lesson.yaml"
    text = path.read_text(encoding="utf-8")
    new = re.sub(r"(?m)^(  audit:[ \t]*)[^#\n]*?(\s*(?:#.*)?)$", lambda m: m[1] + measured + m[2], text, count=1)
    if new != text:
        path.write_text(new, encoding="utf-8")
    return re.search(r"(?m)^  audit:", text) is not None
