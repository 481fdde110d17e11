"""Handing the course out: the learners' copy (release) and a Gradescope autograder bundle."""
import json
import os
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
pytestmark = pytest.mark.slow


def run(*args, cwd=ROOT, env=None):
    return subprocess.run([sys.executable, "validate.py", *args], cwd=cwd, capture_output=True, text=True,
                          env={**os.environ, **(env or {})}, timeout=300)


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


def test_the_gradescope_bundle_grades_a_submission_like_gradescope_does(tmp_path):
    (tmp_path / "seed").write_text("48213\n", encoding="utf-8")
    bundle = tmp_path / "autograder.zip"
    assert run("gradescope", "day06", "--out", str(bundle), "--seed-file", str(tmp_path / "seed")).returncode == 0
    root = tmp_path / "autograder"
    with zipfile.ZipFile(bundle) as archive:
        names = archive.namelist()
        assert {"setup.sh", "run_autograder", "validate.py", "seed"} <= set(names)
        assert not any(n.startswith(("solutions/", "tests/")) for n in names)
        archive.extractall(root / "source")
    (root / "submission").mkdir()
    (root / "submission" / "day06.py").write_text((ROOT / "solutions" / "day06.py").read_text(encoding="utf-8"),
                                                 encoding="utf-8")
    done = subprocess.run(["bash", str(root / "source" / "run_autograder")], capture_output=True, text=True,
                          env={**os.environ, "AUTOGRADER_ROOT": str(root)}, timeout=300)
    assert done.returncode == 0, done.stderr
    results = json.loads((root / "results" / "results.json").read_text(encoding="utf-8"))
    assert results["score"] == results["max_score"] > 0
    assert "48213" not in json.dumps(results) and not (root / "source" / "seed").exists()


def test_a_gradescope_submission_without_the_file_gets_a_clear_result(tmp_path):
    bundle = tmp_path / "autograder.zip"
    assert run("gradescope", "day06", "--out", str(bundle), "--seed", "5").returncode == 0
    root = tmp_path / "autograder"
    with zipfile.ZipFile(bundle) as archive:
        archive.extractall(root / "source")
    (root / "submission").mkdir()
    done = subprocess.run(["bash", str(root / "source" / "run_autograder")], capture_output=True, text=True,
                          env={**os.environ, "AUTOGRADER_ROOT": str(root)}, timeout=300)
    results = json.loads((root / "results" / "results.json").read_text(encoding="utf-8"))
    assert done.returncode == 0 and results["score"] == 0 and "day06.py" in results["output"]


def test_the_github_classroom_workflow_has_one_test_per_lesson_worth_its_points(tmp_path):
    import yaml
    out = tmp_path / "classroom.yml"
    assert run("github-classroom", "--out", str(out), "day06", "day07").returncode == 0
    workflow = yaml.safe_load(out.read_text(encoding="utf-8"))
    steps = workflow["jobs"]["grade"]["steps"]
    graders = {s["id"]: s for s in steps if "autograding-command-grader" in s.get("uses", "")}
    assert set(graders) == {"day06", "day07"}
    assert graders["day06"]["with"]["command"].startswith("python validate.py day06 --file workspace/day06.py")
    assert graders["day06"]["with"]["max-score"] == 23 and graders["day07"]["with"]["max-score"] == 19
    assert "secrets.REACTLINGS_SEED" in graders["day06"]["env"]["REACTLINGS_SEED"]
