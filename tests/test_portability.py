"""What learners on macOS and Windows get, tried here: the child that connects back over loopback
(Windows cannot hand a socket to a child), grading unjailed with its one-line warning, no process
groups to rely on. REACTLINGS_TRANSPORT=tcp takes the Windows path on any system."""
import json
import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def validate(*args: str, **env: str) -> subprocess.CompletedProcess:
    environment = dict(os.environ, LC_ALL="C.UTF-8", PYTHONIOENCODING="utf-8", **env)
    return subprocess.run([sys.executable, "validate.py", *args], cwd=ROOT, env=environment,
                          capture_output=True, text=True, timeout=300)


def test_the_loopback_child_grades_like_the_socket_pair_one():
    by_tcp = validate("day06", "--solution", "--format", "gradescope", REACTLINGS_TRANSPORT="tcp")
    usual = validate("day06", "--solution", "--format", "gradescope")
    assert by_tcp.returncode == 0
    assert json.loads(by_tcp.stdout) == json.loads(usual.stdout)


def test_unjailed_grading_says_what_is_not_enforced(tmp_path):
    result = validate("day06", "--file", str(ROOT / "lessons" / "day06" / "day06.py"), "--quiet",
                      REACTLINGS_TRANSPORT="tcp")
    assert result.returncode == 1 and "score: 0/" in result.stdout
    assert result.stderr.count("\n") == 1 and "isolation off" in result.stderr
    required = validate("day06", "--file", str(ROOT / "solutions" / "day06.py"), "--require-isolation",
                        REACTLINGS_TRANSPORT="tcp")
    assert required.returncode == 2 and "--require-isolation" in required.stderr


def test_a_hang_and_a_crash_on_the_loopback_path(tmp_path):
    learner = tmp_path / "day06.py"
    text = (ROOT / "solutions" / "day06.py").read_text(encoding="utf-8")
    learner.write_text(text.replace("    steps: list[AgentStep] = []\n",
                                    "    steps: list[AgentStep] = []\n    while True:\n        pass\n"),
                       encoding="utf-8")
    result = validate("day06", "--file", str(learner), "--format", "gradescope", REACTLINGS_TRANSPORT="tcp")
    outputs = " ".join(t["output"] for t in json.loads(result.stdout)["tests"])
    assert "infinite loop" in outputs and "in react_agent" in outputs
