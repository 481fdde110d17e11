"""Handing the course out: the learners' copy (release), a Gradescope autograder bundle and a GitHub
Classroom workflow, each tried as the platform uses it."""
import json
import os
import re
import shlex
import shutil
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest
import yaml

from validator.lessons import LessonError
from validator.platforms import KIT_ONLY, LEARNERS_ONLY, learners_readme

ROOT = Path(__file__).resolve().parent.parent
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
    step = next(s for s in yaml.safe_load(workflow.read_text(encoding="utf-8"))["jobs"]["grade"]["steps"]
                if s.get("id") == "day06")
    command = shlex.split(step["with"]["command"])
    assert command[:2] == ["python", "validate.py"]
    graded = subprocess.run([sys.executable, *command[1:]], cwd=course, env=env, capture_output=True, text=True)
    assert graded.returncode == 1 and "score: 0/" in graded.stdout, graded.stderr  # found: not "no such file"


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
    """A learner hands in their whole repository: the kit (classroom.exercise_file) chooses, not the
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
    assert graders["day06"]["with"]["max-score"] == 23 and graders["day07"]["with"]["max-score"] == 19
    assert "secrets.REACTLINGS_SEED" in graders["day06"]["env"]["REACTLINGS_SEED"]
    assert "never see" not in text and "print the secret" in text  # what the secret does not protect
    refused = run("github-classroom", "--out", str(tmp_path), "day06")
    assert refused.returncode == 2 and "is a folder" in refused.stderr
