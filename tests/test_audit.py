"""The mutation audit (`validate.py audit`): the mutator on a tiny file (fast), and every lesson's
checks measured against the mutants of its reference solution (slow)."""
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from validator.authoring.audit import THRESHOLD, Mutant, audit, judge, make_mutants, passed, sample
from validator.lessons import lesson_names, load_lesson

ROOT = Path(__file__).resolve().parent.parent
THROWAWAY = ROOT / "tests" / "lessons" / "day99_throwaway"

TINY = '''"""A file with two TODOs."""
LIMIT = 3


def outside(a, b):
    return a < b and a + 1


def first(items, word, max_steps=5):
    """TODO 1.1"""
    # BEGIN SOLUTION
    found = []
    for i in range(max_steps):
        if i < len(items) and items[i]["kind"] == word:
            found.append(items[i]["name"])
        elif i > 2 or not items:
            break
    return found
    # END SOLUTION


def second(text, sep):
    """TODO 1.2"""
    # BEGIN SOLUTION
    try:
        parts = text.split(sep, 1)
    except AttributeError:
        parts = []
    return "-".join(parts) * 2
    # END SOLUTION
'''

# each operator, and a line it must produce (the changed line, stripped)
EXPECTED = {
    "number": "elif i > 3 or not items:",
    "boundary": 'if i <= len(items) and items[i]["kind"] == word:',
    "compare": "if i < len(items) and items[i]['kind'] != word:",
    "range+1": "for i in range(max_steps + 1):",
    "range-1": "for i in range(max_steps - 1):",
    "default": "for i in range(5):",
    "key": "found.append(items[i]['kind'])",
    "and_or": "if i < len(items) or items[i]['kind'] == word:",  # the changed node as ast.unparse writes it
    "negate": "if not (i < len(items) and items[i]['kind'] == word):",
    "return": "return items",
    "break": "continue",
    "drop": "pass",
    "swap": "parts = text.split(1, sep)",
    "arith": "return '-'.join(parts) / 2",
    "no_try": "parts = text.split(sep, 1)",
}


@pytest.fixture
def lesson():
    return load_lesson(str(THROWAWAY))


def added(mutant: Mutant) -> list[str]:
    return [line[1:].strip() for line in mutant.diff if line.startswith("+")]


def test_each_operator_makes_its_change(lesson):
    mutants = make_mutants(TINY, lesson)
    for operator, line in EXPECTED.items():
        assert any(line in added(m) for m in mutants if m.operator == operator), (operator, line)
    no_try = next(m for m in mutants if m.operator == "no_try")
    assert "    parts = text.split(sep, 1)\n    return" in no_try.source  # the body kept, at the try's indentation
    assert "except" not in no_try.source.split("def second")[1]


def test_only_todo_code_is_changed_and_each_mutant_is_one_valid_change(lesson):
    mutants = make_mutants(TINY, lesson)
    outside = TINY.split("def first")[0]
    assert mutants and all(m.source.startswith(outside) for m in mutants)
    assert len({m.source for m in mutants}) == len(mutants)
    for mutant in mutants:
        compile(mutant.source, "mutant.py", "exec")
        assert mutant.todo == ("1.1" if mutant.line < TINY.splitlines().index("def second(text, sep):") else "1.2")
        assert mutant.id.startswith(f"{mutant.operator}:{mutant.todo}:")


def test_ids_are_stable_when_the_rest_of_the_file_changes(lesson):
    ids = [m.id for m in make_mutants(TINY, lesson)]
    assert ids == [m.id for m in make_mutants(TINY, lesson)]
    moved = TINY.replace('LIMIT = 3\n', 'LIMIT = 3\n# a comment, and a line more\nOTHER = 4\n')
    assert [m.id for m in make_mutants(moved, lesson)] == ids
    assert len(set(ids)) == len(ids)


def test_sampling_is_deterministic_balanced_and_keeps_the_listed(lesson):
    mutants = make_mutants(TINY, lesson)
    listed = {mutants[-1].id: "a reason"}
    chosen = sample(mutants, listed, 6)
    assert chosen == sample(mutants, listed, 6)
    assert len(chosen) == 7 and mutants[-1] in chosen
    assert sorted(m.todo for m in chosen if m.id not in listed) == ["1.1"] * 3 + ["1.2"] * 3
    assert [mutants.index(m) for m in chosen] == sorted(mutants.index(m) for m in chosen)  # file order


def test_a_mutant_is_killed_only_by_points_lost_on_its_own_todo():
    mutant = Mutant("drop:1.2:00000000", "drop", "1.2", 1, "", [])
    record = {"status": "graded", "todos": {"1.1": [2, 2], "1.2": [1, 3]}}
    assert judge(mutant, record, "").status == "killed" and judge(mutant, record, "").lost == (2, 3)
    elsewhere = judge(mutant, {"status": "graded", "todos": {"1.1": [1, 2], "1.2": [3, 3]}}, "")
    assert elsewhere.status == "elsewhere" and elsewhere.others == ["1.1"]
    assert judge(mutant, {"status": "graded", "todos": {"1.1": [2, 2], "1.2": [3, 3]}}, "").status == "survived"
    assert judge(mutant, {"status": "grader failed", "todos": {}}, "").status == "error"


@pytest.mark.slow
def test_audit_reports_equivalents_stale_ids_and_survivors(tmp_path):
    """The whole command on the throwaway lesson: its checks never try an unknown type, so
    `negate` of the final test survives unless listed; a listed id that names no mutant is stale."""
    folder = tmp_path / "day99_throwaway"
    shutil.copytree(THROWAWAY, folder)
    lesson = load_lesson(str(folder))
    mutants = make_mutants(lesson.solution.read_text(encoding="utf-8"), lesson)
    first = audit(lesson, jobs=2)
    survivors = [o.mutant.id for o in first.outcomes if o.status == "survived"]
    assert survivors, "the throwaway lesson's few checks let some mutant through"
    with (folder / "lesson.yaml").open("a", encoding="utf-8") as yaml:
        yaml.write(f"equivalent_mutants:\n  {survivors[0]}: listed for the test\n  drop:9.9:deadbeef: gone\n")
    done = subprocess.run([sys.executable, "validate.py", "audit", str(folder)], cwd=ROOT, capture_output=True,
                          text=True)
    assert done.returncode == 1, done.stderr
    assert f"equivalent: {survivors[0]}: listed for the test" in done.stdout
    assert "stale: equivalent_mutants lists drop:9.9:deadbeef" in done.stdout
    assert f"{len(mutants)} mutants of the TODO code" in done.stdout
    for other in survivors[1:]:
        assert f"survived: {other}, TODO" in done.stdout
    assert f"{first.killed}/{len(first.counted) - 1} killed on their own TODO" in done.stdout


@pytest.mark.slow
@pytest.mark.parametrize("name", lesson_names())
def test_every_lesson_kills_its_mutants(name):
    result = audit(load_lesson(name), jobs=2)
    survivors = [f"{o.mutant.id} ({o.status})" for o in result.counted if o.status != "killed"]
    assert result.score >= THRESHOLD, f"{name}: {result.score:.1f} % < {THRESHOLD} %, not killed: {survivors}"
    assert passed(result), f"{name}: stale or wrongly listed equivalents: {result.stale}"
