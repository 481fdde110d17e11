"""The lesson contract: a lesson is a folder plus its YAML, graded without any edit to the core.

tests/lessons/day99_throwaway is such a lesson, with its own tool, its own data and the
JSON-decision protocol. It is copied to a temporary folder, its exercise file is made from its
solution, and both are graded with `python validate.py <folder>`, as a user would.
"""
import json
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from mock_llm.registry import PROTOCOLS
from validator import cli
from validator.authoring import corpus, course, rules
from validator.authoring.templates import make_template
from validator.isolation import jail
from validator.lessons import LANGS, LessonError, load_lesson

ROOT = Path(__file__).resolve().parent.parent
THROWAWAY = ROOT / "tests" / "lessons" / "day99_throwaway"


@pytest.fixture
def lesson_folder(tmp_path):
    folder = tmp_path / "day99_throwaway"
    shutil.copytree(THROWAWAY, folder)
    lesson = load_lesson(str(folder))
    lesson.exercise.write_text(make_template(lesson.solution.read_text(encoding="utf-8"), lesson),
                               encoding="utf-8")
    return folder


def grade(*args) -> tuple[int, dict]:
    done = subprocess.run([sys.executable, "validate.py", *args, "--format", "gradescope"], cwd=ROOT,
                          capture_output=True, text=True)
    assert done.returncode in (0, 1), done.stderr
    return done.returncode, json.loads(done.stdout)


@pytest.mark.parametrize("seed", ["0", "5"])
def test_a_lesson_from_any_folder_grades_its_solution_in_full(lesson_folder, seed):
    status, report = grade(str(lesson_folder), "--solution", "--seed", seed)
    assert (status, report["score"], report["max_score"]) == (0, 3, 3), report


def test_and_its_template_scores_nothing(lesson_folder):
    status, report = grade(str(lesson_folder))
    assert (status, report["score"]) == (1, 0)
    assert all("not implemented yet (TODO 1." in test["output"] for test in report["tests"])


def test_an_unknown_protocol_is_an_error_when_the_lesson_loads(lesson_folder):
    scenarios = lesson_folder / "scenarios.yaml"
    scenarios.write_text(scenarios.read_text(encoding="utf-8").replace("decisions", "decision"),
                         encoding="utf-8")
    with pytest.raises(LessonError, match="unknown protocol 'decision'.*known: chat, decisions"):
        load_lesson(str(lesson_folder))
    done = subprocess.run([sys.executable, "validate.py", str(lesson_folder)], cwd=ROOT,
                          capture_output=True, text=True)
    assert done.returncode == 2 and "unknown protocol" in done.stderr and "Traceback" not in done.stderr



def test_a_key_written_twice_in_lesson_yaml_is_an_error_that_names_it(lesson_folder):
    """YAML keeps the last of two equal keys: a second message of the same name replaced the first
    without a word (day11 showed one learner the other's text). The lesson refuses to load."""
    data = lesson_folder / "lesson.yaml"
    text = data.read_text(encoding="utf-8")
    first = re.search(r"(?m)^messages:\n((  \w+:\n(?:    .*\n)+))", text).group(2)
    data.write_text(text.replace(first, first + first, 1), encoding="utf-8")
    name = first.split(":")[0].strip()
    with pytest.raises(LessonError, match=f"(?s)not valid YAML.*the key '{name}' is written twice"):
        load_lesson(str(lesson_folder))

def test_a_data_file_the_lesson_names_must_be_in_its_folder(lesson_folder):
    (lesson_folder / "lesson.yaml").write_text((lesson_folder / "lesson.yaml").read_text(encoding="utf-8")
                                               + "files: [rates.yaml]\n", encoding="utf-8")
    with pytest.raises(LessonError, match="`files` names rates.yaml, which is not in"):
        load_lesson(str(lesson_folder))
    (lesson_folder / "rates.yaml").write_text("rate: 2\n", encoding="utf-8")
    assert load_lesson(str(lesson_folder)).files == [lesson_folder / "rates.yaml"]


def test_checks_that_build_an_undeclared_learner_type_say_so(lesson_folder):
    checks = lesson_folder / "checks.py"
    checks.write_text(checks.read_text(encoding="utf-8").replace(
        'registry_arg(["km_to_miles"]), "km_to_miles"',
        'learner_object("Tool", "x"), "km_to_miles"').replace(
        "import check,", "import learner_object, check,"), encoding="utf-8")
    status, report = grade(str(lesson_folder), "--solution")
    first = report["tests"][0]
    assert first["status"] == "failed" and "types:" in first["output"]


def test_a_plain_assert_in_a_check_is_the_learners_failure_with_its_message(lesson_folder):
    """Checks can read like any pytest test: `assert cond, "message"` fails the check, on its TODO,
    with the message (or, with none, the assert's line); an assert elsewhere stays the grader's."""
    checks = lesson_folder / "checks.py"
    checks.write_text(checks.read_text(encoding="utf-8").replace(
        '    expect(got == expected, "wrong_result", expected=expected, got=got)',
        '    assert got == "no such distance", f"run_tool gave {got!r}, not the distance asked for"').replace(
        '    expect(len(run.exchanges) == 2, "wrong_result", expected="2 model calls", got=len(run.exchanges))',
        '    assert len(run.exchanges) == 99'), encoding="utf-8")
    status, report = grade(str(lesson_folder), "--solution")
    first, second = report["tests"]
    assert (status, report["score"], first["status"], second["status"]) == (1, 0, "failed", "failed")
    assert "run_tool gave " in first["output"] and "not the distance asked for" in first["output"]
    assert "this check's condition did not hold: assert len(run.exchanges) == 99" in second["output"]
    assert "reactlings bug" not in first["output"] + second["output"]


def test_a_check_that_asks_for_another_fixture_fails_as_the_lessons_error(lesson_folder):
    """The grader calls each check with `learner` and `world` itself: a check that asks for more
    (pytest's tmp_path) fails on its own, as the lesson's mistake, and check-lesson names it."""
    checks = lesson_folder / "checks.py"
    text = checks.read_text(encoding="utf-8")
    first = re.search(r"def (test_\w+)\(learner, world\)", text).group(1)
    checks.write_text(text.replace(f"def {first}(learner, world)", f"def {first}(learner, world, tmp_path)", 1),
                      encoding="utf-8")
    status, report = grade(str(lesson_folder), "--solution")
    broken, fine = report["tests"]
    assert (status, broken["status"], fine["status"]) == (1, "failed", "passed")
    assert "the lesson's checks are wrong here, not your code" in broken["output"]
    assert f"{first} asks for learner, world, tmp_path" in broken["output"]
    assert rules.checks_signature_rule(load_lesson(str(lesson_folder))).detail == f"{first} asks for tmp_path"

def test_checks_that_cannot_run_are_one_clear_error_for_a_file_and_for_a_class(lesson_folder, tmp_path):
    (lesson_folder / "checks.py").write_text("def broken(:\n", encoding="utf-8")
    subs = tmp_path / "subs"
    subs.mkdir()
    shutil.copy(lesson_folder / "solution.py", subs / "ann.py")
    unjailed = ["--allow-unisolated"] if jail.unavailable_reason() else []  # the jail is not what is tried here
    for command in (["--solution"], ["grade", str(subs), "--out", str(tmp_path / "grades"), *unjailed]):
        argv = [*command[:1], str(lesson_folder), *command[1:]] if command[0] == "grade" else [str(lesson_folder), *command]
        done = subprocess.run([sys.executable, "validate.py", *argv], cwd=ROOT, capture_output=True, text=True,
                              timeout=120)
        assert done.returncode == 2 and "could not run" in done.stderr, done.stdout + done.stderr
        assert "Traceback" not in done.stdout + done.stderr
    assert not (tmp_path / "grades" / "students" / "ann").exists()  # no grade made up for ann


LESSON_CHECKS = sorted((ROOT / "lessons").glob("*/checks.py")) + [THROWAWAY / "checks.py"]


@pytest.mark.parametrize("path", LESSON_CHECKS, ids=lambda p: p.parent.name)
def test_checks_import_only_the_authoring_api(path):
    """Checks see the kit through validator.checking alone, so the core can change under them."""
    assert not rules.checks_import_problems(path)


LESSON_DIRS = course.kit_lessons()


@pytest.mark.parametrize("lang", LANGS)
@pytest.mark.parametrize("folder", LESSON_DIRS, ids=lambda p: p.name)
def test_each_lesson_text_links_to_the_one_before_and_after(folder, lang):
    problems = course.navigation_problems(folder, lang)
    assert not problems, f"{problems} (run `{course.FIX}`)"


def test_the_root_readmes_course_table_is_the_lessons_own():
    problems = course.table_problems()
    assert not problems, f"{problems} (run `{course.FIX}`)"


def test_an_import_of_the_core_in_checks_is_named_with_its_line(tmp_path):
    checks = tmp_path / "checks.py"
    checks.write_text("from validator.checking import check\nfrom validator.grading.runner import Outcome\nimport mock_llm.chat\n",
                      encoding="utf-8")
    assert rules.checks_import_problems(checks) == ["checks.py:2 imports validator.grading.runner",
                                                    "checks.py:3 imports mock_llm.chat"]


# ---------------------------------------------------------------- validate.py new, check-lesson

def authoring(*args) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "validate.py", *args], cwd=ROOT, capture_output=True, text=True,
                          timeout=300)


def verdicts(output: str) -> dict[str, str]:
    """check-lesson's lines: rule -> pass, FAIL or skip."""
    return {line[8:].split(":")[0]: line[2:6].strip() for line in output.splitlines()
            if line[2:6].strip() in ("pass", "FAIL", "skip")}


@pytest.mark.parametrize("protocol", sorted(PROTOCOLS))
def test_a_new_lesson_grades_at_once_and_passes_check_lesson(tmp_path, protocol):
    folder = tmp_path / "lessons" / "day13"
    made = authoring("new", str(folder), "--protocol", protocol)
    assert made.returncode == 0, made.stderr
    assert {p.name for p in folder.iterdir()} == {"lesson.yaml", "scenarios.yaml", "tools.py", "checks.py",
                                                  "README.md", "README.zh.md", "solution.py", "day13.py"}
    for seed in ("0", "7"):
        status, report = grade(str(folder), "--solution", "--seed", seed)
        assert (status, report["score"]) == (0, report["max_score"]) and report["max_score"] > 0, report
    status, report = grade(str(folder), "--file", str(folder / "day13.py"))
    assert (status, report["score"]) == (1, 0)
    checked = authoring("check-lesson", str(folder))
    assert checked.returncode == 0, checked.stdout + checked.stderr
    found = verdicts(checked.stdout)
    assert set(found.values()) == {"pass", "skip"} and len(found) == len(rules.RULES) + 1, checked.stdout
    assert {rule for rule, status in found.items() if status == "skip"} == {
        "the root README's course table", "corpus minimum", "audit"}  # outside the kit, no corpus, not asked


@pytest.mark.slow
@pytest.mark.parametrize("protocol", sorted(PROTOCOLS))
def test_a_new_lessons_checks_kill_the_mutants_of_its_solution(tmp_path, protocol):
    folder = tmp_path / "day13"
    assert authoring("new", str(folder), "--protocol", protocol).returncode == 0
    checked = authoring("check-lesson", str(folder), "--audit")
    assert verdicts(checked.stdout)["audit"] == "pass", checked.stdout + checked.stderr  # ≥ audit.THRESHOLD


def test_new_refuses_an_existing_folder_an_unknown_protocol_and_a_bad_name(tmp_path):
    folder = tmp_path / "day13"
    folder.mkdir()
    (folder / "notes.md").write_text("mine", encoding="utf-8")
    for argv, says in ((["new", str(folder), "--protocol", "chat"], "exists already"),
                       (["new", str(tmp_path / "day14"), "--protocol", "decision"],
                        "unknown protocol 'decision' (known: chat, decisions, json, text, text_chat)"),
                       (["new", str(tmp_path / "Lesson 14"), "--protocol", "chat"], "is not a lesson name")):
        done = authoring(*argv)
        assert done.returncode == 2 and says in done.stderr and "Traceback" not in done.stderr, done.stderr
    assert [p.name for p in tmp_path.iterdir()] == ["day13"] and [p.name for p in folder.iterdir()] == ["notes.md"]


def test_new_lessons_link_to_each_other_and_check_lesson_says_what_to_fix(tmp_path):
    first, second = tmp_path / "day13", tmp_path / "day14"
    for folder in (first, second):
        assert authoring("new", str(folder), "--protocol", "decisions").returncode == 0
    assert "[day14](../day14/README.zh.md) →" in (first / "README.zh.md").read_text(encoding="utf-8")
    readme = second / "README.md"
    readme.write_text(readme.read_text(encoding="utf-8").replace("TODO 1.1", "the TODO"), encoding="utf-8")
    solution = second / "solution.py"
    solution.write_text(solution.read_text(encoding="utf-8").replace("to watch your agent", "to watch it"), encoding="utf-8")
    checked = authoring("check-lesson", str(second))
    assert checked.returncode == 1
    assert verdicts(checked.stdout)["READMEs name each TODO with its function"] == "FAIL"
    assert "day14/README.md never mentions TODO 1.1 agent" in checked.stdout
    assert verdicts(checked.stdout)["exercise file is made from the solution"] == "FAIL"
    assert f"fix: {course.FIX}" in checked.stdout
    fixed = authoring("check-lesson", str(second), "--fix")
    assert "wrote" in fixed.stdout and verdicts(fixed.stdout)["exercise file is made from the solution"] == "pass"


@pytest.mark.parametrize("name", [command.name for command in cli.authors.COMMANDS])
def test_the_authors_commands_are_in_the_help_with_every_argument_explained(name):
    assert [a.dest for a in cli.command_parser(name)._actions if not a.help] == []
    assert re.search(rf"^\s+python validate\.py {name}\b", authoring("--help").stdout, re.M)
    assert f"usage: validate.py {name}" in authoring(name, "--help").stdout


def test_new_in_the_kits_lessons_puts_the_solution_in_solutions_and_regenerates_the_course(tmp_path, monkeypatch):
    """The kit's own layout, in a temporary copy: lessons/, solutions/, the root README's table."""
    from validator import lessons
    from validator.authoring import scaffold
    kit = tmp_path / "kit"
    for module, name, path in ((scaffold, "LESSONS_DIR", kit / "lessons"), (course, "LESSONS_DIR", kit / "lessons"),
                               (scaffold, "SOLUTIONS_DIR", kit / "solutions"),
                               (lessons, "SOLUTIONS_DIR", kit / "solutions"), (course, "ROOT", kit)):
        monkeypatch.setattr(module, name, path)
    (kit / "solutions").mkdir(parents=True)
    (kit / "README.md").write_text(f"# course\n\n{course.TABLE_HEAD}\nmore\n", encoding="utf-8")
    scaffold.new_lesson("day13", "decisions")
    scaffold.new_lesson("day14", "text")
    assert sorted(p.name for p in (kit / "solutions").iterdir()) == ["day13.py", "day14.py"]
    first = load_lesson(str(kit / "lessons" / "day13"))
    assert first.solution == kit / "solutions" / "day13.py" and first.exercise.is_file()
    assert "[day14](../day14/README.md) →" in (kit / "lessons" / "day13" / "README.md").read_text(encoding="utf-8")
    readme = (kit / "README.md").read_text(encoding="utf-8")
    assert "| day13 | the agent loop, one tool | decisions | not measured |\n| day14 |" in readme
    assert readme.endswith("| not measured |\n\nmore\n") and not course.table_problems()
    corpus = rules.corpus_rule(first)  # a lesson of the kit sets its corpus minimum: new does not
    assert corpus.status == "FAIL" and "sets no `corpus:" in corpus.detail and "good_*.py" in corpus.fix


@pytest.mark.parametrize("name, header, says", [
    ("good_a.py", "# expect: full\n", []),
    ("good_b.py", "# expect-lose: 1.1\n", ["a good_ file declares `# expect: full`, and no `# expect-lose:`"]),
    ("bad_a.py", "# expect-lose: 1.1\n# why: it never loops\n", []),
    ("bad_b.py", "# expect-lose: 1.1 9.9\n", ["a bad_ file says why in one sentence: `# why: ...`",
                                             "expect-lose names TODOs the lesson does not have: ['9.9']"]),
    ("bad_c.py", "# expect: full\n# why: x\n", ["a bad_ file declares the TODOs it loses, `# expect-lose: 4.1`, "
                                               "not `# expect:`"]),
])
def test_a_corpus_file_declares_what_it_expects(tmp_path, name, header, says):
    path = tmp_path / name
    path.write_text(header + "def agent(question, tools):\n    return ''\n", encoding="utf-8")
    assert corpus.declaration_problems(path, ["1.1"]) == says


@pytest.mark.slow
@pytest.mark.parametrize("folder", LESSON_DIRS, ids=lambda p: p.name)
def test_each_lesson_passes_check_lesson(folder):
    """Every rule, as an author runs them: the solution full at two seeds, the exercise file at 0, …"""
    checked = authoring("check-lesson", folder.name)
    assert checked.returncode == 0 and "FAIL" not in checked.stdout, checked.stdout + checked.stderr


def test_a_navigation_line_kept_by_hand_is_found_and_rewritten(tmp_path):
    for name in ("day13", "day14", "day15"):
        (tmp_path / name).mkdir()
        (tmp_path / name / "lesson.yaml").write_text("title: t\n", encoding="utf-8")
        (tmp_path / name / "README.md").write_text(f"# {name}\n\ntext\n", encoding="utf-8")  # no navigation yet
    middle = tmp_path / "day14"
    assert course.navigation_problems(middle, "en") and course.navigation_problems(middle, "zh")  # zh: missing
    course.fix_course(middle)
    assert not course.navigation_problems(middle, "en")
    assert (middle / "README.md").read_text(encoding="utf-8").endswith(
        "text\n\n<!-- lesson navigation -->\n← [day13](../day13/README.md) · [the course](../../README.md) · "
        "[day15](../day15/README.md) →\n")
    (tmp_path / "day15" / "lesson.yaml").unlink()  # day15 leaves the course: day14 is the last
    assert course.navigation_problems(middle, "en")
    course.fix_course(middle)
    assert (middle / "README.md").read_text(encoding="utf-8").endswith(
        "\n← [day13](../day13/README.md) · [the course](../../README.md)\n")


def test_the_measured_audit_goes_into_lesson_yaml_and_the_course_table(tmp_path):
    from validator.authoring import scaffold
    scaffold.new_lesson(str(tmp_path / "day13"), "json")
    lesson = load_lesson(str(tmp_path / "day13"))
    assert "| not measured |" in course.table_row(lesson.folder)
    assert rules.record_audit(lesson, "3/4")
    assert course.table_row(lesson.folder) == "| day13 | the agent loop, one tool | json | 75.0 % (3/4) |"
    assert "  audit: 3/4   # the mutation audit" in (lesson.folder / "lesson.yaml").read_text(encoding="utf-8")
