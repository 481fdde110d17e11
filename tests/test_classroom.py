"""validate.py grade: a whole class into gradebooks, as an instructor runs it."""
import csv
import io
import json
import os
import shutil
import signal
import subprocess
import sys
import time
import zipfile
from html.parser import HTMLParser
from pathlib import Path

import processes
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
    (subs / "kim.py").write_bytes(b"\xef\xbb\xbf" + (ROOT / "solutions" / "day06.py").read_bytes())  # saved with a BOM
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
    assert sorted(table) == ["alice", "bob", "carol", "dave", "erin", "frank", "gina", "hank", "ivan", "judy", "kim"]
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
    assert "same as the reference solution" in table["kim"]["flags"]  # read as Python reads it
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
    assert again.stdout.splitlines()[-1].startswith("0 graded, 8 unchanged")
    assert (out / "grades.csv").read_text(encoding="utf-8") == before
    (subs / "alice.py").write_text((CORPUS / "bad_while_true.py").read_text(encoding="utf-8"), encoding="utf-8")
    try:
        changed = grade_class(subs, out)
        assert changed.stdout.splitlines()[-1].startswith("1 graded, 7 unchanged")
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


def _class_of(folder: Path, count: int) -> Path:
    """count students, made from the corpus (good, buggy, hanging), each file unique."""
    sources = sorted(CORPUS.glob("good_*.py"))[:4] + [CORPUS / "bad_while_true.py", CORPUS / "bad_sleep_forever.py",
                                                      CORPUS / "bad_history_reversed.py", CORPUS / "bad_os_exit.py"]
    folder.mkdir(parents=True)
    for number in range(count):
        text = sources[number % len(sources)].read_text(encoding="utf-8")
        (folder / f"s{number:02d}.py").write_text(f"{text}\n# student {number}\n", encoding="utf-8")
    return folder


def _without_seconds(out: Path) -> tuple[list, dict]:
    with (out / "grades.csv").open(encoding="utf-8") as table:
        rows_ = [{k: v for k, v in row.items() if k != "seconds"} for row in csv.DictReader(table)]
    book = json.loads((out / "grades.json").read_text(encoding="utf-8"))
    for student in book["students"]:
        student.pop("seconds", None)
    return rows_, book


def test_the_same_class_gives_the_same_bytes_with_any_number_of_workers(tmp_path):
    subs = _class_of(tmp_path / "subs", 10)
    one, three = tmp_path / "one", tmp_path / "three"
    assert grade_class(subs, one, "--jobs", "1").returncode == 0
    assert grade_class(subs, three, "--jobs", "3").returncode == 0
    assert _without_seconds(one) == _without_seconds(three)
    for name in ("summary.html", *(f"students/s{n:02d}/{f}" for n in range(10) for f in ("results.json", "feedback.txt"))):
        assert (one / name).read_bytes() == (three / name).read_bytes(), name


def test_a_run_stopped_by_ctrl_c_or_killed_resumes_where_it_stopped(tmp_path):
    subs = _class_of(tmp_path / "subs", 16)
    out = tmp_path / "out"
    command = [sys.executable, "validate.py", "grade", "day06", str(subs), "--out", str(out), "--jobs", "2"]
    for stop in (signal.SIGINT, signal.SIGKILL):  # Ctrl-C reaches the whole foreground group
        run = subprocess.Popen(command, cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                               start_new_session=True)
        deadline = time.monotonic() + 120
        while len(list(out.glob("students/*/record.json"))) < (3 if stop == signal.SIGINT else 8):
            assert time.monotonic() < deadline and run.poll() is None, "nothing was saved"
            time.sleep(0.05)
        workers = processes.children(run.pid)
        ours = [f"--serve {fd} {worker}" for worker in workers for fd in range(3, 64)] + [str(subs)]
        os.killpg(run.pid, stop)
        stdout, stderr = run.communicate(timeout=60)
        if stop == signal.SIGINT:
            assert run.returncode == 130 and "Traceback" not in stdout + stderr, stdout + stderr
            assert "run the same command again" in stdout
        saved = list(out.glob("students/*/record.json"))
        assert all(json.loads(p.read_text(encoding="utf-8"))["key"] for p in saved)  # each one whole
        assert all(processes.gone(text) for text in ours), "processes outlived the stopped run"
    saved = len(list(out.glob("students/*/record.json")))
    again = grade_class(subs, out)
    assert again.stdout.splitlines()[-1].startswith(f"{16 - saved} graded, {saved} unchanged")
    fresh = tmp_path / "fresh"
    grade_class(subs, fresh)
    assert _without_seconds(out) == _without_seconds(fresh)




def test_a_worker_that_dies_costs_only_the_student_it_was_grading(tmp_path, monkeypatch):
    from rich.console import Console

    from validator import classroom
    from validator.lessons import load_lesson
    subs = _class_of(tmp_path / "subs", 6)
    summarise = classroom.summarise

    def dies_on_s02(result, lang):  # runs in the worker, a fork of this process
        if result.path.stem == "s02":
            os._exit(3)
        return summarise(result, lang)

    monkeypatch.setattr(classroom, "summarise", dies_on_s02)
    out = tmp_path / "out"
    assert classroom.grade_class(load_lesson("day06"), subs, out, 0, 2, "en", Console(file=io.StringIO())) == 0
    table = rows(out)
    assert sorted(table) == [f"s{n:02d}" for n in range(6)]
    assert table["s02"]["status"] == "crashed" and "grading process died" in table["s02"]["flags"]
    assert all(table[s]["status"] != "crashed" for s in table if s != "s02")
    assert table["s00"]["score"] == table["s00"]["max"]


def test_grades_kept_inside_the_submissions_folder_are_not_a_student(tmp_path):
    subs = _class_of(tmp_path / "subs", 2)
    assert grade_class(subs, subs / "grades").returncode == 0
    assert sorted(rows(subs / "grades")) == ["s00", "s01"]
    again = grade_class(subs, subs / "grades")
    assert again.stdout.splitlines()[-1].startswith("0 graded, 2 unchanged since the last run, 0 missing")
