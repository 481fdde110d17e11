"""The instructor's overrides.csv over a class's grades, as an instructor writes and re-grades it."""
import csv
import io
import json
import shutil
from pathlib import Path

import pytest
from test_classroom import CORPUS, ROOT, _grade_here, grade_class, rows

from validator.cli import main
from validator.instructor import classroom, workers
from validator.instructor.overrides import FILE, Override, read
from validator.lessons import LessonError, load_lesson

LI = 'Li, "Lei" 李雷'  # a name a CSV must quote, with Chinese: its folder is a hashed one
OUTPUTS = ("results.json", "feedback.txt")


@pytest.fixture(scope="module")
def graded(tmp_path_factory):
    """A class graded once, without overrides: alice full marks, bob loses a point on TODO 2.1."""
    folder = tmp_path_factory.mktemp("overrides")
    subs = folder / "subs"
    (subs / "hank").mkdir(parents=True)  # missing: nothing to override
    for student, source in (("alice", "good_regex"), ("bob", "bad_history_reversed"), (LI, "good_separators")):
        shutil.copy(CORPUS / f"{source}.py", subs / f"{student}.py")
    code, printed = _grade_here(subs, folder / "out")
    assert code == 0, printed
    return subs, folder / "out"


@pytest.fixture
def out(graded, tmp_path):
    """A copy of the graded class's gradebooks, for one test to change."""
    shutil.copytree(graded[1], tmp_path / "out")
    return tmp_path / "out"


def book(out: Path) -> dict[str, dict]:
    return {s["student"]: s for s in json.loads((out / "grades.json").read_text(encoding="utf-8"))["students"]}


def outputs(out: Path, student: str) -> dict[str, bytes]:
    folder = out / "students" / book(out)[student]["folder"]
    return {name: (folder / name).read_bytes() for name in (*OUTPUTS, "record.json")}


def override(out: Path, *args: str, capsys) -> tuple[int, str]:
    code = main(["override", str(out), *args, "--lang", "en"])
    printed = capsys.readouterr()
    return code, printed.out + printed.err


def everything(out: Path) -> dict[str, bytes]:
    return {p.relative_to(out).as_posix(): p.read_bytes() for p in sorted(out.rglob("*")) if p.is_file()}


@pytest.mark.slow
def test_overrides_of_a_todo_and_a_check_show_everywhere_survive_a_regrade_and_go_when_removed(graded, out, capsys):
    subs, _ = graded
    before = {student: outputs(out, student) for student in ("alice", "bob", LI)}
    first = book(out)
    assert (first["bob"]["score"], first["bob"]["todos"]["2.1"]) == (25, [3, 4])
    assert override(out, "bob", "TODO 2.1", "4", "--comment", "in order, only printed reversed", capsys=capsys)[0] == 0
    comment = '-1, "copied" from 韩梅梅'
    assert override(out, LI, "test_parses_an_action", "0", "--comment", comment, capsys=capsys)[0] == 0

    code, printed = _grade_here(subs, out)
    assert code == 0 and printed.splitlines()[-1].startswith("0 graded, 3 unchanged"), printed
    assert "Overrides applied: 2 (overrides.csv)\n" in printed and "not applied" not in printed
    table, now = rows(out), book(out)
    assert (table["bob"]["score"], table["bob"]["TODO 2.1 (/4)"]) == ("26", "4")
    assert "overridden: TODO 2.1 · build the prompt: 4/4 (the autograder gave 3) — in order" in table["bob"]["flags"]
    assert (table[LI]["score"], table[LI]["TODO 3.1 (/6)"]) == ("25", "5") and comment in table[LI]["flags"]
    assert now["bob"]["autograder"] == {"score": 25, "todos": first["bob"]["todos"]}  # nothing lost
    assert now["bob"]["overrides"] == [{"row": 2, "target": "2.1", "todo": "2.1", "points": 4, "max": 4, "was": 3,
                                        "comment": "in order, only printed reversed"}]
    assert "autograder" not in now["alice"] and now["alice"] == first["alice"]
    assert "gradescope" not in now["bob"] and "feedback" not in now["bob"]  # the outputs are the students' files

    results = json.loads(outputs(out, "bob")["results.json"])
    assert results["score"] == 26 and "score after the instructor's changes: 26/26 (the autograder gave 25)" in \
        results["output"]
    assert results["tests"][-1] | {"output": ""} == {
        "name": "TODO 2.1 · the instructor's grade", "number": str(len(results["tests"])), "score": 4, "max_score": 4,
        "status": "passed", "tags": ["TODO 2.1", "build_react_prompt"], "visibility": "visible", "output": ""}
    li = json.loads(outputs(out, LI)["results.json"])
    parse = next(t for t in li["tests"] if t["name"] == "TODO 3.1 · reads Thought, Action and Action Input")
    assert (li["score"], parse["score"], parse["status"]) == (25, 0, "failed") and comment in parse["output"]
    feedback = outputs(out, "bob")["feedback.txt"].decode()
    assert feedback.startswith(before["bob"]["feedback.txt"].decode())  # the autograder's report, then the changes
    assert feedback.endswith("Your instructor changed these grades:\n"
                             "  TODO 2.1 · build the prompt: 4/4 (the autograder gave 3) — in order, only printed reversed\n"
                             "score after the instructor's changes: 26/26 (the autograder gave 25)\n")
    assert outputs(out, "bob")["record.json"] == before["bob"]["record.json"]  # the autograder's own, kept
    page = (out / "summary.html").read_text(encoding="utf-8")
    assert '<td class="n overridden" title="overridden by the instructor; the autograder gave 25">✎ 26/26</td>' in page
    assert page.count("✎") == 2 and "Overrides not applied" not in page

    written = everything(out)
    assert _grade_here(subs, out)[0] == 0 and everything(out) == written  # same inputs, same bytes

    assert override(out, "bob", "2.1", "--remove", capsys=capsys)[0] == 0
    assert _grade_here(subs, out)[1].splitlines()[-1].startswith("0 graded, 3 unchanged")
    assert outputs(out, "bob") == before["bob"] and book(out)["bob"] == first["bob"]  # the autograder's back
    assert outputs(out, "alice") == before["alice"] and book(out)[LI]["score"] == 25  # the others stay as they were


@pytest.mark.slow
def test_a_run_stopped_by_ctrl_c_applies_the_overrides_when_resumed(graded, tmp_path, monkeypatch):
    subs, _ = graded
    out = tmp_path / "out"
    out.mkdir()
    (out / FILE).write_text("student,target,points,comment\nbob,TODO 2.1,4,ok\nalice,test_runs_the_tool,0,no\n",
                            encoding="utf-8")
    graded_ = workers.Workers.graded

    def one_then_ctrl_c(self):  # the first student saved, then Ctrl-C
        for done in graded_(self):
            yield done
            raise KeyboardInterrupt

    monkeypatch.setattr(workers.Workers, "graded", one_then_ctrl_c)
    code, printed = _grade_here(subs, out)
    assert code == 130 and "1 graded and saved, 2 left" in printed, printed
    assert not (out / "grades.csv").exists()
    records = [json.loads(p.read_text(encoding="utf-8")) for p in out.glob("students/*/record.json")]
    saved = sum(r["key"] is not None for r in records)  # the other worker may have saved its student too,
    # or, stopped mid-grading, a grader failure, which has no key: graded again
    monkeypatch.setattr(workers.Workers, "graded", graded_)
    code, printed = _grade_here(subs, out)
    assert code == 0 and printed.splitlines()[-1].startswith(f"{3 - saved} graded, {saved} unchanged"), printed
    table = rows(out)
    assert (table["bob"]["score"], table["alice"]["score"], table["alice"]["TODO 1.3 (/4)"]) == ("26", "25", "3")
    for student in ("alice", "bob"):
        assert json.loads(outputs(out, student)["results.json"])["score"] == int(table[student]["score"])
        assert json.loads(outputs(out, student)["record.json"])["score"] == book(out)[student]["autograder"]["score"]


@pytest.mark.slow
def test_an_override_that_no_longer_matches_is_said_and_kept_not_applied(graded, out, tmp_path):
    """The lesson changed: a check renamed. Its override, and those of a student not in the class
    or one with nothing graded, are applied to no one, named on the terminal and the page, and
    stay in overrides.csv; the others apply."""
    subs, _ = graded
    lesson = tmp_path / "day06"
    shutil.copytree(ROOT / "lessons" / "day06", lesson)
    checks = lesson / "checks.py"
    checks.write_text(checks.read_text(encoding="utf-8").replace("def test_parses_an_action(", "def test_reads_an_action("),
                      encoding="utf-8")
    text = ("student,target,points,comment\n"
            "bob,test_parses_an_action,0,renamed since\nzoe,TODO 2.1,3,not in the class\nhank,TODO 2.1,1,\n"
            "bob,TODO 2.1,4,\nalice,TODO 9.9,1,\n")
    (out / FILE).write_text(text, encoding="utf-8")
    printed = io.StringIO()
    from rich.console import Console
    code = classroom.grade_class(load_lesson(str(lesson)), subs, out, 0, 2, "en",
                                 Console(file=printed, highlight=False, soft_wrap=True))
    said = printed.getvalue()
    assert code == 0, said
    unmatched = ["row 2: bob · test_parses_an_action: day06 has no TODO or check test_parses_an_action "
                 "(did the lesson change?)",
                 "row 3: zoe · TODO 2.1: no student zoe in this class",
                 "row 4: hank · TODO 2.1: nothing of theirs was graded (missing)",
                 "row 6: alice · TODO 9.9: day06 has no TODO or check 9.9 (did the lesson change?)"]
    assert "Overrides applied: 1 (overrides.csv)\nOverrides not applied (4), kept in overrides.csv:\n" + "".join(f"  {line}\n" for line in unmatched) in said
    page = (out / "summary.html").read_text(encoding="utf-8")
    assert all(f"<li>{line}</li>" in page for line in unmatched)
    assert (out / FILE).read_text(encoding="utf-8") == text  # the instructor's file: never written by grading
    assert rows(out)["bob"]["score"] == "26" and rows(out)["alice"]["score"] == "26"


@pytest.mark.parametrize("text, said", [
    (b"student,target,points\nJos\xe9,TODO 2.1,3\n", "line 2 is not UTF-8 text"),  # Excel's plain CSV, cp1252
    (b'student,target,points,comment\nbob,TODO 2.1,3,"never closed\n', "row 2 is not valid CSV"),
    (b'student,target,points,comment\nbob,TODO 2.1,3,"closed" then not\n', "row 2 is not valid CSV"),
    (b"student,target,points,score\n", "the header names a column 'score'"),
    (b"student,target,comment\n", "the header has no points column"),
    (b"Student,Target,Points,Points\n", "the header names the column points twice"),
    (b"student,target,points\nbob,TODO 2.1,three\n", "row 2: points 'three' is not a number"),
    (b"student,target,points\nbob,TODO 2.1,-1\n", "row 2: points '-1' is not a number"),
    (b"student,target,points\n,,\nbob,TODO 2.1,1,oops\n", "row 3 has text in column D"),
    (b"student,target,points\nbob,TODO 2.1,1\n,TODO 1.2,1\n", "row 3 has no student"),
])
def test_a_file_that_is_no_overrides_is_an_error_naming_its_row(tmp_path, text, said):
    (tmp_path / FILE).write_bytes(text)
    with pytest.raises(LessonError, match=said):
        read(tmp_path)


@pytest.mark.parametrize("lang, said", [("en", "row 2: points 'three' is not a number of points, 0 or more"),
                                         ("zh", "第 2 行：分数 'three' 不是一个大于等于 0 的分数：请写成 3 或 2.5 这样")])
def test_grade_says_a_broken_file_before_grading_anyone(tmp_path, lang, said):
    subs, out = tmp_path / "subs", tmp_path / "out"
    subs.mkdir()
    shutil.copy(CORPUS / "good_regex.py", subs / "alice.py")
    out.mkdir()
    (out / FILE).write_bytes(b"student,target,points\nbob,TODO 2.1,three\n")
    done = grade_class(subs, out, "--lang", lang)
    assert done.returncode == 2 and said in done.stderr and "Traceback" not in done.stderr, done.stderr
    assert sorted(p.name for p in out.iterdir()) == [FILE]  # nothing graded, nothing written


def test_a_spreadsheets_csv_is_read_as_it_was_meant(tmp_path):
    """Saved by Excel or LibreOffice: a BOM, CRLF, `;` between cells where the decimal mark is a
    comma, a quoted comment over two lines, a name marked as text with an apostrophe, a name in
    the other Unicode normalisation, blank rows, the columns in another order and case."""
    table = io.StringIO()
    csv.writer(table, delimiter=";", lineterminator="\r\n").writerows([
        ["Points", "Student", "target", "Comment", ""], ["2,5", "bob", "TODO 2.1", 'good "enough";\nmostly', ""],
        ["", "", "", "", ""], ["1", "'=HYPERLINK(x)", "test_runs_the_tool", "", ""], ["3", "Jose\u0301", "2.1", "", ""]])
    (tmp_path / FILE).write_bytes("\ufeff".encode() + table.getvalue().encode("utf-8"))
    assert read(tmp_path) == [Override(2, "bob", "2.1", 2.5, 'good "enough"; mostly'),
                              Override(4, "=HYPERLINK(x)", "test_runs_the_tool", 1, ""),
                              Override(5, "Jose\u0301", "2.1", 3, "")]
    from validator.instructor.overrides import Class
    students = Class([{"student": "José", "folder": "José"}, {"student": "=HYPERLINK(x)", "folder": "h~1"}])
    assert students.find("Jose\u0301")["student"] == "José" and students.find("h~1")["folder"] == "h~1"


def test_a_clash_of_names_leaves_each_override_with_the_name_handed_in_or_no_one(tmp_path):
    """Names as find_submissions gives them: alice.py beside Alice.py keeps "alice"; bob.py beside a
    folder bob/ are both "bob" as handed in, so "bob" is no one's (and the folder is "bob/")."""
    from validator.instructor.overrides import Class
    from validator.instructor.submissions import find_submissions
    subs = tmp_path / "subs"
    (subs / "bob").mkdir(parents=True)
    for name in ("alice.py", "Alice.py", "bob.py", "bob/day06.py"):
        shutil.copy(CORPUS / "good_regex.py", subs / name)
    entries, _ = find_submissions(subs, load_lesson("day06"), tmp_path / "staging", tmp_path / "out", "en")
    students = Class([entry.names() for entry in entries])
    assert sorted(entry.student for entry in entries) == ["Alice.py", "alice.py", "bob.py", "bob/"]
    assert students.find("alice")["file"] == "alice.py" and students.find("Alice")["file"] == "Alice.py"
    assert students.find("bob") is None and students.find("bob/")["file"] == "bob/day06.py"
    assert students.find("bob.py")["file"] == "bob.py"


@pytest.mark.slow
def test_a_student_named_after_a_classmates_folder_never_takes_their_override():
    """A folder is a student's own ("Li Lei.py" -> Li_Lei.py~<hash>): a file handed in under that
    folder's name is another student, who gets none of the overrides written for the folder, and
    whose own name (that folder) finds no one: which of the two was meant can't be known. Each is
    found, and written, by what names them alone."""
    from validator.instructor.overrides import Class
    from validator.instructor.submissions import folder_names
    folders = folder_names({"Li Lei.py": "Li Lei"})
    victim = {"student": "Li Lei", "folder": folders["Li Lei.py"]}
    taken = f"{victim['folder']}.py"
    attacker = {"student": victim["folder"], "folder": folder_names({"Li Lei.py": "Li Lei", taken: victim["folder"]})[taken]}
    assert attacker["folder"] != victim["folder"]
    for records in ([victim, attacker], [attacker, victim]):
        students = Class(records)
        assert students.find(victim["folder"]) is None and students.all_named(victim["folder"]) == [victim, attacker]
        assert students.find("Li Lei") is victim and students.find(attacker["folder"]) is attacker
        assert (students.written_as(victim), students.written_as(attacker)) == ("Li Lei", attacker["folder"])


def test_points_out_of_range_or_twice_are_errors_and_nothing_graded_is_lost(graded, out):
    subs, _ = graded
    before = everything(out)
    for text, said in (("bob,TODO 2.1,5,\n", "row 2: 5 points for TODO 2.1, which is worth 0 to 4"),
                       ("bob,test_runs_the_tool,2,\n", "row 2: 2 points for TODO 1.3 · runs the tool and returns its "
                                                       "output, which is worth 0 to 1"),
                       ("bob,2.1,1,\nbob,TODO 2.1,2,\n", "row 3 overrides bob's TODO 2.1 again \\(row 2 did\\)")):
        (out / FILE).write_text("student,target,points,comment\n" + text, encoding="utf-8")
        with pytest.raises(LessonError, match=said):
            _grade_here(subs, out)
        assert everything(out) == {**before, FILE: (out / FILE).read_bytes()}  # no gradebook half-written
    (out / FILE).write_text("student,target,points,comment\nbob,TODO 2.1,4,\n", encoding="utf-8")
    code, printed = _grade_here(subs, out)
    assert code == 0 and printed.splitlines()[-1].startswith("0 graded, 3 unchanged") and rows(out)["bob"]["score"] == "26"


def test_the_override_command_checks_what_it_saves_and_keeps_every_other_row(tmp_path, capsys):
    out = tmp_path / "out"
    out.mkdir()
    assert override(out, "bob", "2.1", "3", capsys=capsys) == (2, f"error: {out} holds no grades.json: grade the class "
                                                                  f"into it first (validate.py grade LESSON SUBMISSIONS "
                                                                  f"--out {out})\n")
    checks = [{"name": "test_runs_the_tool", "todo": "1.3", "points": 1, "passed": True, "title": "runs the tool"}]
    students = [{"student": "bob", "folder": "bob", "status": "graded", "todos": {"1.3": [4, 4], "2.1": [3, 4]},
                 "checks": checks},
                {"student": LI, "folder": "Li~0a1b", "status": "graded", "todos": {"1.3": [4, 4], "2.1": [4, 4]},
                 "checks": checks},
                {"student": "hank", "folder": "hank", "status": "missing", "todos": None}]
    (out / "grades.json").write_text(json.dumps({"lesson": "day06", "todos": {"1.3": 4, "2.1": 4}, "students": students}),
                                     encoding="utf-8")
    hand = '\ufeffstudent;target;points;comment\r\n"zoe";TODO 1.3;1;kept as it is\r\n;;;\r\nbob;2.1;1;was one\r\n'
    (out / FILE).write_bytes(hand.encode())
    assert override(out, "bob", "2.1", "4", "--comment", "=fine", capsys=capsys)[0] == 0
    assert override(out, LI, "test_runs_the_tool", "0,5", "--comment", '说"不"', capsys=capsys)[0] == 0
    assert (out / FILE).read_bytes().decode() == (
        '\ufeffstudent;target;points;comment\r\nzoe;TODO 1.3;1;kept as it is\r\n;;;\r\nbob;TODO 2.1;4;\'=fine\r\n'
        '"Li, ""Lei"" 李雷";"test_runs_the_tool";"0.5";"说""不"""\r\n')  # the new row's cells quoted
    assert read(out)[1:] == [Override(4, "bob", "2.1", 4, "=fine"), Override(5, LI, "test_runs_the_tool", 0.5, '说"不"')]
    for args, said in ((("zed", "2.1", "1"), "not saved: no student zed in this class"),
                       (("hank", "2.1", "1"), "not saved: nothing of theirs was graded (missing)"),
                       (("bob", "9.9", "1"), "not saved: day06 has no TODO or check 9.9"),
                       (("bob", "2.1", "5"), "POINTS '5' won't do for TODO 2.1: give a number from 0 to 4"),
                       (("bob", "2.1"), "POINTS '' won't do for TODO 2.1"),
                       (("bob", "1.3", "--remove"), "has no override of bob's TODO 1.3 to remove")):
        saved = (out / FILE).read_bytes()
        code, printed = override(out, *args, capsys=capsys)
        assert code == 2 and said in printed and (out / FILE).read_bytes() == saved
    assert override(out, "bob", "TODO 2.1", "--remove", capsys=capsys)[0] == 0
    assert [o.student for o in read(out)] == ["zoe", LI]
    (out / FILE).write_bytes(b"student,target,points\nbob,2.1,x\n")  # a broken file is not written over
    assert override(out, LI, "2.1", "1", capsys=capsys)[0] == 2 and (out / FILE).read_bytes().endswith(b"x\n")


def test_a_todos_override_decides_its_points_over_its_checks_and_decimals_add_up():
    from validator.instructor.overrides import Target, overridden
    lesson = load_lesson("day06")
    checks = [{"name": f"test_{n}", "todo": "2.1", "points": 1, "passed": n == "a", "title": n} for n in ("a", "b")]
    tests = [{"name": f"TODO 2.1 · {n}", "score": int(n == "a"), "max_score": 1, "status": "", "output": ""}
             for n in ("a", "b")]
    record = {"student": "bob", "folder": "bob", "score": 20, "max": 25, "todos": {"2.1": [1, 4], "3.1": [6, 6]},
              "checks": checks, "notes": [], "gradescope": {"score": 20, "output": "day06: 20/25", "tests": tests},
              "feedback": "report\n"}
    half = (Override(2, "bob", "test_b", 0.5, ""), Target("2.1", 1, 1, 0, "TODO 2.1 · b"))
    point_one = (Override(3, "bob", "test_a", 0.1, ""), Target("2.1", 0, 1, 1, "TODO 2.1 · a"))
    once = overridden(record, [half, point_one], lesson, "en")
    assert (once["score"], once["todos"]["2.1"], once["gradescope"]["score"]) == (19.6, [0.6, 4], 19.6)
    whole = overridden(record, [(Override(4, "bob", "2.1", 3, "by hand"), Target("2.1", None, 4, 1, "TODO 2.1")),
                                half], lesson, "en")
    assert (whole["score"], whole["todos"], whole["autograder"]["score"]) == (22, {"2.1": [3, 4], "3.1": [6, 6]}, 20)
    assert [t["score"] for t in whole["gradescope"]["tests"]] == [1, 0.5, 3]  # the checks' tests, then the TODO's
    assert whole["feedback"] == ("report\n\nYour instructor changed these grades:\n"
                                 "  TODO 2.1 · build the prompt: 3/4 (the autograder gave 1) — by hand\n"
                                 "  TODO 2.1 · b: 0.5/1 (the autograder gave 0)\n"
                                 "score after the instructor's changes: 22/25 (the autograder gave 20)\n")
    assert record["score"] == 20 and [t["score"] for t in tests] == [1, 0]  # the autograder's, untouched
