"""Handing the course out, and grading where instructors already grade.

    python validate.py release --out DIR                 the learners' copy of the course
    python validate.py gradescope day06 --out FILE.zip   a Gradescope autograder for one lesson
    python validate.py github-classroom --out FILE.yml   a GitHub Classroom autograding workflow

The learners' copy is the course without what gives answers away: no solutions/, no kit tests and
no corpus of submissions; `python validate.py day06` works inside it. The Gradescope bundle holds
that copy plus the secret seed (never shown in results) and the two scripts Gradescope runs.
"""
from __future__ import annotations

import os
import shutil
import stat
import tempfile
import zipfile
from pathlib import Path

from .lessons import ROOT, Lesson, LessonError

SHIPPED = ["README.md", "pyproject.toml", "validate.py", ".gitignore", "lessons", "validator", "mock_llm"]
NEVER = {"__pycache__", ".pytest_cache", "workspace"}

SETUP_SH = """#!/usr/bin/env bash
# Gradescope runs this once, when it builds the autograder image.
set -euo pipefail
cd /autograder/source
python3 -m pip install --quiet .
"""

RUN_AUTOGRADER = """#!/usr/bin/env bash
# Gradescope runs this for each submission: grade it, write results/results.json.
set -uo pipefail
ROOT="${{AUTOGRADER_ROOT:-/autograder}}"
cd "$ROOT/source"
SUBMISSION="$(find "$ROOT/submission" -name '{exercise}' -type f | head -n 1)"
if [ -z "$SUBMISSION" ]; then
  SUBMISSION="$(find "$ROOT/submission" -name '*.py' -type f | head -n 1)"
fi
mkdir -p "$ROOT/results"
if [ -z "$SUBMISSION" ]; then
  printf '{{"score": 0, "output": "No {exercise} in your submission: upload the file you edited (workspace/{exercise}).", "tests": []}}\\n' > "$ROOT/results/results.json"
  exit 0
fi
# The seed moves from its file into the grader's environment, which the submission never sees.
export REACTLINGS_SEED="$(cat "$ROOT/source/seed")"
rm -f "$ROOT/source/seed"
python3 validate.py {lesson} --file "$SUBMISSION" --format gradescope \\
  --output "$ROOT/results/results.json" --lang {lang} --quiet
status=$?
if [ "$status" -ge 2 ]; then
  printf '{{"score": 0, "output": "The grader could not run (exit status %s): tell your instructor.", "tests": []}}\\n' "$status" > "$ROOT/results/results.json"
fi
exit 0
"""


def release(out: Path) -> Path:
    """Write the learners' copy of the course to `out` (which must not exist yet)."""
    if out.exists():
        raise LessonError("release_exists", path=out)
    out.mkdir(parents=True)
    for name in SHIPPED:
        source = ROOT / name
        if source.is_dir():
            shutil.copytree(source, out / name, ignore=shutil.ignore_patterns(*NEVER, "*.pyc"))
        elif source.is_file():
            shutil.copy2(source, out / name)
    return out


def gradescope_bundle(lesson: Lesson, out: Path, seed: int, lang: str) -> Path:
    """A zip for Gradescope's "zip file upload": setup.sh and run_autograder at its top, the
    learners' copy of the course and the seed beside them."""
    if lesson.folder.parent != ROOT / "lessons":
        raise LessonError("bundle_needs_course_lesson", name=lesson.name)
    with tempfile.TemporaryDirectory(prefix="reactlings-bundle-") as folder:
        course = release(Path(folder) / "course")
        (course / "seed").write_text(f"{seed}\n", encoding="utf-8")
        files = {"setup.sh": SETUP_SH,
                 "run_autograder": RUN_AUTOGRADER.format(exercise=lesson.exercise.name, lesson=lesson.name,
                                                         lang=lang)}
        partial = out.with_name(f".{out.name}.partial")
        with zipfile.ZipFile(partial, "w", zipfile.ZIP_DEFLATED) as bundle:
            for name, text in files.items():
                entry = zipfile.ZipInfo(name)
                entry.external_attr = (stat.S_IFREG | 0o755) << 16  # executable once unpacked
                bundle.writestr(entry, text)
            for path in sorted(course.rglob("*")):
                if path.is_file():
                    bundle.write(path, Path(path.relative_to(course)).as_posix())
        os.replace(partial, out)
    return out


def github_workflow(lessons: list[Lesson], points: dict[str, int]) -> str:
    """A GitHub Actions workflow for GitHub Classroom's autograding: each lesson is a test worth
    its points, all or nothing (the command grader's rule), graded on the learner's copy with the
    seed of the organisation's secret REACTLINGS_SEED."""
    steps, names = [], []
    for lesson in lessons:
        names.append(lesson.name)
        steps.append(f"""      - id: {lesson.name}
        uses: classroom-resources/autograding-command-grader@v1
        env:
          REACTLINGS_SEED: ${{{{ secrets.REACTLINGS_SEED }}}}
        with:
          test-name: {lesson.name}
          command: python validate.py {lesson.name} --file workspace/{lesson.exercise.name} --quiet
          timeout: 10
          max-score: {points[lesson.name]}""")
    results = "\n".join(f"          {n.upper()}_RESULTS: \"${{{{ steps.{n}.outputs.result }}}}\"" for n in names)
    return f"""# GitHub Classroom autograding for reactlings, made by `python validate.py github-classroom`.
# Put it in the template repository as .github/workflows/classroom.yml; set the organisation
# secret REACTLINGS_SEED to your secret seed (learners never see it).
name: Autograding
on: [push, workflow_dispatch]
permissions:
  checks: write
  actions: read
  contents: read
jobs:
  grade:
    runs-on: ubuntu-latest
    timeout-minutes: 15
    steps:
      - uses: actions/checkout@v4
      - uses: actions/setup-python@v5
        with:
          python-version: "3.11"
      - run: python -m pip install --quiet -e .
{chr(10).join(steps)}
      - uses: classroom-resources/autograding-grading-reporter@v1
        env:
{results}
        with:
          runners: {",".join(names)}
"""
