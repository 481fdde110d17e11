"""validate.py end to end (a subprocess, as a learner runs it), plus lesson loading and templates."""
import csv
import io
import json
import os
import re
import subprocess
import sys
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest

from validator import cli, lessons
from validator.authoring.templates import make_template
from validator.isolation import jail
from validator.lessons import LessonError, load_lesson

ROOT = Path(__file__).resolve().parent.parent
TEMPLATE = ROOT / "lessons" / "day06" / "day06.py"
SOLUTION = ROOT / "solutions" / "day06.py"
TODO_IDS = ["1.2", "1.3", "2.1", "3.1", "4.1"]


def validate(*args: str) -> subprocess.CompletedProcess:
    env = {k: v for k, v in os.environ.items() if k not in ("LANGUAGE", "LC_MESSAGES", "LANG")}
    env.update(LC_ALL="C.UTF-8", PYTHONIOENCODING="utf-8")  # English unless --lang says otherwise
    return subprocess.run([sys.executable, "validate.py", *args], cwd=ROOT, env=env,
                          capture_output=True, text=True, encoding="utf-8", timeout=300)


@pytest.fixture(scope="module")
def partial(tmp_path_factory) -> Path:
    """The template with TODO 1.2 done (2 points): some checks pass, most fail."""
    text = TEMPLATE.read_text(encoding="utf-8")
    todo = 'raise NotImplementedError("TODO 1.2: describe the tools")'
    assert todo in text
    done = 'return "\\n".join(f"- {tool.name}: {tool.description}" for tool in tools)'
    path = tmp_path_factory.mktemp("learner") / "day06.py"
    path.write_text(text.replace(todo, done), encoding="utf-8")
    return path


@pytest.fixture(scope="module")
def untouched() -> subprocess.CompletedProcess:
    return validate("day06")


# ---------------------------------------------------------------- grading a file

def test_the_untouched_template_scores_zero(untouched):
    assert untouched.returncode == 1
    assert re.search(r"score: 0/\d+", untouched.stdout)
    for todo in TODO_IDS:
        assert f"TODO {todo}" in untouched.stdout
        assert f"not implemented yet (TODO {todo})" in untouched.stdout
    assert "Traceback" not in untouched.stdout + untouched.stderr
    assert "python validate.py day06" in untouched.stdout  # what to run next


def test_the_solution_passes():
    result = validate("day06", "--solution")
    assert result.returncode == 0, result.stdout
    score = re.search(r"score: (\d+)/(\d+)", result.stdout)
    assert score and score.group(1) == score.group(2)
    assert "✗" not in result.stdout


def test_a_partly_done_file(partial):
    result = validate("day06", "--file", str(partial))
    assert result.returncode == 1
    assert re.search(r"TODO 1\.2 .* 2/2", result.stdout)
    assert re.search(r"score: 2/\d+", result.stdout)
    assert "not implemented yet (TODO 1.2)" not in result.stdout
    assert "not implemented yet (TODO 1.3)" in result.stdout


@pytest.mark.parametrize("name", ["notes.txt", "agent.py"])
def test_a_file_that_is_not_python_is_named_so(tmp_path, name):
    path = tmp_path / name
    (tmp_path / "notes.txt").write_text("my notes\n", encoding="utf-8")
    if name == "agent.py":  # a link named like Python, to a file that is not: what counts is the file
        path.symlink_to(tmp_path / "notes.txt")
    result = validate("day06", "--file", str(path))
    assert result.returncode == 2 and "Traceback" not in result.stderr
    assert f"{path} is not a Python file" in result.stderr and ".py" in result.stderr


def test_file_that_does_not_exist(tmp_path):
    missing = tmp_path / "nowhere.py"
    result = validate("day06", "--file", str(missing))
    assert result.returncode == 2
    assert "no such file" in result.stderr and str(missing) in result.stderr
    assert "Traceback" not in result.stdout + result.stderr


def test_unknown_lesson_names_the_known_ones():
    result = validate("day99")
    assert result.returncode == 2
    assert "unknown lesson 'day99'" in result.stderr
    assert "day06" in result.stderr
    assert "Traceback" not in result.stdout + result.stderr


def test_usage_errors_speak_the_report_language():
    result = validate("day99", "--lang", "zh")
    assert result.returncode == 2
    assert "错误：没有名为 'day99' 的课程" in result.stderr
    missing = validate("day06", "--file", "nowhere.py", "--lang", "zh")
    assert missing.returncode == 2 and "文件不存在" in missing.stderr


def test_list_shows_every_lesson_with_its_score(untouched):  # day06 graded once: it has a score
    result = validate("list")
    assert result.returncode == 0
    assert re.search(r"day06\s+.*\s0/\d+", result.stdout)
    assert "Traceback" not in result.stdout + result.stderr


def test_bad_usage_is_exit_2():
    result = validate("day06", "--format", "pdf")
    assert result.returncode == 2
    assert "--format" in result.stderr


# ---------------------------------------------------------------- machine-readable results

def test_gradescope_results(partial, tmp_path):
    out = tmp_path / "results.json"
    result = validate("day06", "--file", str(partial), "--format", "gradescope", "--output", str(out))
    assert result.returncode == 1
    data = json.loads(out.read_text(encoding="utf-8"))
    assert data["score"] == 2 < data["max_score"]
    assert sum(t["score"] for t in data["tests"]) == data["score"]
    assert sum(t["max_score"] for t in data["tests"]) == data["max_score"]
    for test in data["tests"]:
        assert {"name", "score", "max_score", "status", "output", "tags"} <= test.keys()
        assert test["status"] in ("passed", "failed")
        assert (test["status"] == "passed") == (test["score"] == test["max_score"])
        todo_tags = [tag for tag in test["tags"] if re.fullmatch(r"TODO \d+\.\d+", tag)]
        assert len(todo_tags) == 1 and todo_tags[0] in test["name"]
        if test["status"] == "failed":
            assert test["output"]
    passed = {t["tags"][0] for t in data["tests"] if t["status"] == "passed"}
    assert passed == {"TODO 1.2"}


def test_junit_results(partial, tmp_path):
    out = tmp_path / "results.xml"
    result = validate("day06", "--file", str(partial), "--format", "junit", "--output", str(out))
    assert result.returncode == 1
    root = ET.parse(out).getroot()
    cases = root.findall(".//testcase")
    failed = [c for c in cases if c.find("failure") is not None]
    passed = [c for c in cases if c not in failed]
    assert len(passed) == 2 and all("TODO 1.2" in c.get("name") for c in passed)
    assert all(c.find("failure").get("message") for c in failed)
    suite = root.find("testsuite")
    assert (suite.get("tests"), suite.get("failures")) == (str(len(cases)), str(len(failed)))
    gradescope = json.loads(validate("day06", "--file", str(partial), "--format", "gradescope").stdout)
    assert [c.get("name") for c in cases] == [t["name"] for t in gradescope["tests"]]


@pytest.mark.parametrize("fmt, said", [("gradescope", "output"), ("prairielearn", "message")])
def test_results_are_deterministic(partial, fmt, said):
    first = validate("day06", "--file", str(partial), "--seed", "3", "--format", fmt)
    second = validate("day06", "--file", str(partial), "--seed", "3", "--format", fmt)
    assert first.stdout == second.stdout
    assert "seed" not in first.stdout  # a secret seed stays secret unless asked for
    shown = validate("day06", "--file", str(partial), "--seed", "3", "--format", fmt, "--show-seed")
    assert json.loads(shown.stdout)[said].endswith("(seed 3)")


def test_the_seed_comes_from_a_file_or_the_environment(partial, tmp_path):
    """An instructor's secret seed, from a file or the environment, grades each submission at
    numbers drawn from it and the file's own code (submission_seed): another file, other numbers,
    so answers copied from one grading's feedback into the next submission fail. --show-seed names
    the seed the file was graded at: --seed with it gives the same report."""
    from validator.grading.runner import submission_seed
    (tmp_path / "seed").write_text("3\n", encoding="utf-8")
    args = ("day06", "--file", str(partial), "--format", "gradescope", "--show-seed")
    from_file = validate(*args, "--seed-file", str(tmp_path / "seed"))
    from_env = subprocess.run([sys.executable, "validate.py", *args], cwd=ROOT, capture_output=True,
                              text=True, env={**os.environ, "REACTLINGS_SEED": "3"})
    own = submission_seed(3, partial.read_bytes())
    assert from_file.stdout == from_env.stdout == validate(*args, "--seed", str(own)).stdout
    assert json.loads(from_file.stdout)["output"].endswith(f"(seed {own})")
    (tmp_path / "other.py").write_text(partial.read_text(encoding="utf-8") + "\n# another file\n", encoding="utf-8")
    other = validate("day06", "--file", str(tmp_path / "other.py"), "--format", "gradescope", "--show-seed",
                     "--seed-file", str(tmp_path / "seed"))
    assert json.loads(other.stdout)["output"].endswith(f"(seed {submission_seed(3, (tmp_path / 'other.py').read_bytes())})")


SECRET = "18446744073709551629"  # above 2**64: no note that it is short enough to guess


@pytest.mark.parametrize("given", ["--seed-file", "REACTLINGS_SEED", "--seed", "none"])
def test_the_report_names_a_secret_seed_only_when_asked(partial, tmp_path, given):
    """A report pasted to a student must not hand them the instructor's seed: one from a file or the
    environment is named only with --show-seed; a learner's own --seed 7, or seed 0, is theirs to see."""
    (tmp_path / "seed").write_text(f"{SECRET}\n", encoding="utf-8")
    env = {k: v for k, v in os.environ.items() if k != "REACTLINGS_SEED"}
    args = {"--seed-file": ["--seed-file", str(tmp_path / "seed")], "--seed": ["--seed", "7"]}.get(given, [])
    if given == "REACTLINGS_SEED":
        env["REACTLINGS_SEED"] = SECRET

    def header(*more: str) -> str:
        done = subprocess.run([sys.executable, "validate.py", "day06", "--file", str(partial), *args, *more],
                              cwd=ROOT, capture_output=True, text=True, env=env)
        assert done.returncode == 1, done.stderr
        return done.stdout.splitlines()[2]

    from validator.grading.runner import submission_seed
    shown = {"--seed": "seed: 7", "none": "seed: 0"}.get(given, f"seed: {submission_seed(int(SECRET), partial.read_bytes())}")
    if given in ("--seed", "none"):
        assert header().endswith(shown)
    else:
        assert "seed" not in header() and header().startswith("file: ")
        assert SECRET not in header() and header("--show-seed").endswith(shown)


@pytest.mark.parametrize("content", [None, b"", b" \n\n", b"\xff\xfe\x00\x9c\x00", b"seven\n"],
                         ids=["missing", "empty", "blank", "binary", "not-a-number"])
@pytest.mark.parametrize("command", ["lesson", "gradescope", "prairielearn", "grade"])
def test_a_seed_file_without_a_seed_is_a_clear_error_in_every_command(tmp_path, content, command):
    """Never the public seed 0 in its place, never a traceback; nothing made."""
    path = tmp_path / "seed"
    if content is not None:
        path.write_bytes(content)
    (tmp_path / "class").mkdir()
    (tmp_path / "class" / "alice.py").write_text(SOLUTION.read_text(encoding="utf-8"), encoding="utf-8")
    args = {"lesson": ("day06",), "gradescope": ("gradescope", "day06", "--out", str(tmp_path / "a.zip")),
            "prairielearn": ("prairielearn", "day06", "--out", str(tmp_path / "pl"), "--image", "me/grader"),
            "grade": ("grade", "day06", str(tmp_path / "class"), "--out", str(tmp_path / "grades"))}[command]
    result = validate(*args, "--seed-file", str(path))
    assert result.returncode == 2 and "Traceback" not in result.stderr
    assert str(path) in result.stderr and len(result.stderr.strip().splitlines()) == 1
    assert not any((tmp_path / made).exists() for made in ("a.zip", "pl", "grades"))


def test_a_secret_seed_short_enough_to_guess_gets_a_note(tmp_path):
    """A student's code sees the numbers the tools draw from the seed: a short one can be found."""
    path = tmp_path / "seed"
    for seed, noted in (("48213", True), (str(2 ** 127 + 12345), False)):
        path.write_text(seed + "\n", encoding="utf-8")
        result = validate("day06", "--solution", "--seed-file", str(path), "--quiet")
        assert result.returncode == 0, result.stderr
        assert ("short enough to find" in result.stderr) == noted, result.stderr
        assert "secrets.randbits(128)" in result.stderr or not noted


def test_output_makes_its_folder_and_an_unwritable_one_is_said_before_grading(tmp_path):
    made = validate("day06", "--solution", "--format", "junit", "--output", str(tmp_path / "no" / "dir" / "x.xml"))
    assert made.returncode == 0 and "<testsuite" in (tmp_path / "no" / "dir" / "x.xml").read_text(encoding="utf-8")
    (tmp_path / "a-file").write_text("", encoding="utf-8")
    result = validate("day06", "--format", "junit", "--output", str(tmp_path / "a-file" / "x.xml"))
    assert result.returncode == 2 and "a-file" in result.stderr
    assert "Traceback" not in result.stderr and "score" not in result.stdout  # said before any grading


def test_output_never_replaces_the_code_graded(tmp_path):
    mine = tmp_path / "mine.py"
    mine.write_text(SOLUTION.read_text(encoding="utf-8"), encoding="utf-8")
    for output in (mine, tmp_path / "other.py", tmp_path / "book.ipynb"):
        result = validate("day06", "--file", str(mine), "--format", "gradescope", "--output", str(output))
        assert result.returncode == 2 and "Python file" in result.stderr and not (tmp_path / "book.ipynb").exists()
    assert mine.read_text(encoding="utf-8") == SOLUTION.read_text(encoding="utf-8")


def test_a_file_python_would_not_run_is_graded_as_it_runs(tmp_path):
    """Bytes that are not UTF-8 in a comment: the importer lets them by, `python file.py` stops at
    them. The learner gets the error Python gives them, not full marks for a file that won't run."""
    latin = tmp_path / "latin.py"
    latin.write_bytes(SOLUTION.read_bytes() + b"# caf\xe9\n")
    refused = validate("day06", "--file", str(latin))
    lines = len(SOLUTION.read_bytes().splitlines()) + 1
    assert refused.returncode == 1 and "score: 0/" in refused.stdout
    assert f"Non-UTF-8 code starting with '\\xe9' on line {lines}" in words(refused.stdout)
    declared = tmp_path / "declared.py"
    declared.write_bytes(b"# -*- coding: latin-1 -*-\n" + SOLUTION.read_bytes() + b"# caf\xe9\n")
    assert validate("day06", "--file", str(declared)).returncode == 0  # its encoding said: Python runs it


def test_a_folder_or_a_dangling_link_is_named_for_what_it_is(tmp_path):
    assert "is a folder, not a file" in validate("day06", "--file", str(tmp_path)).stderr
    (tmp_path / "day04.py").symlink_to(tmp_path / "elsewhere" / "gone.py")
    result = in_workspace(tmp_path, "day04")
    assert result.returncode == 2 and "is a link to" in result.stderr and "Traceback" not in result.stderr
    assert not (tmp_path / "elsewhere").exists()  # nothing written through the link


@pytest.mark.parametrize("blank", ["", "  "])
def test_a_seed_variable_set_to_nothing_is_an_error_not_the_public_seed(tmp_path, blank):
    """A CI secret never added reads as "": grading at the public seed would let typed-in answers pass."""
    env = {k: v for k, v in os.environ.items() if k not in ("LANGUAGE", "LC_MESSAGES", "LANG")}
    env.update(LC_ALL="C.UTF-8", PYTHONIOENCODING="utf-8", REACTLINGS_SEED=blank)
    for args in (["day06", "--solution", "--format", "gradescope"],
                 ["grade", "day06", str(ROOT / "tests" / "submissions" / "day06"), "--out", str(tmp_path / "g")]):
        result = subprocess.run([sys.executable, "validate.py", *args], cwd=ROOT, env=env, capture_output=True,
                                text=True, encoding="utf-8", timeout=300)
        assert result.returncode == 2 and "REACTLINGS_SEED is set but empty" in result.stderr, result.stderr
        assert not result.stdout and not (tmp_path / "g").exists()


INTERRUPTED_WHILE_LOADING = """
import os, runpy, signal, sys
class Interrupt:  # Ctrl-C as the kit's command line module is imported
    def find_spec(self, name, path=None, target=None):
        if name == "validator.cli":
            sys.meta_path.remove(self)
            os.kill(os.getpid(), signal.SIGINT)
sys.meta_path.insert(0, Interrupt())
sys.argv = ["validate.py", *sys.argv[1:]]
runpy.run_path("validate.py", run_name="__main__")
"""


@pytest.mark.parametrize("args", [["day06"], ["grade", "day06", "SUBMISSIONS", "--out", "OUT"]])
def test_ctrl_c_while_the_kit_loads_is_one_line_too(tmp_path, args):
    args = [{"SUBMISSIONS": str(ROOT / "tests" / "submissions" / "day06"), "OUT": str(tmp_path / "g")}.get(a, a)
            for a in args]
    env = {k: v for k, v in os.environ.items() if k not in ("LANGUAGE", "LC_MESSAGES", "LANG")}
    env.update(LC_ALL="C.UTF-8", PYTHONIOENCODING="utf-8", REACTLINGS_WORKSPACE=str(tmp_path / "ws"))
    result = subprocess.run([sys.executable, "-c", INTERRUPTED_WHILE_LOADING, *args], cwd=ROOT, env=env,
                            capture_output=True, text=True, encoding="utf-8", timeout=300)
    assert result.returncode == 130 and result.stderr.strip() == "stopped", result.stderr
    assert not (tmp_path / "g").exists() and not (tmp_path / "ws").exists()  # it stopped before doing anything


# ---------------------------------------------------------------- trace, seed, language

def test_trace_shows_prompts_replies_and_tools():
    result = validate("day06", "--solution", "--trace")
    out = result.stdout
    assert "round 1" in out and "round 2" in out
    assert "{round}" not in out
    assert "Question: What is 3 + 5 * 2?" in out  # the prompt the learner's code sent
    assert "Action: Calculator\n" in out and "Action Input: 3 + 5 * 2\n" in out  # the mock's reply
    assert "Final Answer: 3 + 5 * 2 = 13" in out
    assert "Calculator('3 + 5 * 2') → '13'" in out  # the tool that ran


@pytest.mark.slow
@pytest.mark.parametrize("lesson", lessons.lesson_names())
def test_every_lesson_traces_its_rounds(lesson):
    """--trace in every protocol (decisions, JSON text, text, chat): day01 and day02's exchanges once
    lacked what the trace asks each round, and --trace ended in a traceback after the report."""
    result = validate(lesson, "--solution", "--trace")
    assert result.returncode == 0 and "Traceback" not in result.stderr, result.stderr
    assert "round 1" in result.stdout or "no check ran your agent" in result.stdout  # day03, day04: no loop


def questions_in_trace(*args: str) -> list[str]:
    out = validate("day06", "--trace", *args).stdout
    return re.findall(r"── calculator: (.*)", out)


def test_another_seed_asks_other_questions():
    default, seven = questions_in_trace(), questions_in_trace("--seed", "7")
    assert default and set(default) == {"What is 3 + 5 * 2?"}
    assert seven and "What is 3 + 5 * 2?" not in seven


def test_another_seed_still_passes_the_solution():
    result = validate("day06", "--solution", "--seed", "7")
    assert result.returncode == 0, result.stdout
    assert "seed: 7" in result.stdout


def test_chinese_report(untouched):
    result = validate("day06", "--lang", "zh")
    assert result.returncode == 1
    assert "还没有实现" in result.stdout and "得分" in result.stdout
    assert "not implemented yet" not in result.stdout
    assert "Traceback" not in result.stdout + result.stderr


# ---------------------------------------------------------------- lesson.yaml and templates

def test_malformed_lesson_yaml_names_the_file(tmp_path, monkeypatch):
    monkeypatch.setattr(lessons, "LESSONS_DIR", tmp_path)
    path = tmp_path / "broken" / "lesson.yaml"
    path.parent.mkdir()
    path.write_text("title: {en: [unclosed\n", encoding="utf-8")
    with pytest.raises(LessonError, match="not valid YAML") as error:
        load_lesson("broken")
    assert str(path) in str(error.value)


@pytest.mark.parametrize("text", ["", "just text\n", "title: {en: t, zh: t}\nexercise: x.py\n",
                                  "title: t\nexercise: x.py\ntodos: [{id: '1.1'}]\n"])
def test_incomplete_lesson_yaml_names_the_file(tmp_path, monkeypatch, text):
    monkeypatch.setattr(lessons, "LESSONS_DIR", tmp_path)
    path = tmp_path / "broken" / "lesson.yaml"
    path.parent.mkdir()
    path.write_text(text, encoding="utf-8")
    with pytest.raises(LessonError) as error:
        load_lesson("broken")
    assert str(path) in str(error.value)


def test_unknown_lesson_lists_the_lessons(tmp_path, monkeypatch):
    monkeypatch.setattr(lessons, "LESSONS_DIR", tmp_path)
    (tmp_path / "day01").mkdir()
    (tmp_path / "day01" / "lesson.yaml").write_text("title: t\n", encoding="utf-8")
    with pytest.raises(LessonError, match=r"unknown lesson 'day99' \(lessons: day01\)"):
        load_lesson("day99")


@pytest.mark.parametrize("key, value, said", [
    ("todos", [{"id": "1.1", "function": "f", "title": "t"}, {"id": "1.1", "function": "g", "title": "u"}],
     "two TODOs have the id 1.1"),
    ("todos", [], "`todos:` is not a list of TODOs (each with id, function and title)"),
    ("todos", [{"id": "1.1", "title": "t"}], "TODO number 1 has no `function:`"),
    ("time_limit", "three", "`time_limit: three` is not a number above 0"),
    ("time_limit", -1, "`time_limit: -1` is not a number above 0"),
    ("llm_call_budget", 0, "`llm_call_budget: 0` is not a number above 0")])
def test_a_lesson_yaml_of_the_wrong_shape_says_what_is_wrong(tmp_path, monkeypatch, key, value, said):
    """Said as the author wrote it, not a KeyError or a hang limit of -1 s met by every check."""
    import yaml
    monkeypatch.setattr(lessons, "LESSONS_DIR", tmp_path)
    path = tmp_path / "broken" / "lesson.yaml"
    path.parent.mkdir()
    data = yaml.safe_load((ROOT / "lessons" / "day06" / "lesson.yaml").read_text(encoding="utf-8"))
    path.write_text(yaml.safe_dump({**data, key: value}, allow_unicode=True), encoding="utf-8")
    with pytest.raises(LessonError) as error:
        load_lesson("broken")
    assert str(error.value) == f"{path}: {said}"


def test_templates_are_up_to_date():
    result = subprocess.run([sys.executable, "-m", "validator.authoring.templates", "--check"], cwd=ROOT,
                            capture_output=True, text=True, encoding="utf-8")
    assert result.returncode == 0, result.stdout + result.stderr


TINY = '''\
def get_tools_description(tools):
    """TODO 1.2 — describe the tools."""
    # BEGIN SOLUTION
    lines = [t.name for t in tools]
    return "\\n".join(lines)
    # END SOLUTION


KEEP = 1
'''


def test_make_template_replaces_the_solution():
    template = make_template(TINY, load_lesson("day06"))
    assert template == (
        'def get_tools_description(tools):\n'
        '    """TODO 1.2 — describe the tools."""\n'
        '    raise NotImplementedError("TODO 1.2: describe the tools")\n'
        '\n\nKEEP = 1\n')


@pytest.mark.parametrize("broken, problem", [
    (TINY.replace("    # END SOLUTION\n", ""), "never closed"),
    (TINY.replace("    # BEGIN SOLUTION\n", ""), "without"),
    (TINY.replace("TODO 1.2", "TODO 9.9"), "no TODO"),
    (TINY.replace("    # END SOLUTION\n", "    # BEGIN SOLUTION\n"), "inside another"),
])
def test_make_template_rejects_broken_markers(broken, problem):
    with pytest.raises(LessonError, match=problem):
        make_template(broken, load_lesson("day06"))


# ---------------------------------------------------------------- the learner's own copy, progress, hints

def in_workspace(folder: Path, *args: str, stdin: str = "") -> subprocess.CompletedProcess:
    env = {k: v for k, v in os.environ.items() if k not in ("LANGUAGE", "LC_MESSAGES", "LANG")}
    env.update(LC_ALL="C.UTF-8", PYTHONIOENCODING="utf-8", REACTLINGS_WORKSPACE=str(folder))
    return subprocess.run([sys.executable, "validate.py", *args], cwd=ROOT, env=env, input=stdin,
                          capture_output=True, text=True, encoding="utf-8", timeout=300)


def test_the_learner_edits_a_copy_that_the_kit_never_overwrites(tmp_path):
    first = in_workspace(tmp_path, "day06")
    copy = tmp_path / "day06.py"
    assert copy.read_text(encoding="utf-8") == TEMPLATE.read_text(encoding="utf-8")
    assert "day06.py" in first.stdout and first.returncode == 1
    copy.write_text(SOLUTION.read_text(encoding="utf-8"), encoding="utf-8")  # the learner's work
    assert subprocess.run([sys.executable, "-m", "validator.authoring.templates"], cwd=ROOT).returncode == 0
    passed = in_workspace(tmp_path, "day06")
    assert passed.returncode == 0
    assert copy.read_text(encoding="utf-8") == SOLUTION.read_text(encoding="utf-8")  # still theirs
    assert "solutions/day06.py" in passed.stdout and "python validate.py day07" in passed.stdout


@pytest.mark.parametrize("text", ['{"lessons": {"day06": "x", "day01": {"best": 3, "max": 18}}, "hints": []}',
                                  '{"lessons": {"day01": {"best": 3, "max": 18}}, "hints": {"day01": {"1.1": 1}',
                                  '[1, 2]'], ids=["wrong shape", "cut short", "not an object"])
def test_an_unreadable_progress_file_is_kept_aside_and_said_once(tmp_path, text):
    (tmp_path / "progress.json").write_text(text, encoding="utf-8")
    first = in_workspace(tmp_path, "list")
    assert first.returncode == 0 and "Traceback" not in first.stderr
    backups = list((tmp_path / "backups").glob("progress.*.json"))
    assert len(backups) == 1 and backups[0].read_text(encoding="utf-8") == text  # nothing of it lost
    assert words(f"{tmp_path / 'progress.json'} is not progress the kit can read") in words(first.stderr)
    assert str(backups[0]) in words(first.stderr).replace(" ", "")
    if text.startswith('{"lessons": {"day06": "x"'):  # what could be read of it is kept
        assert re.search(r"day01\s+.*started", first.stdout)
    again = in_workspace(tmp_path, "hint", "day06")
    assert "TODO 1.2" in again.stdout and "not progress" not in again.stderr and "Traceback" not in again.stderr
    assert len(list((tmp_path / "backups").glob("progress.*.json"))) == 1


def test_progress_list_and_next(tmp_path):
    assert lessons.lesson_names()[0] in in_workspace(tmp_path, "next").stdout.splitlines()[0]
    (tmp_path / "day06.py").write_text(SOLUTION.read_text(encoding="utf-8"), encoding="utf-8")
    in_workspace(tmp_path, "day06")
    listed = in_workspace(tmp_path, "list").stdout
    assert re.search(r"day06\s+.*passed\s+(\d+)/\1", listed)
    assert re.search(r"1/\d+ lessons passed", listed)
    assert "day06" not in in_workspace(tmp_path, "next").stdout.splitlines()[0]


def test_run_from_another_folder_the_commands_it_prints_run_there(tmp_path):
    """`next`, the report's "run again" line and the rest name the kit's script as it is reached
    from where the learner is: copied from the terminal, each runs."""
    env = {k: v for k, v in os.environ.items() if k not in ("LANGUAGE", "LC_MESSAGES", "LANG")}
    env.update(LC_ALL="C.UTF-8", PYTHONIOENCODING="utf-8", REACTLINGS_WORKSPACE=str(tmp_path / "work"), COLUMNS="200")
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    script = str(ROOT / "validate.py")

    def run(*args):
        return subprocess.run([sys.executable, script, *args], cwd=elsewhere, env=env, capture_output=True,
                              text=True, encoding="utf-8", timeout=300)

    told = re.search(r"check\s+python (\S+) (day\d+)", run("next").stdout)
    assert told and told.group(1) != "validate.py"
    assert (elsewhere / told.group(1)).resolve() == ROOT / "validate.py"
    graded = run(told.group(2))
    assert f"python {told.group(1)} {told.group(2)}" in graded.stdout  # run it again: the same command
    assert "Which lesson? For example: python " + told.group(1) in run().stdout


def words(text: str) -> str:
    """Text with its line breaks and indents (its wrapping) as single spaces."""
    return " ".join(text.split())


def test_hints_come_one_level_more_each_time(tmp_path, monkeypatch):
    lesson = load_lesson("day06")
    first = in_workspace(tmp_path, "hint", "day06")
    todo = lesson.todo("1.2")
    assert "TODO 1.2" in first.stdout and words(todo.hints[0]["en"]) in words(first.stdout)
    assert all(line.startswith("    ") for line in first.stdout.splitlines()[2:3])  # a wrapped hint keeps its indent
    again = in_workspace(tmp_path, "hint", "day06")
    assert f"{min(2, len(todo.hints))} of {len(todo.hints)}" in again.stdout


def test_reset_asks_and_keeps_a_backup(tmp_path):
    in_workspace(tmp_path, "day06")
    in_workspace(tmp_path, "hint", "day06")
    progress = lambda: json.loads((tmp_path / "progress.json").read_text(encoding="utf-8"))  # noqa: E731
    assert "day06" in progress()["lessons"] and "day06" in progress()["hints"]
    copy = tmp_path / "day06.py"
    copy.write_text("# my work\n", encoding="utf-8")
    refused = in_workspace(tmp_path, "reset", "day06", stdin="n\n")
    assert refused.returncode == 1 and copy.read_text(encoding="utf-8") == "# my work\n"
    done = in_workspace(tmp_path, "reset", "day06", stdin="y\n")
    assert done.returncode == 0
    assert copy.read_text(encoding="utf-8") == TEMPLATE.read_text(encoding="utf-8")
    backups = list((tmp_path / "backups").glob("day06.*.py"))
    assert [b.read_text(encoding="utf-8") for b in backups] == ["# my work\n"]
    assert "day06" not in progress()["lessons"] and "day06" not in progress()["hints"]  # the lesson starts again
    assert re.search(r"day06\s+.*\snot started\s*$", in_workspace(tmp_path, "list").stdout, re.M)


@pytest.mark.parametrize("command", [("day06",), ("hint", "day06"), ("day06", "--quiet"),
                                     ("day06", "--format", "gradescope")])
def test_a_command_that_makes_your_copy_says_so(tmp_path, command):
    made = in_workspace(tmp_path, *command)
    assert (tmp_path / "day06.py").is_file()
    notes = [line for line in made.stderr.splitlines() if "made your copy" in line]
    assert len(notes) == 1 and "day06.py" in notes[0], made.stderr
    assert "made your copy" not in in_workspace(tmp_path, *command).stderr  # once: when it is made


def test_no_lesson_names_the_commands():
    result = validate()
    assert result.returncode == 2
    assert "python validate.py day06" in result.stdout and "list" in result.stdout


def test_quiet_prints_one_line():
    result = validate("day06", "--solution", "--quiet")
    assert result.returncode == 0 and len(result.stdout.strip().splitlines()) == 1


def test_trace_can_pick_a_scenario():
    out = validate("day06", "--solution", "--trace", "weather").stdout
    assert "── weather:" in out and "── calculator:" not in out


@pytest.mark.parametrize("which, scenario", [("Never Finishes", "endless"), ("3 + 5", "calculator"),
                                             ("TODO 4.1", "fahrenheit"), ("死循环", None)])
def test_trace_matches_what_the_report_shows(which, scenario):
    """A check's title (any case, either language), a TODO, a scenario's question; nothing
    matched is said, with what would match."""
    out = validate("day06", "--solution", "--trace", which).stdout
    runs = set(re.findall(r"── (\w+):", out))
    if scenario is None:
        assert not runs and f"--trace {which}: no check or agent run matches it" in out
        assert "calculator, endless, fahrenheit" in out
    else:
        assert scenario in runs and "no check or agent run matches" not in out


def test_a_trace_after_a_check_that_printed():
    """A failed check whose code printed shows that output, then the trace goes on."""
    result = validate("day06", "--file", str(ROOT / "tests/submissions/day06/bad_history_not_fed_back.py"), "--trace")
    assert result.returncode == 1 and "Traceback" not in result.stderr, result.stderr
    assert "your code printed" in result.stdout and "── calculator:" in result.stdout


def test_a_trace_is_shown_once():
    """day07, the tool results sent without the assistant message: every agent check fails for that
    one cause; its run is traced once, the same run under another check is named, not repeated."""
    out = validate("day07", "--file", str(ROOT / "tests/submissions/day07/bad_no_assistant_message.py"),
                   "--trace").stdout
    traced_in_full = [run for run in out.split("── ")[1:] if run.startswith("one_quote:") and "round 1 ·" in run]
    assert len(traced_in_full) == 1 and out.count("same cause as above") >= 4
    assert "── unknown_ticker:" not in out and "── compare_three:" not in out  # their checks: "same cause"
    runs, again = len(re.findall(r"^\s*── ", out, re.M)), out.count("(the same run as under")
    assert again and len(re.findall(r"^\s*round 1 ·", out, re.M)) == runs - again


def test_a_crash_inside_another_todos_function_is_said_once_where_it_is():
    """The loop crashes inside execute_tool (TODO 1.2's) at the very line TODO 1.2's own check
    showed: the loop's check says "same cause", and Gradescope's, which shows each alone, points
    at execute_tool, not at a call the loop already makes."""
    path = str(ROOT / "tests/submissions/day01/bad_unknown_tool_keyerror.py")
    out = validate("day01", "--file", path).stdout
    loop = out[out.index("TODO 1.3"):]
    assert "same cause as above (an unknown tool gives an error text" in loop and "react_agent raised" not in loop
    tests = json.loads(validate("day01", "--file", path, "--format", "gradescope").stdout)["tests"]
    recovers = next(t for t in tests if t["name"].startswith("TODO 1.3 · an unknown tool"))
    assert "from inside your execute_tool. Fix execute_tool first (TODO 1.2)" in recovers["output"]


def test_failures_that_differ_only_by_an_address_are_one_cause():
    """Two calls that each return a generator fail with its repr, whose address is left out of the
    report: which earlier check a failure is "the same cause as" must not hang on two objects
    happening to share an address (it did: day11's run_calls returning executor.map)."""
    from types import SimpleNamespace

    from validator.checking import Fail
    from validator.grading.report import first_failures

    def failed(name, address):
        return SimpleNamespace(name=name, passed=False,
                               failure=Fail("wrong_type", got=f"<generator object at {address}>"))
    grade = SimpleNamespace(checks=[failed("a", "0x7f3a21c0"), failed("b", "0x7f3a2e40"), failed("c", "0x7f3a21c0")])
    assert {k: v.name for k, v in first_failures(grade).items()} == {"b": "a", "c": "a"}


def test_grading_ignores_a_conftest_planted_next_to_the_checks(tmp_path):
    planted = ROOT / "lessons" / "day06" / "conftest.py"
    assert not planted.exists()
    planted.write_text("import pytest\n\n@pytest.hookimpl(trylast=True)\n"
                       "def pytest_collection_modifyitems(items):\n"
                       "    for item in items:\n        item.obj = lambda **fixtures: None\n", encoding="utf-8")
    try:
        result = validate("day06", "--file", str(TEMPLATE), "--format", "gradescope")
    finally:
        planted.unlink()
    assert json.loads(result.stdout)["score"] == 0


@pytest.mark.parametrize("where, columns", [("terminal", 80), ("pipe", None), ("pipe", 60)])
@pytest.mark.parametrize("lang", ["en", "zh"])
def test_lines_wrap_at_words_and_keep_their_indent(lang, tmp_path, where, columns):
    """On a terminal as wide as $COLUMNS, and in a pipe (to a file, to `less`): $COLUMNS, else 80."""
    from rich.cells import cell_len
    env = {k: v for k, v in os.environ.items() if k not in ("COLUMNS", "FORCE_COLOR", "TERM")}
    env.update(LC_ALL="C.UTF-8", PYTHONIOENCODING="utf-8", **({"FORCE_COLOR": "1"} if where == "terminal" else {}),
               **({"COLUMNS": str(columns)} if columns else {}))
    partial = tmp_path / "day06.py"
    partial.write_text(SOLUTION.read_text(encoding="utf-8").replace(
        "return thought, \"\", final.group(1).strip()", "return thought, \"\", final.group(1).split()[0]"),
        encoding="utf-8")
    result = subprocess.run([sys.executable, "validate.py", "day06", "--file", str(partial), "--lang", lang],
                            cwd=ROOT, env=env, capture_output=True, text=True, encoding="utf-8",
                            stdin=subprocess.DEVNULL)  # no terminal anywhere to take a width from
    plain = re.sub(r"\x1b\[[0-9;]*m", "", result.stdout)
    assert "\x1b" in result.stdout or where == "pipe"
    # but a word wider than a line, kept whole on a line of its own, and the lines of a path or a
    # command to copy: the file graded, the command to run next
    assert all(cell_len(line) <= (columns or 80) or " " not in line.strip() or "python validate.py" in line
               or str(partial.name) in line for line in plain.splitlines())
    assert max(map(cell_len, plain.splitlines())) > (columns or 80) - 10  # wrapped near the edge, not short
    assert not [line for line in plain.splitlines() if line.endswith(" ")]  # no padding to the edge
    assert "get_tools_description" in plain and "parse_react_response" in plain  # never split mid-word
    hint = next(i for i, line in enumerate(plain.splitlines()) if line.lstrip().startswith(("hint:", "提示")))
    assert plain.splitlines()[hint + 1].startswith("  ")  # the continuation keeps the indent


@pytest.mark.parametrize("args", [("release", "--out", "/proc/no/such/place"),
                                  ("grade", "day06", "tests/submissions/day06", "--out", "/proc/no/such/place"),
                                  ("grade", "day06", "/no/such/class", "--out", "/tmp/x"),
                                  ("gradescope", "day06", "--seed", "1", "--out", "/proc/no/such/autograder.zip")])
def test_instructor_commands_with_bad_paths_say_so_in_one_line(args):
    result = validate(*args)
    assert result.returncode == 2
    assert "Traceback" not in result.stderr and len(result.stderr.strip().splitlines()) == 1


@pytest.mark.parametrize("problem", ["missing", "a file", "jobs 0", "jobs -2"])
def test_grade_checks_its_arguments_before_making_anything(tmp_path, problem):
    submissions, out = tmp_path / "class", tmp_path / "grades"
    if problem == "a file":
        submissions.write_text("", encoding="utf-8")
    elif problem != "missing":
        submissions.mkdir()
    jobs = ["--jobs", problem.split()[1]] if problem.startswith("jobs") else []
    result = validate("grade", "day06", str(submissions), "--out", str(out), *jobs)
    assert result.returncode == 2 and "Traceback" not in result.stderr and not out.exists()
    expected = {"missing": "no such folder", "a file": "is a file, not a folder"}.get(problem, "--jobs: must be")
    assert expected in result.stderr


@pytest.mark.parametrize("command", ["lesson", *cli.COMMANDS])
def test_every_argument_has_help(command):
    parser = cli.lesson.parser("") if command == "lesson" else cli.command_parser(command)
    assert [a.dest for a in parser._actions if not a.help] == []


@pytest.mark.slow
def test_an_interpreter_without_the_kits_packages_says_what_to_run(tmp_path):
    """A venv made but not activated, or a system Python: its site has none of the kit's packages."""
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(tmp_path / "venv")], check=True)
    bare = tmp_path / "venv" / ("Scripts/python.exe" if os.name == "nt" else "bin/python")
    for args in (("validate.py", "day06"), ("validate.py", "list"), ("validate.py", "--help"),
                 ("-m", "mock_llm", "serve"), ("-m", "mock_llm", "--help")):
        result = subprocess.run([str(bare), *args], cwd=ROOT, capture_output=True, text=True, timeout=60)
        assert result.returncode == 2 and "Traceback" not in result.stderr, result.stderr
        assert len(result.stderr.strip().splitlines()) == 1 and result.stdout == ""
        assert "reactlings needs its packages" in result.stderr and "pip install -e ." in result.stderr
        assert ". .venv/bin/activate" in result.stderr and str(bare) in result.stderr


def test_a_venv_and_the_kit_reached_through_links_grade_in_full(tmp_path):
    """The jail shows real paths only: a venv reached through a link (say, into /tmp) was not
    there, the child could not start, and the solution scored 0 (exit status 121)."""
    (tmp_path / "venv").symlink_to(sys.prefix, target_is_directory=True)
    (tmp_path / "kit").symlink_to(ROOT, target_is_directory=True)
    python = tmp_path / "venv" / Path(sys.executable).relative_to(sys.prefix)
    result = subprocess.run([str(python), "validate.py", "day06", "--solution", "--quiet"], cwd=tmp_path / "kit",
                            capture_output=True, text=True, timeout=300)
    assert result.returncode == 0 and re.fullmatch(r"day06 score: (\d+)/\1\n", result.stdout), result.stdout


def test_a_class_graded_through_linked_venv_and_kit_imports_what_the_venv_has(tmp_path):
    """A class's children are forks of a warm sandbox: it must see the venv by the real paths the
    jail binds, or a learner's `import yaml` (no lesson file imports it) fails in the class only."""
    (tmp_path / "venv").symlink_to(sys.prefix, target_is_directory=True)
    (tmp_path / "kit").symlink_to(ROOT, target_is_directory=True)
    python = tmp_path / "venv" / Path(sys.executable).relative_to(sys.prefix)
    subs = tmp_path / "subs"
    subs.mkdir()
    solution = (ROOT / "solutions" / "day06.py").read_text(encoding="utf-8")
    (subs / "ana.py").write_text(solution + "\nimport yaml  # the venv's, as any learner's file may\n", encoding="utf-8")
    (subs / "bo.py").write_text(solution, encoding="utf-8")
    unjailed = ["--allow-unisolated"] if jail.unavailable_reason() else []  # the fork server's path is what is tried
    result = subprocess.run([str(python), "validate.py", "grade", "day06", str(subs), "--out", str(tmp_path / "out"),
                             *unjailed], cwd=tmp_path / "kit", capture_output=True, text=True, timeout=300)
    assert result.returncode == 0, result.stdout + result.stderr
    rows = list(csv.DictReader(io.StringIO((tmp_path / "out" / "grades.csv").read_text(encoding="utf-8-sig"))))
    assert [(r["student"], r["score"] == r["max"]) for r in rows] == [("ana", True), ("bo", True)], rows


def test_help_lists_every_command():
    """Instructors' ones too; and each command's own --help."""
    result = validate("--help")
    assert result.returncode == 0
    for command in cli.COMMANDS:
        assert re.search(rf"^\s+python validate\.py {command}\b", result.stdout, re.M), command
        own = validate(command, "--help")
        assert own.returncode == 0 and f"usage: validate.py {command}" in own.stdout
    assert "130" in result.stdout  # the exit statuses, Ctrl-C's too


def test_the_mock_servers_help_is_complete():
    """What serve does, with every option of it and the lessons it can answer for, in the first help."""
    result = subprocess.run([sys.executable, "-m", "mock_llm", "--help"], cwd=ROOT, capture_output=True, text=True)
    assert result.returncode == 0
    text = " ".join(result.stdout.split())
    for option in ("--port", "--lesson", "--seed", "curl", "/v1", *lessons.lesson_names()):
        assert option in text, option
    for argument in ("--port", "--lesson", "--seed"):
        assert re.search(rf"{argument} \w+ +\S", result.stdout), f"{argument} has no help"


@pytest.mark.parametrize("name", ["bad_no_assistant_message.py", "bad_assistant_text_only.py"])
@pytest.mark.parametrize("lang", ["en", "zh"])
def test_day07s_common_mistake_is_explained_on_its_check(name, lang):
    """Tool results sent with no assistant message carrying their calls before them: the API's 400,
    said in the lesson's terms, and the check on the assistant message shows what was sent."""
    path = ROOT / "tests" / "submissions" / "day07" / name
    tests = json.loads(validate("day07", "--file", str(path), "--format", "gradescope", "--lang", lang).stdout)["tests"]
    by_title = {t["name"]: t for t in tests}
    meant = by_title[f"TODO 4.1 · {lesson_check_title('test_assistant_message_appended', lang)}"]
    assert meant["status"] == "failed" and "model_dump(exclude_none=True)" in meant["output"]
    assert re.search(r"system → user( → assistant)? → tool", meant["output"])
    first = by_title[f"TODO 4.1 · {lesson_check_title('test_one_quote', lang)}"]
    assert "HTTP 400" in first["output"]
    assert ("just before it" if lang == "en" else "紧挨在它前面") in first["output"]


def lesson_check_title(function: str, lang: str) -> str:
    """A day07 check's title, read from its @check above the function."""
    source = (ROOT / "lessons" / "day07" / "checks.py").read_text(encoding="utf-8")
    found = re.search(rf'@check\("[\d.]+", points=\d+, en="([^"]+)",\s*zh="([^"]+)"\)\ndef {function}\(', source)
    return found.group(1 if lang == "en" else 2)


def test_the_readme_starts_a_learner_at_day01():
    """The quick start and "Learning" start at the first lesson; day06 stays the worked example."""
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    quick = readme[readme.index("## Quick start"):readme.index("## Learning")]
    learning = readme[readme.index("## Learning"):readme.index("### Against a real model")]
    first = lessons.lesson_names()[0]
    assert re.search(rf"```sh\n.*python validate\.py {first}\n```", quick)
    assert f"workspace/{first}.py" in quick and "day06" not in quick
    step_one = learning.split("\n1. ", 1)[1].split("\n2. ", 1)[0]
    assert first in step_one and "validate.py next" in step_one
    assert "python validate.py day06" in learning  # the flagship example, kept
