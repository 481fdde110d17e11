"""Make each lesson's exercise file from its reference solution, the single source.

In solutions/dayNN.py, the code between `# BEGIN SOLUTION` and `# END SOLUTION` (the nbgrader/otter
convention) becomes `raise NotImplementedError("TODO x.y: …")`, x.y being the TODO named in the
lines above it. Everything else is copied as it is.

    python -m validator.authoring.templates          rewrite every exercise file
    python -m validator.authoring.templates --check  exit 1 if one is out of date (the kit's tests run this)
"""
from __future__ import annotations

import re
import sys

from validator.lessons import Lesson, LessonError, lesson_names, load_lesson

BEGIN, END = "# BEGIN SOLUTION", "# END SOLUTION"


def make_template(solution: str, lesson: Lesson) -> str:
    lines, out, done = solution.splitlines(keepends=True), [], 0
    for begin, end, todo_id in todo_regions(solution, lesson):
        out += lines[done:begin - 1]
        line = lines[begin - 1]
        indent = line[: len(line) - len(line.lstrip())]
        out.append(f'{indent}raise NotImplementedError("TODO {todo_id}: {lesson.todo(todo_id).title["en"]}")\n')
        done = end
    return "".join(out + lines[done:])


def todo_regions(solution: str, lesson: Lesson) -> list[tuple[int, int, str]]:
    """Each TODO's code in the solution: the line numbers (from 1) of its BEGIN and END markers, and
    the TODO named nearest above, outside other TODOs' code (the audit mutates only these lines)."""
    regions, outside, begin = [], [], None
    for number, line in enumerate(solution.splitlines(), start=1):
        stripped = line.strip()
        if stripped == BEGIN:
            if begin is not None:
                raise LessonError(f"{lesson.solution}:{number}: {BEGIN} inside another one")
            begin, todo_id = number, _todo_above(outside, lesson, number)
        elif stripped == END:
            if begin is None:
                raise LessonError(f"{lesson.solution}:{number}: {END} without {BEGIN}")
            regions.append((begin, number, todo_id))
            begin = None
        elif begin is None:
            outside.append(line)
    if begin is not None:
        raise LessonError(f"{lesson.solution}: {BEGIN} is never closed")
    return regions


def _todo_above(lines: list[str], lesson: Lesson, number: int) -> str:
    known = {t.id for t in lesson.todos}
    for line in reversed(lines):
        for found in re.findall(r"TODO (\d+\.\d+)", line):
            if found in known:
                return found
    raise LessonError(f"{lesson.solution}:{number}: no TODO of lesson.yaml named above {BEGIN}")


def stale(lesson: Lesson) -> str | None:
    """The exercise file the solution makes, when the one there is not it; None when it is (or there
    is no solution to make it from)."""
    if not lesson.solution.is_file():
        return None
    wanted = make_template(lesson.solution.read_text(encoding="utf-8"), lesson)
    current = lesson.exercise.read_text(encoding="utf-8") if lesson.exercise.is_file() else None
    return None if current == wanted else wanted


def main(argv: list[str]) -> int:
    check_only, out_of_date = "--check" in argv, []
    for name in lesson_names():
        lesson = load_lesson(name)
        wanted = stale(lesson)
        if wanted is None:
            continue
        out_of_date.append(lesson.exercise)
        if not check_only:
            lesson.exercise.write_text(wanted, encoding="utf-8")
            print(f"wrote {lesson.exercise}")
    if check_only and out_of_date:
        print("out of date (run `python -m validator.authoring.templates`): " + ", ".join(map(str, out_of_date)))
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
