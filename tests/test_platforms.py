"""Handing the course out: the learners' copy (release), a Gradescope autograder bundle and a GitHub
Classroom workflow, each tried as the platform uses it."""
import base64
import json
import os
import re
import shlex
import shutil
import stat
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest
import yaml

from validator.instructor.platforms import KIT_ONLY, LEARNERS_ONLY, learners_readme
from validator.lessons import LessonError

ROOT = Path(__file__).resolve().parent.parent


def max_score(name: str) -> int:
    """A lesson's total, as its checks declare it."""
    from validator.instructor.gradebooks import todo_points
    from validator.lessons import load_lesson
    return sum(todo_points(load_lesson(name)).values())
TEMPLATE = (ROOT / "lessons" / "day06" / "day06.py").read_text(encoding="utf-8")
SOLUTION = (ROOT / "solutions" / "day06.py").read_text(encoding="utf-8")
pytestmark = pytest.mark.slow


def run(*args, cwd=ROOT, env=None):
    return subprocess.run([sys.executable, "validate.py", *args], cwd=cwd, capture_output=True, text=True,
                          env={**os.environ, **(env or {})}, timeout=300)


def write(folder: Path, files: dict[str, str]) -> Path:
    for name, text in files.items():
        (folder / name).parent.mkdir(parents=True, exist_ok=True)
        (folder / name).write_text(text, encoding="utf-8")
    return folder


def autograde(tmp_path: Path, submission: dict[str, str], *bundle_args: str, env=None):
    """Build a bundle, unpack it and run it as Gradescope does: (results.json, the run, its root)."""
    tmp_path.mkdir(parents=True, exist_ok=True)
    bundle = tmp_path / "autograder.zip"
    made = run("gradescope", "day06", "--out", str(bundle), *(bundle_args or ("--seed", "5")))
    assert made.returncode == 0, made.stderr
    root = tmp_path / "autograder"
    with zipfile.ZipFile(bundle) as archive:
        archive.extractall(root / "source")
    write(root / "submission", submission).mkdir(parents=True, exist_ok=True)
    path = f"{Path(sys.executable).parent}{os.pathsep}{os.environ['PATH']}"  # its python3: this one, the kit's packages
    env = {**os.environ, "AUTOGRADER_ROOT": str(root), "PATH": path, **(env or {})}
    done = subprocess.run(["bash", str(root / "source" / "run_autograder")], capture_output=True, text=True, env=env,
                          timeout=300)
    assert done.returncode == 0, done.stderr
    return json.loads((root / "results" / "results.json").read_text(encoding="utf-8")), done, root


# ---------------------------------------------------------------- the learners' copy

def test_the_release_has_no_answers_and_works_on_its_own(tmp_path):
    out = tmp_path / "course"
    assert run("release", "--out", str(out)).returncode == 0
    assert not (out / "solutions").exists() and not (out / "tests").exists()
    assert not list(out.rglob("*SOLUTION*")) and not list(out.rglob("good_*.py"))
    for solution in (ROOT / "solutions").glob("*.py"):  # no file of the release gives one away
        answer = solution.read_text(encoding="utf-8")
        assert not any(p.read_text(encoding="utf-8", errors="replace") == answer for p in out.rglob("*.py"))
    graded = run("day06", "--quiet", cwd=out, env={"REACTLINGS_WORKSPACE": str(tmp_path / "work")})
    assert graded.returncode == 1 and "score: 0/" in graded.stdout
    assert (tmp_path / "work" / "day06.py").exists()
    assert run("release", "--out", str(out)).returncode == 2  # never over an existing folder


def test_a_learners_push_holds_the_file_the_workflow_grades(tmp_path):
    if shutil.which("git") is None:
        pytest.skip("no git here")
    course = tmp_path / "course"
    assert run("release", "--out", str(course)).returncode == 0
    env = {k: v for k, v in os.environ.items() if k != "REACTLINGS_WORKSPACE"}  # the copy's own workspace/
    learner = dict(cwd=course, env=env, capture_output=True)
    assert subprocess.run([sys.executable, "validate.py", "day06", "--quiet"], **learner).returncode == 1
    assert subprocess.run([sys.executable, "validate.py", "reset", "day06", "--yes"], **learner).returncode == 0
    git = dict(cwd=course, capture_output=True, text=True, check=True)
    subprocess.run(["git", "init", "-q"], **git)
    subprocess.run(["git", "add", "-A"], **git)
    staged = subprocess.run(["git", "diff", "--cached", "--name-only"], **git).stdout.split()
    assert "workspace/day06.py" in staged
    assert not any(n == "workspace/progress.json" or n.startswith("workspace/backups/") for n in staged)
    assert (course / "workspace" / "progress.json").exists() and list((course / "workspace" / "backups").iterdir())
    workflow = tmp_path / "classroom.yml"
    assert run("github-classroom", "--out", str(workflow), "day06").returncode == 0
    job = run_workflow(workflow.read_text(encoding="utf-8"), course, {"REACTLINGS_SEED": SECRET_SEED})
    assert job["results"]["day06"]["status"] == "fail" and "score: 0/" in job["log"], job["log"]  # found: not "no such file"


def test_the_release_speaks_to_learners(tmp_path):
    course = tmp_path / "course"
    assert run("release", "--out", str(course)).returncode == 0
    readme = (course / "README.md").read_text(encoding="utf-8")
    assert "`pytest" not in readme and not re.search(r"^pytest", readme, re.M)  # no kit tests to run
    for absent in ("--solution", "solutions/", "tests/", "bench/", "<!--", "-->", "Grading a class"):
        assert absent not in readme, absent
    assert "python validate.py day06" in readme and "commit and push" in readme
    kit = (ROOT / "README.md").read_text(encoding="utf-8")
    assert "--solution" in kit and "<!-- learners only" in kit  # the kit's own README keeps both
    lessons = sorted(course.glob("lessons/*/README*.md"))
    assert len(lessons) == 2 * len(list((ROOT / "lessons").glob("*/lesson.yaml")))
    for lesson in lessons:  # nor any lesson's, in either language: never a command that fails there
        text = lesson.read_text(encoding="utf-8")
        assert "--solution" not in text and KIT_ONLY[0] not in text and KIT_ONLY[1] not in text, lesson
    work = tmp_path / "work"
    write(work, {"day06.py": SOLUTION})
    passed = run("day06", cwd=course, env={"REACTLINGS_WORKSPACE": str(work)})
    assert passed.returncode == 0
    assert "reference solution" not in passed.stdout and "--seed 7" in passed.stdout
    assert "--solution" not in run("--help", cwd=course).stdout  # not offered where there is none
    solution = run("day06", "--solution", cwd=course)
    assert solution.returncode == 2 and "Traceback" not in solution.stderr
    assert "no reference solutions" in solution.stderr and len(solution.stderr.strip().splitlines()) == 1


def test_learners_readme_keeps_and_drops_the_marked_blocks():
    text = f"a\n{KIT_ONLY[0]}\nkit\n{KIT_ONLY[1]}\n{LEARNERS_ONLY[0]}\nlearner\n{LEARNERS_ONLY[1]}\nb\n"
    assert learners_readme(text) == "a\nlearner\nb\n"
    for broken in (f"{KIT_ONLY[0]}\nkit\n", f"{KIT_ONLY[1]}\n", f"{KIT_ONLY[0]}\n{LEARNERS_ONLY[0]}\n"):
        with pytest.raises(LessonError):
            learners_readme(broken)


def test_a_release_inside_the_kit_is_refused():
    out = ROOT / "lessons" / "rel"
    try:
        refused = run("release", "--out", "lessons/rel")
        assert refused.returncode == 2 and "inside the kit" in refused.stderr
        assert "Traceback" not in refused.stderr and not out.exists()
    finally:
        shutil.rmtree(out, ignore_errors=True)


# ---------------------------------------------------------------- Gradescope

def test_the_gradescope_bundle_grades_a_submission_like_gradescope_does(tmp_path):
    (tmp_path / "seed").write_text("48213\n", encoding="utf-8")
    results, _, root = autograde(tmp_path, {"day06.py": SOLUTION}, "--seed-file", str(tmp_path / "seed"))
    with zipfile.ZipFile(tmp_path / "autograder.zip") as archive:
        names = archive.namelist()
    assert {"setup.sh", "run_autograder", "grader_failed.py", "validate.py", "seed"} <= set(names)
    assert not any(n.startswith(("solutions/", "tests/")) for n in names)
    assert results["score"] == results["max_score"] > 0
    assert "48213" not in json.dumps(results) and not (root / "source" / "seed").exists()


def test_a_gradescope_submission_without_the_file_gets_a_clear_result(tmp_path):
    results, _, _ = autograde(tmp_path, {})
    assert results["score"] == 0 and "day06.py" in results["output"]


def test_gradescope_grades_the_edited_copy_among_the_repositorys_copies(tmp_path):
    """A learner hands in their whole repository: the kit (submissions.exercise_file) chooses, not the
    directory order, and the autograder's output says which it graded."""
    results, done, _ = autograde(tmp_path, {"lessons/day06/day06.py": TEMPLATE, "day06.py": TEMPLATE,
                                            "backup/day06.py": TEMPLATE, "workspace/day06.py": SOLUTION})
    assert results["score"] == results["max_score"] > 0
    assert "file to grade: workspace/day06.py" in done.stdout
    several, done, _ = autograde(tmp_path / "two", {"day06.py": TEMPLATE, "workspace/day06.py": SOLUTION,
                                                    "workspace/old/day06.py": SOLUTION + "# first try\n"})
    assert several["score"] == several["max_score"]
    assert "several candidate files: graded workspace/day06.py" in done.stdout


def test_gradescope_grades_only_jailed_unless_the_instructor_allows_otherwise(tmp_path):
    unjailed = {"REACTLINGS_SANDBOX": "off"}  # as in a container where the jail can't be built
    refused, _, _ = autograde(tmp_path / "strict", {"day06.py": SOLUTION}, env=unjailed)
    assert refused["score"] == 0 and "isolate" in refused["output"]
    allowed, _, _ = autograde(tmp_path / "lax", {"day06.py": SOLUTION}, "--seed", "5", "--allow-unisolated",
                              env=unjailed)
    assert allowed["score"] == allowed["max_score"] > 0


def test_gradescope_always_writes_results_even_when_the_grader_crashes(tmp_path):
    broken = write(tmp_path / "broken", {"rich/__init__.py": "raise ModuleNotFoundError('No module named rich')\n"})
    results, done, _ = autograde(tmp_path, {"day06.py": SOLUTION}, env={"PYTHONPATH": str(broken)})
    assert results["score"] == 0 and "exit status 1" in results["output"]
    hidden = [t for t in results["tests"] if t.get("visibility") == "hidden"]
    assert hidden and "ModuleNotFoundError" in hidden[0]["output"] and "ModuleNotFoundError" in done.stdout


def test_gradescope_refuses_a_bad_out_up_front_and_leaves_nothing(tmp_path):
    folder = tmp_path / "out"
    folder.mkdir()
    for out in (folder, folder / "autograder.txt"):
        refused = run("gradescope", "day06", "--out", str(out), "--seed", "1")
        assert refused.returncode == 2 and str(out) in refused.stderr and ".partial" not in refused.stderr
    assert list(tmp_path.iterdir()) == [folder] and not list(folder.iterdir())


def test_gradescope_takes_the_seed_from_the_environment_as_its_help_says(tmp_path):
    assert "$REACTLINGS_SEED" in run("gradescope", "--help").stdout
    bundle = tmp_path / "a.zip"
    assert run("gradescope", "day06", "--out", str(bundle), env={"REACTLINGS_SEED": "777"}).returncode == 0
    with zipfile.ZipFile(bundle) as archive:
        assert archive.read("seed").decode() == "777\n"
    unseeded = run("gradescope", "day06", "--out", str(tmp_path / "b.zip"), env={"REACTLINGS_SEED": ""})
    assert unseeded.returncode == 2 and "seed" in unseeded.stderr and not (tmp_path / "b.zip").exists()


# ---------------------------------------------------------------- GitHub Classroom

def test_the_github_classroom_workflow_has_one_test_per_lesson_worth_its_points(tmp_path):
    out = tmp_path / "classroom.yml"
    assert run("github-classroom", "--out", str(out), "day06", "day07").returncode == 0
    text = out.read_text(encoding="utf-8")
    steps = yaml.safe_load(text)["jobs"]["grade"]["steps"]
    graders = {s["id"]: s for s in steps if "autograding-command-grader" in s.get("uses", "")}
    assert set(graders) == {"day06", "day07"}
    assert graders["day06"]["with"]["command"].startswith("python validate.py day06 --file workspace/day06.py")
    assert (graders["day06"]["with"]["max-score"], graders["day07"]["with"]["max-score"]) == (max_score("day06"),
                                                                                            max_score("day07"))
    assert "--seed-file" in graders["day06"]["with"]["command"]  # its `env:` would never reach the command
    assert "env" not in graders["day06"] and "secrets.REACTLINGS_SEED" not in graders["day06"]["with"]["command"]
    assert "never see" not in text and "print the secret" in text  # what the secret does not protect
    refused = run("github-classroom", "--out", str(tmp_path), "day06")
    assert refused.returncode == 2 and "is a folder" in refused.stderr


# ---------------------------------------------------------------- GitHub Classroom, as Actions runs it
#
# Read from the sources and documentation, not guessed:
# - classroom-resources/autograding-command-grader, tag v1 = d5b3fa6f50f7f629b7bfae0cc3e4c58852b412d5
#   (src/main.js, dist/main.js, action.yml): the command runs by execSync(command, {timeout, env,
#   stdio: 'inherit'}), so by /bin/sh -c, with `env` = PATH and HOME of the action's own process,
#   FORCE_COLOR=true, DOTNET_CLI_HOME=/tmp, DOTNET_NOLOGO=true, nothing else (not the step's `env:`);
#   timeout = the `timeout` input in minutes; exit 0 -> status "pass", score = max-score, any other
#   end -> "fail"/"error", score 0; the step's output `result` is that JSON, base64; the step itself
#   never fails. Its output goes to the job's log.
# - classroom-resources/autograding-grading-reporter, tag v1 = d13b5912daf5042ac1b71bc38bdb4a6bcd61d8ca
#   (src/main.js): reads <RUNNER>_RESULTS of each `runners` id from its env, base64 JSON; any "fail"
#   or "error" fails the job.
# - docs.github.com, workflow syntax (jobs.<job_id>.steps[*].shell): a `run:` step with no shell runs
#   as `bash -e {0}`; its `env:` is added to the job's environment; a failed step skips the later
#   ones (their default `if: success()`). Variables (RUNNER_TEMP: "guaranteed to be empty at the
#   start of each job"; GITHUB_WORKSPACE, the checkout and the steps' working folder). Secrets: an
#   unset secret's expression is the empty string.
# Not emulated: the runner's own header of each step in the log, which lists the step's `env:` with
# secrets masked (***); the test asserts the secret is in no line the steps themselves print.
# Not run: actions/checkout (the course folder is the checkout), actions/setup-python (this Python
# is first on PATH, as setup-python puts its own) and the `pip install -e .` step (this Python has the
# kit's packages; installing into it would change the machine's Python).

SECRET_SEED = "318807942761358024411729366001"
COMMAND_GRADER = "classroom-resources/autograding-command-grader@v1"
REPORTER = "classroom-resources/autograding-grading-reporter@v1"
NOT_RUN = {"run": ["python -m pip install --quiet -e ."], "uses": ["actions/checkout@v4", "actions/setup-python@v5"]}


def run_workflow(workflow: str, checkout: Path, secrets: dict[str, str]) -> dict:
    """Run the workflow's one job as a GitHub-hosted runner does: {"log", "failed" (the step that
    failed, or None), "results" (each grader step's decoded result)}."""
    runner = checkout.parent / "runner"
    (runner / "temp").mkdir(parents=True)
    (runner / "home").mkdir()
    machine = {"PATH": f"{Path(sys.executable).parent}{os.pathsep}{os.environ['PATH']}", "HOME": str(runner / "home"),
               "RUNNER_TEMP": str(runner / "temp"), "GITHUB_WORKSPACE": str(checkout), "CI": "true",
               "GITHUB_ACTIONS": "true", "LANG": "C.UTF-8"}
    outputs, log, results = {}, [], {}

    def expand(text) -> str:
        contexts = {"runner.temp": machine["RUNNER_TEMP"], **{f"secrets.{k}": v for k, v in secrets.items()},
                    **{f"steps.{k}.outputs.result": v for k, v in outputs.items()}}

        def value(match):
            name = match.group(1)
            if name.startswith("secrets."):
                return contexts.get(name, "")  # an unset secret is ""
            return contexts[name]  # any other expression: this emulation must learn it first
        return re.sub(r"\$\{\{\s*([\w.-]+)\s*\}\}", value, str(text))

    steps = yaml.safe_load(workflow)["jobs"]["grade"]["steps"]
    for number, step in enumerate(steps):
        if step.get("run") in NOT_RUN["run"] or step.get("uses") in NOT_RUN["uses"]:
            continue
        env = {k: expand(v) for k, v in (step.get("env") or {}).items()}
        if "run" in step:
            script = runner / "temp" / f"step{number}.sh"
            script.write_text(expand(step["run"]), encoding="utf-8")
            done = subprocess.run(["bash", "-e", str(script)], cwd=checkout, env={**machine, **env},
                                  capture_output=True, text=True, timeout=60)
            log += [done.stdout, done.stderr]
            if done.returncode != 0:
                return {"log": "\n".join(log), "failed": step.get("name", number), "results": results}
        elif step["uses"] == COMMAND_GRADER:
            inputs = {k: expand(v) for k, v in step["with"].items()}
            grader_env = {"PATH": machine["PATH"], "FORCE_COLOR": "true", "DOTNET_CLI_HOME": "/tmp",
                          "DOTNET_NOLOGO": "true", "HOME": machine["HOME"]}  # main.js's env, whole
            try:
                done = subprocess.run(["/bin/sh", "-c", inputs["command"]], cwd=checkout, env=grader_env,
                                      capture_output=True, text=True, timeout=float(inputs["timeout"]) * 60)
                log += [done.stdout, done.stderr]
                status = "pass" if done.returncode == 0 else "fail"
            except subprocess.TimeoutExpired:
                status = "error"
            score = int(inputs["max-score"]) if status == "pass" else 0
            result = {"version": 1, "status": status, "max_score": int(inputs["max-score"]),
                      "tests": [{"name": inputs["test-name"], "status": status, "score": score,
                                 "test_code": inputs["command"]}]}
            outputs[step["id"]] = base64.b64encode(json.dumps(result).encode()).decode()
        elif step["uses"] == REPORTER:
            for runner_id in step["with"]["runners"].split(","):
                results[runner_id] = json.loads(base64.b64decode(env[f"{runner_id.upper()}_RESULTS"]))
                log.append(json.dumps(results[runner_id]))  # what its console report prints from
        else:
            raise AssertionError(f"this emulation does not know the step {step}")
    return {"log": "\n".join(log), "failed": None, "results": results}


SOLUTION_07 = (ROOT / "solutions" / "day07.py").read_text(encoding="utf-8")
# right only at seed 0: every quote the tool returns is replaced by the lesson text's own numbers
TYPED_IN = SOLUTION_07.replace(
    '"content": execute_tool(tool_impl, call.name, call.arguments)})',
    '"content": typed_in(execute_tool(tool_impl, call.name, call.arguments))})').replace(
    "def run_agent(", 'def typed_in(result):\n    quote = json.loads(result)\n'
                      '    return json.dumps({**quote, **QUOTES.get(quote.get("ticker"), {})})\n\n\ndef run_agent(')


@pytest.fixture(scope="module")
def classroom_repo(tmp_path_factory):
    """The template repository as an instructor makes it: the release, with the generated workflow."""
    folder = tmp_path_factory.mktemp("classroom")
    assert run("release", "--out", str(folder / "course")).returncode == 0
    assert run("github-classroom", "--out", str(folder / "classroom.yml"), "day07").returncode == 0
    return folder / "course", (folder / "classroom.yml").read_text(encoding="utf-8")


def pushed(classroom_repo, tmp_path, learner_file: str) -> Path:
    """A learner's repository as pushed: the template's files with their workspace/day07.py."""
    checkout = tmp_path / "checkout"
    shutil.copytree(classroom_repo[0], checkout)
    write(checkout, {"workspace/day07.py": learner_file})
    return checkout


def test_the_typed_in_file_is_right_at_seed_0(tmp_path):
    assert "typed_in(execute_tool" in TYPED_IN
    graded = run("day07", "--file", str(write(tmp_path, {"day07.py": TYPED_IN}) / "day07.py"), "--quiet")
    full = max_score("day07")
    assert graded.returncode == 0 and f"{full}/{full}" in graded.stdout, graded.stdout + graded.stderr


@pytest.mark.parametrize("learner, passes", [(TYPED_IN, False), (SOLUTION_07, True)], ids=["typed-in", "solution"])
def test_classroom_grades_at_the_secret_seed_as_actions_runs_the_workflow(classroom_repo, tmp_path, learner, passes):
    secret = SECRET_SEED
    job = run_workflow(classroom_repo[1], pushed(classroom_repo, tmp_path, learner), {"REACTLINGS_SEED": secret})
    assert job["failed"] is None, job["log"]
    day07 = job["results"]["day07"]
    assert day07["status"] == ("pass" if passes else "fail"), job["log"]
    assert day07["tests"][0]["score"] == (max_score("day07") if passes else 0)
    assert secret not in job["log"] and secret[:8] not in job["log"]  # in no line, masked or not
    assert "score:" in job["log"]  # the grader's own line reached the log: the log is the real one


def test_classroom_without_the_secret_fails_with_a_message_and_grades_nothing(classroom_repo, tmp_path):
    job = run_workflow(classroom_repo[1], pushed(classroom_repo, tmp_path, TYPED_IN), {})
    assert job["failed"] == "Seed from the secret REACTLINGS_SEED"
    assert "::error::The secret REACTLINGS_SEED is not set" in job["log"]
    assert job["results"] == {} and "score:" not in job["log"]  # never graded at seed 0


# ---------------------------------------------------------------- files only their owner can read
#
# Gradescope (gradescope-autograders.readthedocs.io, "Autograder Specifications" and "Technical
# Details"): the autograder zip is unpacked into /autograder/source, run_autograder is copied to
# /autograder/run_autograder and run, as root, from /autograder, with the student's files in
# /autograder/submission; results go to /autograder/results/results.json. How the harness unpacks
# a student's zip is not documented: these tests take the worst case, modes kept as Info-ZIP's
# unzip keeps them (a Unix entry's external_attr >> 16; none for a zip made on Windows) and every
# file owned by another uid than the grader's.

OTHER_UID = 12345
as_root = pytest.mark.skipif(not hasattr(os, "geteuid") or os.geteuid() != 0, reason="needs root, as Gradescope runs")


def student_zip(path: Path, mode: int | None, folder_mode: int = 0o755) -> Path:
    """A student's zip of workspace/day06.py (the solution): entries of Unix `mode`, or, None, no
    mode bits at all (create_system 0, as zips made on Windows)."""
    with zipfile.ZipFile(path, "w") as archive:
        for name, text, entry_mode in (("workspace/", "", folder_mode), ("workspace/day06.py", SOLUTION, mode)):
            entry = zipfile.ZipInfo(name)
            if entry_mode is None:
                entry.create_system, entry.external_attr = 0, 0x10 if name.endswith("/") else 0
            else:
                kind = stat.S_IFDIR if name.endswith("/") else stat.S_IFREG
                entry.create_system, entry.external_attr = 3, (kind | entry_mode) << 16
            archive.writestr(entry, text)
    return path


def unzip_keeping_modes(archive: Path, folder: Path, owner: int = OTHER_UID) -> None:
    """Unpack as `unzip` does, modes kept (files last, so a 0700 folder still takes them), then
    give everything to `owner`."""
    with zipfile.ZipFile(archive) as bundle:
        bundle.extractall(folder)
        for entry in sorted(bundle.infolist(), key=lambda e: e.is_dir()):
            if entry.create_system == 3:
                os.chmod(folder / entry.filename, stat.S_IMODE(entry.external_attr >> 16))
    for path in [folder, *folder.rglob("*")]:
        os.chown(path, owner, owner)


MODES = {"file 0600": dict(mode=0o600), "file 0000": dict(mode=0o000), "folders 0700": dict(mode=0o600, folder_mode=0o700),
         "no mode bits": dict(mode=None)}


@as_root
@pytest.mark.parametrize("case", [*MODES, "the autograder's own files 0600"])
def test_gradescope_as_root_grades_files_only_their_owner_may_read(tmp_path, case):
    bundle = tmp_path / "autograder.zip"
    assert run("gradescope", "day06", "--out", str(bundle), "--seed", "48213").returncode == 0
    root = tmp_path / "autograder"
    with zipfile.ZipFile(bundle) as archive:
        archive.extractall(root / "source")
    if case in MODES:
        unzip_keeping_modes(student_zip(tmp_path / "submission.zip", **MODES[case]), root / "submission")
    else:  # a bundle made under umask 077, unpacked keeping its modes; the submission plain
        for path in (root / "source").rglob("*"):
            os.chmod(path, 0o700 if path.is_dir() or path.name in ("run_autograder", "setup.sh") else 0o600)
        unzip_keeping_modes(student_zip(tmp_path / "submission.zip", 0o644), root / "submission", owner=0)
    shutil.copy2(root / "source" / "run_autograder", root / "run_autograder")
    path = f"{Path(sys.executable).parent}{os.pathsep}{os.environ['PATH']}"
    done = subprocess.run(["bash", str(root / "run_autograder")], cwd=root, capture_output=True, text=True,
                          env={**os.environ, "AUTOGRADER_ROOT": str(root), "PATH": path}, timeout=300)
    results = json.loads((root / "results" / "results.json").read_text(encoding="utf-8"))
    assert results["score"] == results["max_score"] == max_score("day06"), done.stdout
    assert "PermissionError" not in json.dumps(results)


@as_root
def test_grade_reads_every_students_file_whatever_its_mode_or_owner(tmp_path):
    """A class as an instructor grading as root gets it: zips of every mode, unpacked by `grade`
    under a umask of 077, and loose files and folders only another uid may read."""
    class_folder = tmp_path / "class"
    class_folder.mkdir()
    for number, case in enumerate(MODES):
        student_zip(class_folder / f"zip{number}.zip", **MODES[case])
    write(class_folder, {"loose.py": SOLUTION, "folder/workspace/day06.py": SOLUTION})
    for path, mode in ((class_folder / "loose.py", 0o600), (class_folder / "folder" / "workspace" / "day06.py", 0o000),
                       (class_folder / "folder" / "workspace", 0o700), (class_folder / "folder", 0o700)):
        os.chown(path, OTHER_UID, OTHER_UID)
        os.chmod(path, mode)
    command = [sys.executable, "validate.py", "grade", "day06", str(class_folder), "--out", str(tmp_path / "grades"),
               "--require-isolation", "--seed", "48213"]
    graded = subprocess.run(f"umask 077 && {shlex.join(command)}", shell=True, cwd=ROOT, capture_output=True,
                            text=True, timeout=300)
    assert graded.returncode == 0, graded.stdout + graded.stderr
    rows = (tmp_path / "grades" / "grades.csv").read_text(encoding="utf-8-sig").splitlines()[1:]
    assert len(rows) == len(MODES) + 2 and all(",{0},{0},".format(max_score("day06")) in row for row in rows), rows


@as_root
def test_a_copy_handed_to_the_jail_shows_it_nothing_else(tmp_path):
    """The jail still reads only its own file: a student whose file went in as a copy looks for the
    solution and a classmate's file (both 0600, of another uid, as its own) and finds neither."""
    attack = (ROOT / "tests" / "adversarial" / "read_the_solution.py").read_text(encoding="utf-8")
    class_folder = write(tmp_path / "class", {"zed.py": TEMPLATE + "\n\n" + attack, "bob/day06.py": SOLUTION})
    for path in (class_folder / "zed.py", class_folder / "bob" / "day06.py", class_folder / "bob"):
        os.chown(path, OTHER_UID, OTHER_UID)
        os.chmod(path, 0o700 if path.is_dir() else 0o600)
    graded = run("grade", "day06", str(class_folder), "--out", str(tmp_path / "grades"), "--require-isolation",
                 "--seed", "48213")
    assert graded.returncode == 0, graded.stdout + graded.stderr
    results = {name: json.loads((tmp_path / "grades" / "students" / name / "results.json").read_text(encoding="utf-8"))
               for name in ("zed", "bob")}
    assert results["bob"]["score"] == results["bob"]["max_score"] == max_score("day06") and results["zed"]["score"] == 0
    found = next(m.group(1) for t in results["zed"]["tests"] if (m := re.search(r"ATTACK-RAN (.*)", t["output"])))
    assert found.startswith("read_the_solution; secrets read: 0; files read: []"), found
