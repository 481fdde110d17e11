"""validate.py grade: a whole class into gradebooks, as an instructor runs it."""
import csv
import json
import os
import shutil
import subprocess
import sys
import zipfile
from html.parser import HTMLParser
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
CORPUS = ROOT / "tests" / "submissions" / "day06"
pytestmark = pytest.mark.slow


def grade_class(submissions: Path, out: Path, *extra: str) -> subprocess.CompletedProcess:
    env = {k: v for k, v in os.environ.items() if k not in ("LANGUAGE", "LC_MESSAGES", "LANG")}
    env.update(LC_ALL="C.UTF-8", PYTHONIOENCODING="utf-8")
    return subprocess.run([sys.executable, "validate.py", "grade", "day06", str(submissions), "--out", str(out),
                           "--jobs", "2", *extra], cwd=ROOT, env=env, capture_output=True, text=True, timeout=600)


@pytest.fixture(scope="module")
def classroom(tmp_path_factory):
    """A class folder with every kind of submission an instructor meets, graded once."""
    folder = tmp_path_factory.mktemp("class")
    subs = folder / "submissions"
    subs.mkdir()
    shutil.copy(CORPUS / "good_regex.py", subs / "alice.py")
    shutil.copy(CORPUS / "bad_syntax_error.py", subs / "bob.py")
    shutil.copy(CORPUS / "good_regex.py", subs / "carol.py")  # a copy of alice's
    shutil.copy(ROOT / "solutions" / "day06.py", subs / "dave.py")
    (subs / "erin" / "work").mkdir(parents=True)
    shutil.copy(CORPUS / "good_separators.py", subs / "erin" / "work" / "day06.py")
    with zipfile.ZipFile(subs / "frank.zip", "w") as bundle:
        bundle.write(CORPUS / "bad_while_true.py", "day06.py")
    (subs / "gina.zip").write_text("not a zip", encoding="utf-8")
    (subs / "hank").mkdir()
    with zipfile.ZipFile(subs / "ivan.zip", "w") as bundle:
        bundle.writestr("../../escape.py", "print('out')\n")
    shutil.copy(CORPUS / "bad_sleep_forever.py", subs / "judy.py")
    out = folder / "grades"
    first = grade_class(subs, out)
    return subs, out, first


def rows(out: Path) -> dict[str, dict]:
    with (out / "grades.csv").open(encoding="utf-8") as table:
        return {row["student"]: row for row in csv.DictReader(table)}


def test_one_row_per_student_with_status_and_todo_columns(classroom):
    subs, out, first = classroom
    assert first.returncode == 0, first.stderr
    table = rows(out)
    assert sorted(table) == ["alice", "bob", "carol", "dave", "erin", "frank", "gina", "hank", "ivan", "judy"]
    assert list(next(iter(table.values())))[:4] == ["student", "score", "max", "TODO 1.2"]
    assert (table["alice"]["score"], table["alice"]["status"]) == (table["alice"]["max"], "graded")
    assert table["bob"]["status"] == "syntax error" and table["bob"]["score"] == "0"
    assert table["erin"]["score"] == table["erin"]["max"]  # the exercise file found in a sub-folder
    assert table["frank"]["status"] == "graded" and table["frank"]["TODO 4.1"] != ""  # from the zip
    for student, why in (("gina", "bad zip"), ("hank", "missing"), ("ivan", "unsafe path")):
        assert table[student]["status"] == "missing" and why in table[student]["flags"]
    assert not (subs.parent.parent / "escape.py").exists()


def test_flags_copies_and_the_reference_solution(classroom):
    _, out, _ = classroom
    table = rows(out)
    assert "same code as carol" in table["alice"]["flags"]
    assert "same as the reference solution" in table["dave"]["flags"]
    assert "solution markers" in table["dave"]["flags"]
    assert table["erin"]["flags"] == ""


def test_each_student_gets_gradescope_results_and_feedback(classroom):
    _, out, _ = classroom
    results = json.loads((out / "students" / "bob" / "results.json").read_text(encoding="utf-8"))
    assert results["score"] == 0 and results["tests"]
    assert "seed" not in results["output"]
    feedback = (out / "students" / "bob" / "feedback.txt").read_text(encoding="utf-8")
    assert "syntax error on line" in feedback and "\x1b[" not in feedback
    everything = json.loads((out / "grades.json").read_text(encoding="utf-8"))
    bob = next(s for s in everything["students"] if s["student"] == "bob")
    assert all(check["message"] for check in bob["checks"])


def test_the_terminal_shows_a_summary_not_learner_reports(classroom):
    _, _, first = classroom
    assert "students, mean" in first.stdout
    assert "not implemented yet" not in first.stdout or "×" in first.stdout  # only as a counted failure
    assert "hint:" not in first.stdout
    assert "missing" in first.stdout.splitlines()[-1]


def test_a_second_run_grades_only_what_changed(classroom, tmp_path):
    subs, out, _ = classroom
    before = (out / "grades.csv").read_text(encoding="utf-8")
    again = grade_class(subs, out)
    assert again.stdout.splitlines()[-1].startswith("0 graded, 7 unchanged")
    assert (out / "grades.csv").read_text(encoding="utf-8") == before
    (subs / "alice.py").write_text((CORPUS / "bad_while_true.py").read_text(encoding="utf-8"), encoding="utf-8")
    try:
        changed = grade_class(subs, out)
        assert changed.stdout.splitlines()[-1].startswith("1 graded, 6 unchanged")
        assert rows(out)["alice"]["score"] != rows(out)["alice"]["max"]
    finally:
        shutil.copy(CORPUS / "good_regex.py", subs / "alice.py")


class Page(HTMLParser):
    def __init__(self):
        super().__init__()
        self.tags, self.text = [], []

    def handle_starttag(self, tag, attrs):
        self.tags.append(tag)

    def handle_data(self, data):
        self.text.append(data)


def test_the_summary_page_is_self_contained(classroom):
    _, out, _ = classroom
    page_text = (out / "summary.html").read_text(encoding="utf-8")
    page = Page()
    page.feed(page_text)
    assert "svg" in page.tags and "rect" in page.tags
    assert "script" not in page.tags and "http" not in page_text.replace("http-equiv", "")
    assert "alice" in "".join(page.text)


@pytest.mark.skipif(not (shutil.which("chromium") or shutil.which("chromium-browser")),
                    reason="needs Debian's chromium")
def test_the_summary_page_renders_in_a_real_browser(classroom, tmp_path):
    _, out, _ = classroom
    browser = shutil.which("chromium") or shutil.which("chromium-browser")
    shot = tmp_path / "summary.png"
    done = subprocess.run([browser, "--headless", "--no-sandbox", "--disable-gpu", "--no-first-run",
                           "--disable-background-networking", "--disable-component-update", "--disable-sync",
                           f"--user-data-dir={tmp_path / 'profile'}", "--enable-logging=stderr", "--v=0",
                           f"--screenshot={shot}", "--window-size=1000,1400", (out / "summary.html").as_uri()],
                          capture_output=True, text=True, timeout=120)
    assert shot.exists() and shot.stat().st_size > 5000, done.stderr[-2000:]
    assert "Uncaught" not in done.stderr and "CONSOLE(" not in done.stderr
