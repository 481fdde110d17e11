"""Handing the course out, and grading where instructors already grade.

    python validate.py release --out DIR                 the learners' copy of the course
    python validate.py gradescope day06 --out FILE.zip   a Gradescope autograder for one lesson
    python validate.py github-classroom --out FILE.yml   a GitHub Classroom autograding workflow

The learners' copy is the course without what gives answers away: no solutions/, no kit tests and
no corpus of submissions; `python validate.py day06` works inside it. Its README.md is the kit's
with the blocks marked KIT_ONLY left out, and its .gitignore lets learners commit their
exercise files. The Gradescope bundle holds that copy plus the secret seed (never shown in
results) and the scripts Gradescope runs.
"""
from __future__ import annotations

import os
import re
import shutil
import stat
import tempfile
import zipfile
from pathlib import Path

from validator.files import ROOT
from validator.learner import workspace
from validator.lessons import Lesson, LessonError, lesson_names, load_lesson

SHIPPED = ["README.md", "pyproject.toml", "validate.py", ".gitignore", "lessons", "validator", "mock_llm", "reactlings"]
NEVER = {"__pycache__", ".pytest_cache", workspace.FOLDER}

# Markers in the kit's README.md: a block between KIT_ONLY's lines is left out of the learners'
# README (kit tests, solutions, instructors' tools); a LEARNERS_ONLY block is an HTML comment in
# the kit's README (not rendered) and plain text in theirs. Each marker is a line of its own.
KIT_ONLY = ("<!-- kit only -->", "<!-- end kit only -->")
LEARNERS_ONLY = ("<!-- learners only", "-->")
NOTEBOOKS = "<!-- notebooks -->"  # the line of the README where a release with notebooks links them

SETUP_SH = """#!/usr/bin/env bash
# Gradescope runs this once, when it builds the autograder image.
set -euo pipefail
cd /autograder/source
python3 -m pip install --quiet .
"""

# What a platform runs for each submission: it always writes the results file, the grade or
# (grader_failed.py) what went wrong. Filled in per platform (see RUN_AUTOGRADER): `root` is where
# the platform puts the job's files, `$root_variable` moves it for tests; the other paths are
# under it.
RUN_SUBMISSION = """#!/usr/bin/env bash
# {platform} runs this for each submission. It always writes {results}: the grade, or
# (grader_failed.py) what went wrong.
set -uo pipefail
ROOT="${{{root_variable}:-{root}}}"
RESULTS="$ROOT/{results}"
SEED_FILE="$ROOT/{seed}"
LOG="$(mktemp)"
cd "$ROOT/{kit}"
# Closed to other users: where the jail can't be built, root grades each submission as a user of
# its own (isolated by user), which must not read the kit's checks.
chmod go-rwx .
mkdir -p "$(dirname "$RESULTS")"
rm -f "$RESULTS"
# The seed moves from its file into the grader's environment before the submission runs; no seed
# (a second run on the same files) is an error, never the public seed 0.
if REACTLINGS_SEED="$(cat "$SEED_FILE" 2>/dev/null)" && [ -n "$REACTLINGS_SEED" ]; then
  export REACTLINGS_SEED
  rm -f "$SEED_FILE"
  # The kit picks the file to grade (--submission). Unless made with --allow-unisolated, it
  # refuses to grade unjailed (--require-isolation): an unjailed submission could read the seed in
  # the grader's environment, and rewrite the results.
  python3 validate.py {lesson} --submission "$ROOT/{submission}" --format {format} \\
    --output "$RESULTS" --lang {lang} --quiet{require} >"$LOG" 2>&1
  status=$?
else
  echo "error: the grader has no seed file (it is removed on first use): export the grader again" >"$LOG"
  status=2
fi
cat "$LOG"
if [ "$status" -ge 2 ] || [ ! -s "$RESULTS" ]; then
  python3 "$ROOT/{failed}" "$RESULTS" "$status" "$LOG" || printf '%s\\n' \\
    '{fallback}' >"$RESULTS"
fi
rm -f "$LOG"
exit 0
"""

# Gradescope ("Autograder Specifications"): the zip unpacked in /autograder/source, the student's
# files in /autograder/submission, results in /autograder/results/results.json.
RUN_AUTOGRADER = dict(platform="Gradescope", root_variable="AUTOGRADER_ROOT", root="/autograder",
                      results="results/results.json", seed="source/seed", kit="source", submission="submission",
                      format="gradescope", failed="source/grader_failed.py",
                      fallback='{"score": 0, "output": "The grader could not run: tell your instructor.", "tests": []}')


def run_submission(lesson: Lesson, lang: str, isolated: bool, platform: dict) -> str:
    """The script a platform runs for each submission of `lesson` (RUN_SUBMISSION)."""
    return RUN_SUBMISSION.format(lesson=lesson.name, lang=lang, require=" --require-isolation" if isolated else "",
                                 **platform)


# A run of validate.py that wrote no results (exit status 2: a clear one-line error; or a crash,
# such as a missing package): the results file says so, in the platform's shape (FAILED_RESULTS,
# a statement that sets `result` from `output`, the line for everyone, and `printed`, the
# grader's last lines). The standard library alone, so that it works when the kit's imports don't.
GRADER_FAILED = """import json
import sys

results, status, log = sys.argv[1], int(sys.argv[2]), sys.argv[3]
with open(log, encoding="utf-8", errors="replace") as file:
    lines = [line.rstrip() for line in file if line.strip()]
if status == 2 and lines:  # the kit's own error line: about the submission, or about this machine
    output = lines[-1]
else:
    output = f"The grader failed (exit status {status}), so nothing was graded: tell your instructor."
printed = "\\n".join(lines[-40:])
"""
GRADER_FAILED_WRITE = """with open(results, "w", encoding="utf-8") as file:
    json.dump(result, file, ensure_ascii=False, indent=2)
"""
GRADESCOPE_FAILED = """result = {"score": 0, "output": output, "tests": [
    {"name": "What the grader printed (instructors only)", "score": 0, "max_score": 0, "output": printed,
     "visibility": "hidden"}]}
"""


def grader_failed(failed_results: str) -> str:
    """grader_failed.py for a platform: GRADER_FAILED, then its results (see above)."""
    return GRADER_FAILED + failed_results + GRADER_FAILED_WRITE


def release(out: Path, notebooks_from: str | None = None) -> Path:
    """Write the learners' copy of the course to `out` (see new_folder). `notebooks_from`: the git
    URL learners will clone the course from; the copy then also holds notebooks/dayNN.ipynb, each
    installing the course from there (lesson_notebooks.py)."""
    def fill(folder: Path) -> None:
        write_course(folder, notebooks_from)
        if notebooks_from:
            write_notebooks(folder, notebooks_from)
    return new_folder(out, fill)


def new_folder(out: Path, fill) -> Path:
    """Write a folder at `out` by fill(folder), a new folder to fill. `out` must be a new folder
    outside the kit (inside, a copy of the course would copy itself); it appears whole or not at all."""
    if out.exists():
        raise LessonError("release_exists", path=out)
    if out.resolve().is_relative_to(ROOT.resolve()):
        raise LessonError("release_inside_kit", path=out, kit=ROOT)
    out.parent.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory(prefix=f".{out.name}.", dir=out.parent) as building:
        folder = Path(building) / "out"
        folder.mkdir()
        fill(folder)
        os.rename(folder, out)
    return out


def write_notebooks(course: Path, repo: str) -> None:
    """Each lesson of the course in `course` as notebooks/dayNN.ipynb, installing the course from `repo`."""
    import nbformat

    from validator.instructor.lesson_notebooks import lesson_notebook

    (course / "notebooks").mkdir()
    for name in lesson_names():
        readme = (course / "lessons" / name / "README.md").read_text(encoding="utf-8")
        nbformat.write(lesson_notebook(load_lesson(name), readme, repo), course / "notebooks" / f"{name}.ipynb")


def notebook_links(repo: str) -> str:
    """The README's list of the notebooks, each with its Colab badge (for a course on GitHub)."""
    from validator.instructor.lesson_notebooks import colab_link

    links = []
    for name in lesson_names():
        badge = colab_link(repo, name)
        links.append(f"- `notebooks/{name}.ipynb` · {load_lesson(name).title['en']}" + (f" {badge}" if badge else ""))
    return "\n".join(links) + "\n"


def write_course(out: Path, notebooks_from: str | None = None) -> Path:
    """The learners' copy in `out`, a folder to be made: the shipped files, with the READMEs (the
    kit's and the lessons') and .gitignore made for learners; its README lists the notebooks
    installing the course from `notebooks_from` (release --notebooks)."""
    out.mkdir(parents=True, exist_ok=True)
    for name in SHIPPED:
        source = ROOT / name
        if name == "README.md":
            links = notebook_links(notebooks_from) if notebooks_from else ""
            (out / name).write_text(learners_readme(source.read_text(encoding="utf-8"), links), encoding="utf-8")
        elif name == ".gitignore":
            (out / name).write_text(learners_gitignore(source.read_text(encoding="utf-8")), encoding="utf-8")
        elif source.is_dir():
            shutil.copytree(source, out / name, ignore=shutil.ignore_patterns(*NEVER, "*.pyc"))
        elif source.is_file():
            shutil.copy2(source, out / name)
    for readme in (out / "lessons").glob("*/README*.md"):  # the lessons' have kit-only parts too (--solution)
        readme.write_text(learners_readme(readme.read_text(encoding="utf-8")), encoding="utf-8")
    return out


def learners_readme(text: str, notebooks: str = "") -> str:
    """The kit's README.md as learners get it: KIT_ONLY blocks out, LEARNERS_ONLY blocks in, the
    NOTEBOOKS line replaced by `notebooks` (the list of a release's notebooks, or nothing)."""
    ends = {KIT_ONLY[0]: KIT_ONLY[1], LEARNERS_ONLY[0]: LEARNERS_ONLY[1]}
    kept, block = [], None
    for number, line in enumerate(text.splitlines(keepends=True), start=1):
        marker = line.strip()
        if block is None and marker in ends:
            block = marker
        elif block is not None and marker == ends[block]:
            block = None
        elif marker in (*ends, KIT_ONLY[1]):
            raise LessonError(f"README.md:{number}: {marker} inside another block, or without its start")
        elif block != KIT_ONLY[0]:
            kept.append(notebooks if marker == NOTEBOOKS else line)
    if block is not None:
        raise LessonError(f"README.md: {block} is never closed")
    # a block left out leaves no run of blank lines behind it
    return re.sub(r"\n{3,}", "\n\n", "".join(kept)).rstrip("\n") + "\n"


def learners_gitignore(text: str) -> str:
    """The kit's .gitignore, but for the workspace: learners commit their exercise files (GitHub
    Classroom grades what they push); only the kit's bookkeeping there stays out of git."""
    kept = [line for line in text.splitlines() if line.strip() != f"{workspace.FOLDER}/"]
    return "\n".join(kept + [f"{workspace.FOLDER}/{name}" for name in workspace.BOOKKEEPING]) + "\n"



def check_output_file(out: Path, suffixes: tuple[str, ...]) -> None:
    """Refuse, before any work, an --out that can't take the file: a folder, a folder that doesn't
    exist, or a name of another kind of file (which would be overwritten)."""
    if out.is_dir():
        raise LessonError("out_is_folder", path=out)
    if out.suffix.lower() not in suffixes:
        raise LessonError("out_wrong_suffix", path=out, suffix=" or ".join(suffixes))
    if not out.parent.is_dir():
        raise LessonError("no_such_folder", path=out.parent)


def check_course_lesson(lesson: Lesson) -> None:
    """Only the course's own lessons can be handed to a platform: it grades with the learners'
    copy of the course, which holds only those."""
    if lesson.folder.parent != ROOT / "lessons":
        raise LessonError("bundle_needs_course_lesson", name=lesson.name)


def gradescope_bundle(lesson: Lesson, out: Path, seed: int, lang: str, isolated: bool = True) -> Path:
    """A zip for Gradescope's "zip file upload": setup.sh, run_autograder and grader_failed.py at
    its top, the learners' copy of the course and the seed beside them. `isolated`: the bundle
    refuses to grade where the jail can't be built (see RUN_AUTOGRADER)."""
    check_output_file(out, (".zip",))
    check_course_lesson(lesson)
    scripts = {"setup.sh": SETUP_SH, "run_autograder": run_submission(lesson, lang, isolated, RUN_AUTOGRADER),
               "grader_failed.py": grader_failed(GRADESCOPE_FAILED)}
    partial = out.with_name(f".{out.name}.partial")
    with tempfile.TemporaryDirectory(prefix="reactlings-bundle-") as folder:
        course = write_course(Path(folder) / "course")
        (course / "seed").write_text(f"{seed}\n", encoding="utf-8")
        try:
            with zipfile.ZipFile(partial, "w", zipfile.ZIP_DEFLATED) as bundle:
                for name, text in scripts.items():
                    entry = zipfile.ZipInfo(name)
                    entry.external_attr = (stat.S_IFREG | 0o755) << 16  # executable once unpacked
                    bundle.writestr(entry, text)
                for path in sorted(course.rglob("*")):
                    if path.is_file():
                        bundle.write(path, Path(path.relative_to(course)).as_posix())
            os.replace(partial, out)
        except OSError as error:  # named by the file asked for, not the temporary one
            raise OSError(error.errno, error.strerror, str(out)) from None
        finally:
            partial.unlink(missing_ok=True)
    return out


# The seed file of a Classroom workflow: in the runner's temporary folder, outside the checkout
# (nothing there is committed or uploaded), emptied at the start of each job. An expression here,
# since the grader's command has no $RUNNER_TEMP; the `run:` step below has it.
SEED_FILE = "${{ runner.temp }}/reactlings-seed"

# The step that writes it. The command grader runs its command with an environment of its own
# (PATH, HOME and three of its own, see tests/test_platforms.py), so a seed in the grader step's
# `env:` never reaches validate.py; a file does. An unset secret reads as "": the job stops here
# with a message (its later steps are skipped), never graded at the public seed 0.
SEED_STEP = r"""      - name: Seed from the secret REACTLINGS_SEED
        env:
          REACTLINGS_SEED: ${{ secrets.REACTLINGS_SEED }}
        run: |
          if [ -z "$REACTLINGS_SEED" ]; then
            echo "::error::The secret REACTLINGS_SEED is not set: add it (your seed) to the organisation's or this repository's Actions secrets. Nothing is graded without it."
            exit 1
          fi
          umask 077
          printf '%s\n' "$REACTLINGS_SEED" >"$RUNNER_TEMP/reactlings-seed"
"""


def github_workflow(lessons: list[Lesson], points: dict[str, int]) -> str:
    """A GitHub Actions workflow for GitHub Classroom's autograding: each lesson is a test worth
    its points, all or nothing (the command grader's rule), graded on the learner's copy with the
    seed of the organisation's secret REACTLINGS_SEED, handed over in a file (SEED_STEP)."""
    steps, names = [], []
    for lesson in lessons:
        names.append(lesson.name)
        steps.append(f"""      - id: {lesson.name}
        uses: classroom-resources/autograding-command-grader@v1
        with:
          test-name: {lesson.name}
          command: python validate.py {lesson.name} --file workspace/{lesson.exercise.name} --seed-file "{SEED_FILE}" --quiet
          timeout: 10
          max-score: {points[lesson.name]}""")
    results = "\n".join(f"          {n.upper()}_RESULTS: \"${{{{ steps.{n}.outputs.result }}}}\"" for n in names)
    return f"""# GitHub Classroom autograding for reactlings, made by `python validate.py github-classroom`.
# Put it in the template repository (made with `python validate.py release`) as
# .github/workflows/classroom.yml, and set the organisation secret REACTLINGS_SEED to your seed.
# It grades workspace/dayNN.py, the copy a learner edits and pushes. The secret keeps the seed out
# of the repository, the reports and the logs (GitHub masks it; the grader gets it in a file, never
# on its command line), so an answer typed in for the lesson text's numbers fails. It does not keep
# it from a learner who wants it: the repository is theirs, so they can edit this workflow to
# print the secret (encoded, past the masking) or to pass every test, and where the runner can't
# build the kit's jail their code runs unjailed and can read the seed file. For marks that count,
# grade the pushed files yourself (`validate.py grade`).
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
{SEED_STEP}{chr(10).join(steps)}
      - uses: classroom-resources/autograding-grading-reporter@v1
        env:
{results}
        with:
          runners: {",".join(names)}
"""
