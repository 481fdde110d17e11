"""The grader's own side, against submissions that attack it through what they send: escape
sequences in their text, floods of tool calls, huge inputs, forged messages on the wire. Each is
the untouched day06 template with an attack of tests/adversarial/ appended, graded as an
instructor grades."""
import json
import os
import subprocess
import sys
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
TEMPLATE = ROOT / "lessons" / "day06" / "day06.py"
ADVERSARIAL = Path(__file__).resolve().parent / "adversarial"

pytestmark = pytest.mark.slow


def submission(tmp_path: Path, attack: str) -> Path:
    path = tmp_path / "alice.py"
    path.write_text(TEMPLATE.read_text(encoding="utf-8") + "\n\n" +
                    (ADVERSARIAL / f"{attack}.py").read_text(encoding="utf-8"), encoding="utf-8")
    return path


def validate(*args: str) -> subprocess.CompletedProcess:
    env = dict(os.environ, LC_ALL="C.UTF-8", PYTHONIOENCODING="utf-8")
    return subprocess.run([sys.executable, "validate.py", "day06", *args], cwd=ROOT, env=env,
                          capture_output=True, text=True, encoding="utf-8", errors="replace", timeout=300)


def test_escape_sequences_never_reach_the_terminal_or_the_results(tmp_path):
    path = submission(tmp_path, "forge_the_report")
    text = validate("--file", str(path))
    assert text.returncode == 1
    assert "\x1b" not in text.stdout and "\x00" not in text.stdout and "\x07" not in text.stdout
    assert "\\x1b[2J" in text.stdout  # shown, harmless, so the learner sees what they printed
    assert text.stdout.rstrip().splitlines()[-2].startswith("score: 0/")
    junit = validate("--file", str(path), "--format", "junit")
    ET.fromstring(junit.stdout.encode("utf-8"))  # valid XML, whatever the learner's text held
    results = json.loads(validate("--file", str(path), "--format", "gradescope").stdout)
    assert results["score"] == 0
    assert not any("\x1b" in test["output"] for test in results["tests"])


def test_a_flood_of_tool_calls_and_a_huge_input_are_cut_short(tmp_path):
    results = json.loads(validate("--file", str(submission(tmp_path, "flood_the_tools")),
                                  "--format", "gradescope").stdout)
    outputs = {test["name"]: test["output"] for test in results["tests"]}
    assert any("called tools more than 200 times" in output for output in outputs.values())
    assert any("tool input too large" in output or "message too large" in output or
               "lost contact" in output for output in outputs.values())
    assert results["score"] == 0


def test_prompts_built_to_stall_the_mock_are_read_in_one_pass(tmp_path):
    # Before: one such file kept a class run busy for hours (the limit here is subprocess's).
    results = json.loads(validate("--file", str(submission(tmp_path, "stall_the_mock")),
                                  "--format", "gradescope").stdout)
    assert results["score"] == 0


def test_forged_messages_on_the_wire_end_the_call_not_the_grader(tmp_path):
    done = validate("--file", str(submission(tmp_path, "forge_the_wire")), "--format", "gradescope")
    assert done.returncode == 1, done.stderr
    results = json.loads(done.stdout)
    assert results["score"] == 0
    outputs = " ".join(test["output"] for test in results["tests"])
    assert "lost contact" in outputs  # the forged messages are protocol violations
    assert "Traceback" not in done.stderr
