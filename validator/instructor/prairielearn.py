"""PrairieLearn: a lesson as an externally graded question (the results file its grader writes
is report.prairielearn).

    python validate.py prairielearn day06 --out DIR --image ACCOUNT/reactlings-grader --seed-file FILE

DIR is laid out as a course repository, to copy into yours:

    questions/reactlings/day06/   info.json, question.html, clientFilesQuestion/ (the exercise the
                                  editor starts from, the lesson text), tests/ (the grader's entry
                                  point, grader_failed.py, the secret seed)
    serverFilesCourse/reactlings/ the learners' copy of the course: the grader runs its validate.py
    reactlings-image/             Dockerfile of the grading image: Python and the kit's packages

What PrairieLearn does with them, as its docs/externalGrading.md says (repository
PrairieLearn/PrairieLearn, read at 88fb8556): for each submission a container of `image` runs
`entrypoint` with the job under /grade: "/grade/serverFilesCourse" (the `serverFilesCourse`
entries), "/grade/tests" (the question's tests/), "/grade/student" (the files submitted),
"/grade/data/data.json"; the entry point "should have written results ... to
/grade/results/results.json" ("The /grade/results directory is not automatically created").
Files outside clientFilesQuestion/ are not served to students (docs/question/overview.md: "these
are secret"); the container's printing goes to the job's output.log, which only course staff can
open (instructorGradingJob.ts), so the grader's log goes there, never into results.json.
"""
from __future__ import annotations

import html
import json
import math
import shutil
import uuid
from pathlib import Path

from validator.files import ROOT
from validator.grading.grade import Grade, grade
from validator.instructor.platforms import (
    check_course_lesson,
    grader_failed,
    learners_readme,
    new_folder,
    run_submission,
    write_course,
)
from validator.lessons import Lesson, say

KIT = "reactlings"  # the folder under serverFilesCourse/, and under questions/
ENTRY_POINT = "run_reactlings"
# A question's uuid is PrairieLearn's identity for it (its scores, its place in assessments):
# the same lesson gets the same one at every export, so a re-export updates the question.
NAMESPACE = uuid.UUID("6c1f3a52-4d0e-4f8b-9a57-2f1e0c9d7b31")

# /grade laid out as above; REACTLINGS_GRADE_ROOT moves it, for tests.
RUN_QUESTION = dict(platform="PrairieLearn", root_variable="REACTLINGS_GRADE_ROOT", root="/grade",
                    results="results/results.json", seed="tests/seed", kit=f"serverFilesCourse/{KIT}",
                    submission="student", format="prairielearn", failed="tests/grader_failed.py",
                    fallback='{"gradable": false, "message": "The grader could not run: tell your instructor."}')

# Not graded ("gradable": false: "the submission could not be graded ... In this case, the
# submission will be marked as 'invalid, not gradable', no points will be awarded or lost, and the
# student will not be penalized an attempt"; "format_errors": a string or a list of them). The
# grader's printed lines are in the job's output.log already.
PRAIRIELEARN_FAILED = """result = {"gradable": False, "message": output, "format_errors": [output]}
"""

# The grading image (docs/dockerImages.md, "Custom variations of maintained images"): Python and
# the packages the course's pyproject.toml names; the kit itself comes with each job
# (serverFilesCourse), so a lesson changed needs no new image. prairielearn/grader-python has
# none of pytest, PyYAML, rich or openai, and a job has no network to install them.
DOCKERFILE = """# The image PrairieLearn grades reactlings in: Python and the kit's packages (pyproject.toml).
# Build and push it for linux/amd64 (PrairieLearn's docs/dockerImages.md):
#   docker build --platform linux/amd64 -t {image} .
#   docker push {image}
# then sync it on your course's "Sync" page (Docker images).
FROM python:3.12-slim
COPY pyproject.toml /tmp/reactlings/pyproject.toml
RUN python3 -c "import tomllib; print('\\\\n'.join(tomllib.load(open('/tmp/reactlings/pyproject.toml', 'rb'))['project']['dependencies']))" \\
      >/tmp/reactlings/requirements.txt \\
    && pip install --no-cache-dir -r /tmp/reactlings/requirements.txt \\
    && rm -rf /tmp/reactlings
"""

# Seconds a job may take: the file's load (at most 60 s of wall time, README "Time to load"),
# then each check up to the lesson's time limit, and the container's own start; PrairieLearn
# allows at most 600.
LOAD_SECONDS, START_SECONDS, MAX_TIMEOUT = 60, 30, 600


def export(lessons: list[Lesson], out: Path, seed: int, lang: str, image: str, isolated: bool = True,
           timeout: int | None = None) -> Path:
    """Write the questions of `lessons`, the kit and the image's Dockerfile to `out`, a new folder."""
    for lesson in lessons:
        check_course_lesson(lesson)

    def fill(folder: Path) -> None:
        write_course(folder / "serverFilesCourse" / KIT)
        (folder / "reactlings-image").mkdir()
        (folder / "reactlings-image" / "Dockerfile").write_text(DOCKERFILE.format(image=image), encoding="utf-8")
        shutil.copy2(ROOT / "pyproject.toml", folder / "reactlings-image" / "pyproject.toml")
        for lesson in lessons:
            write_question(lesson, folder / "questions" / KIT / lesson.name, seed, lang, image, isolated, timeout)
    return new_folder(out, fill)


def write_question(lesson: Lesson, folder: Path, seed: int, lang: str, image: str, isolated: bool,
                   timeout: int | None) -> None:
    template = grade(lesson, lesson.exercise)  # its checks, for the timeout and the TODOs' points
    files = folder / "clientFilesQuestion"
    tests = folder / "tests"
    files.mkdir(parents=True)
    tests.mkdir()
    shutil.copy2(lesson.exercise, files / lesson.exercise.name)
    for readme in sorted(lesson.folder.glob("README*.md")):  # the learners' text, kit-only parts left out
        (files / readme.name).write_text(learners_readme(readme.read_text(encoding="utf-8")), encoding="utf-8")
    (folder / "info.json").write_text(json.dumps(info(lesson, lang, image, timeout or job_timeout(lesson, template)),
                                                 ensure_ascii=False, indent=2) + "\n", encoding="utf-8")
    (folder / "question.html").write_text(question_html(lesson, lang, template), encoding="utf-8")
    entry = tests / ENTRY_POINT
    entry.write_text(run_submission(lesson, lang, isolated, RUN_QUESTION), encoding="utf-8")
    entry.chmod(0o755)  # PrairieLearn makes it executable too, once in /grade
    (tests / "grader_failed.py").write_text(grader_failed(PRAIRIELEARN_FAILED), encoding="utf-8")
    (tests / "seed").write_text(f"{seed}\n", encoding="utf-8")


def job_timeout(lesson: Lesson, checks: Grade) -> int:
    """The job's timeout: long enough for a file that hangs in every check (see LOAD_SECONDS)."""
    return min(MAX_TIMEOUT, math.ceil(START_SECONDS + LOAD_SECONDS + len(checks.checks) * lesson.time_limit))


def info(lesson: Lesson, lang: str, image: str, timeout: int) -> dict:
    """The question's info.json (schemas/infoQuestion.json: uuid, type, title and topic required;
    "v3" for new questions; externalGradingOptions with `image` required, `entrypoint` an absolute
    path, `serverFilesCourse` entries copied to /grade/serverFilesCourse, `timeout` in seconds)."""
    return {
        "comment": say("pl_info_comment", lang, name=lesson.name),
        "uuid": str(uuid.uuid5(NAMESPACE, lesson.name)),
        "title": f"{lesson.name} · {lesson.title[lang]}",
        "topic": KIT,
        "tags": [KIT, lesson.name],
        "type": "v3",
        "singleVariant": True,  # one variant: the instructor's seed, not PrairieLearn's, draws the numbers
        "partialCredit": True,  # a score between 0 and 1 counts as it is (v3's default, said outright)
        "gradingMethod": "External",
        "externalGradingOptions": {
            "image": image,
            "entrypoint": f"/grade/tests/{ENTRY_POINT}",
            "serverFilesCourse": [f"{KIT}/"],
            "timeout": timeout,
        },
    }


def question_html(lesson: Lesson, lang: str, template: Grade) -> str:
    """The page: what to do, the lesson text to download, the editor (pl-file-editor) holding the
    exercise as the learner starts it, and the grader's results under each submission."""
    todos = "\n".join(
        f"  <li>TODO {text(t.id)} · {text(t.title[lang])} (<code>{text(t.function)}</code>, "
        f"{say('pl_points', lang, points=template.todo_score(t.id)[1])})</li>" for t in lesson.todos)
    readmes = "\n".join(
        f'  <pl-file-download file-name="{text(path.name)}" force-download="false" '
        f'label="{text(say("pl_lesson_text", language, name=lesson.name))}"></pl-file-download>'
        for language, path in lesson_texts(lesson))
    name = text(lesson.exercise.name)
    return f"""<pl-question-panel>
<h4>{text(lesson.name)} · {text(lesson.title[lang])}</h4>
<p>{text(say("pl_task", lang, file=lesson.exercise.name))}</p>
<ul>
{todos}
</ul>
<p>
{readmes}
</p>
<pl-file-editor file-name="{name}" ace-mode="ace/mode/python" source-file-name="{name}"
  directory="clientFilesQuestion"></pl-file-editor>
</pl-question-panel>

<pl-submission-panel>
<pl-external-grader-results></pl-external-grader-results>
<pl-file-preview></pl-file-preview>
</pl-submission-panel>
"""


def lesson_texts(lesson: Lesson) -> list[tuple[str, Path]]:
    """(language, README) of each language the lesson is written in."""
    return [(language, path) for language, path in (("en", lesson.folder / "README.md"),
                                                     ("zh", lesson.folder / "README.zh.md")) if path.is_file()]


def text(value: str) -> str:
    """Text for question.html, which PrairieLearn renders as a Mustache template: HTML-escaped,
    braces too (a `{{` would be a tag)."""
    return html.escape(value).replace("{", "&#123;").replace("}", "&#125;")
