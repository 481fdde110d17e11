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


def submission(tmp_path: Path, attack: str, lesson: str = "day06") -> Path:
    path = tmp_path / "alice.py"
    template = TEMPLATE if lesson == "day06" else ROOT / "lessons" / lesson / f"{lesson}.py"
    path.write_text(template.read_text(encoding="utf-8") + "\n\n" +
                    (ADVERSARIAL / f"{attack}.py").read_text(encoding="utf-8"), encoding="utf-8")
    return path


def validate(*args: str, lesson: str = "day06") -> subprocess.CompletedProcess:
    env = dict(os.environ, LC_ALL="C.UTF-8", PYTHONIOENCODING="utf-8")
    return subprocess.run([sys.executable, "validate.py", lesson, *args], cwd=ROOT, env=env,
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


# Each pattern the grader runs on text a learner's code hands it, with the worst text an audit
# found (up to the 1 MB a message may hold): before, each took from seconds a kilobyte to hours a
# megabyte of the grader's own time, which no limit of the child's bounds. The deadline is only the
# backstop that fails the test: each is read in one pass now, well under a second.
STALLED_PATTERNS = r"""
import importlib.util, sys
from mock_llm.session import QUESTION_LINE
from mock_llm.text_react import OBSERVATION
from validator.checking import GLUED_LABEL, labelled
from validator.grading.notebooks import FUTURE

def checks(lesson):
    spec = importlib.util.spec_from_file_location(f"{lesson}_checks", f"lessons/{lesson}/checks.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module

spaces, lines = " " * 300_000, "\n" * 300_000
OBSERVATION.match("Observation:" + spaces + "\nx\ny")  # a many-line value after the label
GLUED_LABEL.match("Thought" + spaces + "x")  # a label never closed by a colon
labelled("Observation: " * 80_000, "13")  # a line of many labels
FUTURE.match("from __future__ import" + spaces + "a" * 100_000 + spaces + "!")
QUESTION_LINE.findall(lines + "Question: x")  # ^ and spaces across empty lines
checks("day05").RAW_REPLY.search(lines + "x")
checks("day12").RAW_REPLY.search(lines + "x")
list(checks("day08").CLOCK_TIME.finditer(spaces))  # a match tried from each space of a run
list(checks("day04").CLAIM.finditer("no action" + spaces + "x"))
checks("day08").other_times(" ".join(f"{k // 3600 % 24}:{k // 60 % 60:02d}:{k % 60:02d}.{k}" for k in range(60_000)),
                            1_700_000_000)  # countless times, each read against those before it
print("read")
"""


def test_text_built_to_stall_the_checks_patterns_is_read_in_one_pass():
    done = subprocess.run([sys.executable, "-c", STALLED_PATTERNS], cwd=ROOT, capture_output=True, text=True,
                          timeout=120)
    assert done.stdout.strip() == "read", done.stderr


def test_forged_messages_on_the_wire_end_the_call_not_the_grader(tmp_path):
    done = validate("--file", str(submission(tmp_path, "forge_the_wire")), "--format", "gradescope")
    assert done.returncode == 1, done.stderr
    results = json.loads(done.stdout)
    assert results["score"] == 0
    outputs = " ".join(test["output"] for test in results["tests"])
    assert "lost contact" in outputs  # the forged messages are protocol violations
    assert "Traceback" not in done.stderr


@pytest.mark.parametrize("lesson, attack, said", [
    ("day06", "nest_the_wire", "lost contact with your code while it ran get_tools_description (nested more than"),
    ("day07", "nest_the_json", "the API rejected request 1 with HTTP 400")])
def test_deeply_nested_json_is_refused_not_a_crash_of_the_grader(tmp_path, lesson, attack, said):
    """JSON the learner's code sends the grader (a wire message, an HTTP body of its openai client)
    nested 100,000 deep, a 5,000-digit number, a lone surrogate, bytes that are not UTF-8: each
    refused as the real API refuses them (HTTP 400, "We could not parse the JSON body"; the APIs
    refuse lone surrogates as invalid JSON too, https://github.com/anomalyco/opencode/issues/14630),
    none a crash. Before, the mock's parser crashed, and the grader's traceback, with its paths,
    was the student's feedback."""
    done = validate("--file", str(submission(tmp_path, attack, lesson)), "--format", "gradescope", lesson=lesson)
    results = json.loads(done.stdout)
    outputs = " ".join(test["output"] for test in results["tests"])
    assert said in outputs
    assert "Traceback" not in done.stdout and str(ROOT) not in done.stdout
    assert "crashed" not in done.stderr  # no check of the grader's crashed either


def test_a_check_that_crashes_shows_the_learner_no_traceback(tmp_path):
    """A bug of the grader's (here a check that raises with a path of the grader's in its message):
    the learner reads a short line naming the exception's type; the traceback goes to stderr."""
    import shutil
    folder = tmp_path / "day99_throwaway"
    shutil.copytree(ROOT / "tests" / "lessons" / "day99_throwaway", folder)
    with (folder / "checks.py").open("a", encoding="utf-8") as checks:
        checks.write("\n\n@check(\"1.1\", points=1, en=\"a check with a bug\", zh=\"有 bug 的检查\")\n"
                     "def test_with_a_bug(learner, world):\n"
                     "    raise FileNotFoundError('/srv/grader/secret-seed.txt')\n")
    done = subprocess.run([sys.executable, "validate.py", str(folder), "--solution", "--format", "gradescope"],
                          cwd=ROOT, capture_output=True, text=True, timeout=300)
    output = next(t["output"] for t in json.loads(done.stdout)["tests"] if "a check with a bug" in t["name"])
    assert output.startswith("the grader itself failed on this check (FileNotFoundError)"), output
    assert "secret-seed" not in done.stdout and "Traceback" not in done.stdout
    assert "Traceback" in done.stderr and "secret-seed" in done.stderr  # for the instructor


def test_json_text_a_check_reads_from_the_learner_is_read_within_bounds(tmp_path):
    """A tool result written as JSON nested 100,000 deep is not JSON to the checks (the lesson's own
    message, tool_not_json, which quotes it cut short), not a crash of theirs."""
    path = tmp_path / "day07.py"
    path.write_text((ROOT / "solutions" / "day07.py").read_text(encoding="utf-8") +
                    '\n\ndef execute_tool(tool_impl, name, arguments):\n    return "[" * 100_000 + "]" * 100_000\n',
                    encoding="utf-8")
    results = json.loads(validate("--file", str(path), "--format", "gradescope", lesson="day07").stdout)
    outputs = [test["output"] for test in results["tests"] if "TODO 1.2" in test["tags"]]
    assert outputs and all(output.startswith("execute_tool returned '[[[") for output in outputs), outputs
