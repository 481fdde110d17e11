"""PrairieLearn: the exported question, and its grader run as PrairieLearn runs a grading job.

Read from PrairieLearn's repository (PrairieLearn/PrairieLearn at 88fb8556a7a1768e2082736be9095241b11238d7),
not guessed:
- docs/externalGrading.md: the job's files under /grade (serverFilesCourse/, tests/, student/,
  data/data.json); the entry point must write /grade/results/results.json, whose folder it makes;
  `score` in [0, 1]; `gradable: false` ("could not be graded, for example due to a syntax error, or
  if the input was missing") needs no score; `format_errors` a string or a list of strings; tests
  with `points` and `max_points` on every one, or no per-test points are shown; at most 1 MB.
- apps/prairielearn/src/lib/externalGraderCommon.ts (buildDirectory): what a job folder holds,
  the `serverFilesCourse` entries copied from the course's serverFilesCourse/, the question's
  tests/ whole, each submitted file under student/, data.json's fields.
- apps/grader-host/src/index.ts: the entry point, if under /grade, is made executable and run as
  the container's command; the job succeeds only if it exits 0; results.json over 1 MB or not JSON
  is a failed job. lib/externalGrader.ts: a gradable result without a finite score in [0, 1] is
  turned into a failure.
- apps/prairielearn/src/schemas/schemas/infoQuestion.json: what a question's info.json may hold.
  INFO_SCHEMA below restates, in our words, the part of it the export writes (the required keys,
  no others at the top, and externalGradingOptions' own); info.json is validated against that.
Not run: Docker, PrairieLearn's servers, its grading queue; the container's user is this test's.
"""
import json
import math
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import jsonschema
import pytest

from test_platforms import OTHER_UID, SOLUTION, SOLUTION_07, TEMPLATE, TYPED_IN, as_root, max_score, run, write

ROOT = Path(__file__).resolve().parent.parent
UUID = "^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$"
STRINGS = {"type": "array", "items": {"type": "string"}}
INFO_SCHEMA = {  # as PrairieLearn's infoQuestion.json constrains what the export writes
    "type": "object", "required": ["uuid", "type", "title", "topic"], "additionalProperties": False,
    "properties": {
        "uuid": {"type": "string", "pattern": UUID}, "title": {"type": "string"}, "topic": {"type": "string"},
        "type": {"enum": ["Calculation", "MultipleChoice", "Checkbox", "File", "MultipleTrueFalse", "v3"]},
        "tags": STRINGS, "singleVariant": {"type": "boolean"}, "partialCredit": {"type": "boolean"},
        "gradingMethod": {"enum": ["Internal", "External", "Manual"]}, "comment": {},
        "authors": {}, "clientFiles": STRINGS, "dependencies": {}, "options": {}, "showCorrectAnswer": {"type": "boolean"},
        "externalGradingOptions": {
            "type": "object", "required": ["image"], "additionalProperties": False,
            "properties": {"image": {"type": "string"}, "entrypoint": {"anyOf": [{"type": "string"}, STRINGS]},
                           "serverFilesCourse": STRINGS, "timeout": {"type": "integer"},
                           "enableNetworking": {"type": "boolean"}, "comment": {},
                           "environment": {"type": "object", "additionalProperties": {"type": "string"}}}}}}
SEED = "318807942761358024411729366001"
# The image's python3 is this one, with the kit's packages: first on PATH.
PATH = f"{Path(sys.executable).parent}{os.pathsep}{os.environ['PATH']}"


def container_env(job: Path, **more: str) -> dict:
    """A job container's environment: the image's (python:3.12-slim sets PATH and LANG), info.json's
    `environment` (none), and REACTLINGS_GRADE_ROOT standing for /grade."""
    return {"PATH": PATH, "LANG": "C.UTF-8", "HOME": "/root", "REACTLINGS_GRADE_ROOT": str(job), **more}
pytestmark = pytest.mark.slow


def export(folder: Path, *args: str, lessons=("day06",)) -> Path:
    """`validate.py prairielearn` into `folder`/export, with the secret SEED from a file."""
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "seed").write_text(SEED + "\n", encoding="utf-8")
    out = folder / "export"
    made = run("prairielearn", *lessons, "--out", str(out), "--image", "me/reactlings-grader",
               *(args or ("--seed-file", str(folder / "seed"))))
    assert made.returncode == 0, made.stderr
    return out


@pytest.fixture(scope="module")
def exported(tmp_path_factory) -> Path:
    return export(tmp_path_factory.mktemp("pl"), lessons=("day06", "day07"))


def grading_job(course: Path, lesson: str, job: Path, student: dict[str, str], env=None, before=None):
    """Build a job's /grade in `job` from the exported course as buildDirectory does, then
    (before(job) first, if given) run the entry point as the grader host does: (results, the run)."""
    question = course / "questions" / "reactlings" / lesson
    options = json.loads((question / "info.json").read_text(encoding="utf-8"))["externalGradingOptions"]
    for name in ("serverFilesCourse", "tests", "student", "data"):
        (job / name).mkdir(parents=True)
    for entry in options["serverFilesCourse"]:
        shutil.copytree(course / "serverFilesCourse" / entry, job / "serverFilesCourse" / entry)
    shutil.copytree(question / "tests", job / "tests", dirs_exist_ok=True)
    write(job / "student", student)
    files = [{"name": name} for name in student]  # the contents are base64 there; the grader reads student/
    (job / "data" / "data.json").write_text(json.dumps({
        "params": {}, "correct_answers": {}, "submitted_answers": {"_files": files}, "format_errors": {},
        "partial_scores": {}, "score": 0, "feedback": {}, "variant_seed": 1, "options": {},
        "raw_submitted_answers": {}, "gradable": True}), encoding="utf-8")
    if before:
        before(job)
    command = options["entrypoint"].split()
    assert command[0].startswith("/grade/")
    entry = job / command[0].removeprefix("/grade/")
    entry.chmod(entry.stat().st_mode | 0o111)  # `chmod +x`, as the grader host does
    done = subprocess.run([str(entry), *command[1:]], cwd="/", capture_output=True, text=True,
                          timeout=options["timeout"], env=container_env(job, **(env or {})))
    assert done.returncode == 0, done.stdout + done.stderr  # anything else is a failed job
    raw = (job / "results" / "results.json").read_bytes()
    return accepted(raw), done


def accepted(raw: bytes) -> dict:
    """The results as PrairieLearn takes them, or an assertion error where it would call the job
    failed or the result not gradable for the grader's fault (see the module's docstring)."""
    assert len(raw) <= 1024 * 1024
    results = json.loads(raw)
    assert isinstance(results, dict)
    if results.get("gradable", True) is not False:
        assert results.get("gradable", True) is True
        score = results["score"]
        assert isinstance(score, (int, float)) and math.isfinite(score) and 0 <= score <= 1
    else:
        errors = results.get("format_errors", [])
        assert isinstance(errors, str) or all(isinstance(e, str) for e in errors)
    for key in ("message", "output"):
        assert isinstance(results.get(key, ""), str)
    for test in results.get("tests", []):
        assert isinstance(test["name"], str) and isinstance(test["message"], str) and isinstance(test["output"], str)
        assert 0 <= test["points"] <= test["max_points"]  # both on every test: the page shows each one's points
    return results


# ---------------------------------------------------------------- the question

def test_info_json_is_a_valid_externally_graded_question(exported):
    for lesson in ("day06", "day07"):
        question = exported / "questions" / "reactlings" / lesson
        info = json.loads((question / "info.json").read_text(encoding="utf-8"))
        jsonschema.Draft7Validator(INFO_SCHEMA).validate(info)
        assert info["type"] == "v3" and info["gradingMethod"] == "External" and info["partialCredit"] is True
        options = info["externalGradingOptions"]
        assert options["image"] == "me/reactlings-grader" and 0 < options["timeout"] <= 600
        assert (question / "tests" / options["entrypoint"].removeprefix("/grade/tests/")).is_file()
        assert all((exported / "serverFilesCourse" / entry / "validate.py").is_file()
                   for entry in options["serverFilesCourse"])
    uuids = {json.loads((exported / "questions" / "reactlings" / n / "info.json").read_text())["uuid"]
             for n in ("day06", "day07")}
    assert len(uuids) == 2


def test_a_question_keeps_its_uuid_when_exported_again(exported, tmp_path):
    again = export(tmp_path, "--seed", "5")
    first, second = (json.loads((course / "questions" / "reactlings" / "day06" / "info.json").read_text())
                     for course in (exported, again))
    assert first["uuid"] == second["uuid"]


def test_an_export_is_the_same_bytes_every_time(tmp_path):
    """Copied over the course's files, an unchanged lesson changes nothing in its git history."""
    first, second = export(tmp_path / "a"), export(tmp_path / "b")
    files = [sorted((p.relative_to(course).as_posix(), p.read_bytes()) for p in course.rglob("*") if p.is_file())
             for course in (first, second)]
    assert files[0] == files[1]


def test_a_question_in_chinese(tmp_path):
    course = export(tmp_path, "--seed", "5", "--lang", "zh")
    question = course / "questions" / "reactlings" / "day06"
    assert "编辑器" in (question / "question.html").read_text(encoding="utf-8")
    results, _ = grading_job(course, "day06", tmp_path / "job", {"day06.py": TEMPLATE})
    assert results["score"] == 0 and "还没有实现" in results["tests"][0]["message"] and "再提交" in results["output"]


def test_the_question_page_starts_the_editor_from_the_exercise(exported):
    question = exported / "questions" / "reactlings" / "day06"
    page = (question / "question.html").read_text(encoding="utf-8")
    editor = re.search(r"<pl-file-editor ([^>]*)>", page).group(1)
    assert 'file-name="day06.py"' in editor and 'source-file-name="day06.py"' in editor
    assert 'directory="clientFilesQuestion"' in editor
    assert (question / "clientFilesQuestion" / "day06.py").read_text(encoding="utf-8") == TEMPLATE
    assert "<pl-external-grader-results>" in page and "{{" not in page
    for readme in ("README.md", "README.zh.md"):  # the lesson text, as learners get it
        assert f'file-name="{readme}"' in page
        text = (question / "clientFilesQuestion" / readme).read_text(encoding="utf-8")
        assert "--solution" not in text and "kit only" not in text


def test_the_seed_is_only_in_the_graders_secret_file(exported):
    holding = sorted(p.relative_to(exported).as_posix() for p in exported.rglob("*")
                     if p.is_file() and SEED in p.read_text(encoding="utf-8", errors="replace"))
    assert holding == ["questions/reactlings/day06/tests/seed", "questions/reactlings/day07/tests/seed"]


def test_no_file_of_the_export_gives_an_answer_away(exported):
    answers = {path.read_text(encoding="utf-8") for path in (ROOT / "solutions").glob("*.py")}
    assert not any(path.read_text(encoding="utf-8", errors="replace") in answers
                   for path in exported.rglob("*") if path.is_file())
    assert not list(exported.rglob("solutions")) and not list(exported.rglob("good_*.py"))


def test_the_image_installs_what_the_kit_needs(exported, tmp_path):
    """The Dockerfile's RUN line, up to its `pip install`, run by bash as `docker build` runs it
    (/bin/sh -c; its folder moved here): the requirements are pyproject.toml's dependencies."""
    image = exported / "reactlings-image"
    assert (image / "pyproject.toml").read_text() == (ROOT / "pyproject.toml").read_text()
    dockerfile = (image / "Dockerfile").read_text(encoding="utf-8")
    assert re.search(r"^FROM python:3\.1[1-3]", dockerfile, re.M)  # tomllib: 3.11 on
    assert "docker build --platform linux/amd64 -t me/reactlings-grader ." in dockerfile
    run_line = re.search(r"^RUN (.*?)\n(?=\S|$)", dockerfile, re.M | re.S).group(1)
    making = run_line.split("&& pip install")[0].replace("/tmp/reactlings", str(tmp_path))
    shutil.copy2(image / "pyproject.toml", tmp_path / "pyproject.toml")
    done = subprocess.run(["/bin/sh", "-c", making], capture_output=True, text=True, timeout=60,
                          env={**os.environ, "PATH": PATH})
    assert done.returncode == 0, done.stderr
    wanted = re.search(r"^dependencies = \[(.*?)^\]", (ROOT / "pyproject.toml").read_text(), re.M | re.S).group(1)
    assert (tmp_path / "requirements.txt").read_text().split() == re.findall(r'^\s*"([^"]+)"', wanted, re.M)


# ---------------------------------------------------------------- grading, as a job runs

def test_the_solution_scores_1_with_a_test_per_check(exported, tmp_path):
    results, done = grading_job(exported, "day06", tmp_path / "job", {"day06.py": SOLUTION})
    assert results["gradable"] is True and results["score"] == 1.0
    assert sum(t["max_points"] for t in results["tests"]) == max_score("day06")
    assert all(t["points"] == t["max_points"] and t["message"] == "" for t in results["tests"])
    assert all(t["name"].startswith("TODO ") for t in results["tests"])
    assert "26/26" in results["output"] and SEED not in json.dumps(results) + done.stdout
    assert not (tmp_path / "job" / "tests" / "seed").exists()  # out of the file system before the submission ran


def test_the_template_scores_0_with_a_message_on_every_test(exported, tmp_path):
    results, _ = grading_job(exported, "day06", tmp_path / "job", {"day06.py": TEMPLATE})
    assert results["gradable"] is True and results["score"] == 0
    assert all(t["points"] == 0 and "not implemented" in t["message"] for t in results["tests"])
    assert "TODO 1.2" in results["output"] and "file: day06.py" in results["output"]
    assert "submit again" in results["output"] and "validate.py" not in results["output"]  # no command to run there


def test_a_syntax_error_is_not_gradable_and_says_where(exported, tmp_path):
    broken = SOLUTION.replace("def parse_react_response(", "def parse_react_response(:", 1)
    results, _ = grading_job(exported, "day06", tmp_path / "job", {"day06.py": broken})
    assert results["gradable"] is False and "score" not in results
    assert "syntax error on line" in results["format_errors"][0] and "syntax error" in results["message"]


def test_a_file_that_loads_but_crashes_is_graded(exported, tmp_path):
    results, _ = grading_job(exported, "day06", tmp_path / "job", {"day06.py": TEMPLATE + "\nraise ValueError('x')\n"})
    assert results["gradable"] is True and results["score"] == 0 and "ValueError" in results["tests"][0]["message"]


def test_a_submission_without_the_file_is_not_gradable(exported, tmp_path):
    results, _ = grading_job(exported, "day06", tmp_path / "job", {"notes.txt": "hello"})
    assert results["gradable"] is False and "day06.py" in results["message"]


def test_the_secret_seed_grades_a_typed_in_answer_down(exported, tmp_path):
    typed, _ = grading_job(exported, "day07", tmp_path / "typed", {"day07.py": TYPED_IN})
    solved, _ = grading_job(exported, "day07", tmp_path / "solved", {"day07.py": SOLUTION_07})
    assert typed["score"] < 1 and solved["score"] == 1.0


def test_a_second_run_on_the_same_job_is_not_graded_at_seed_0(exported, tmp_path):
    job = tmp_path / "job"
    grading_job(exported, "day06", job, {"day06.py": SOLUTION})
    subprocess.run([str(job / "tests" / "run_reactlings")], cwd="/", capture_output=True, timeout=300,
                   env=container_env(job))
    results = accepted((job / "results" / "results.json").read_bytes())
    assert results["gradable"] is False and "no seed file" in results["message"]


def test_grades_only_jailed_unless_the_instructor_allows_otherwise(exported, tmp_path):
    unjailed = {"REACTLINGS_SANDBOX": "off"}  # as in a container where the jail can't be built
    refused, _ = grading_job(exported, "day06", tmp_path / "strict", {"day06.py": SOLUTION}, env=unjailed)
    assert refused["gradable"] is False and "isolate" in refused["message"]
    lax = export(tmp_path / "lax", "--seed", "5", "--allow-unisolated")
    allowed, _ = grading_job(lax, "day06", tmp_path / "lax" / "job", {"day06.py": SOLUTION}, env=unjailed)
    assert allowed["score"] == 1.0


def test_a_grader_that_crashes_still_writes_results_and_logs_for_staff(exported, tmp_path):
    broken = write(tmp_path / "broken", {"rich/__init__.py": "raise ModuleNotFoundError('No module named rich')\n"})
    results, done = grading_job(exported, "day06", tmp_path / "job", {"day06.py": SOLUTION},
                                env={"PYTHONPATH": str(broken)})
    assert results["gradable"] is False and "exit status 1" in results["message"]
    assert "ModuleNotFoundError" not in json.dumps(results)  # the student's page: the reason, not the grader's insides
    assert "ModuleNotFoundError" in done.stdout  # the job's output.log: course staff only


@as_root
def test_as_root_it_grades_files_only_their_owner_may_read(tmp_path):
    """The course exported under umask 077 (its files 0600) and the student's file 0600 of another uid."""
    course = export(tmp_path)
    for path in course.rglob("*"):
        os.chmod(path, 0o700 if path.is_dir() or path.name == "run_reactlings" else 0o600)

    def students_own(job):
        os.chown(job / "student" / "day06.py", OTHER_UID, OTHER_UID)
        os.chmod(job / "student" / "day06.py", 0o600)
    results, done = grading_job(course, "day06", tmp_path / "job", {"day06.py": SOLUTION}, before=students_own)
    assert results["score"] == 1.0, done.stdout


# ---------------------------------------------------------------- the command

def test_the_command_refuses_what_it_cannot_write(tmp_path):
    (tmp_path / "taken").mkdir()
    refused = run("prairielearn", "day06", "--out", str(tmp_path / "taken"), "--image", "x/y", "--seed", "1")
    assert refused.returncode == 2 and "already exists" in refused.stderr and not list((tmp_path / "taken").iterdir())
    unseeded = run("prairielearn", "day06", "--out", str(tmp_path / "new"), "--image", "x/y",
                   env={"REACTLINGS_SEED": ""})
    assert unseeded.returncode == 2 and "seed" in unseeded.stderr and not (tmp_path / "new").exists()
    too_long = run("prairielearn", "day06", "--out", str(tmp_path / "new"), "--image", "x/y", "--seed", "1",
                   "--timeout", "601")
    assert too_long.returncode == 2 and "600" in too_long.stderr and not (tmp_path / "new").exists()
