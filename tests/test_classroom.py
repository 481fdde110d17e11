"""validate.py grade: a whole class into gradebooks, as an instructor runs it."""
import csv
import functools
import html
import io
import json
import os
import re
import shutil
import signal
import subprocess
import sys
import time
import urllib.parse
import zipfile
from html.parser import HTMLParser
from pathlib import Path

import processes
import pytest

ROOT = Path(__file__).resolve().parent.parent
CORPUS = ROOT / "tests" / "submissions" / "day06"
TEMPLATE = ROOT / "lessons" / "day06" / "day06.py"


@functools.cache
def day06_points() -> dict[str, int]:
    """Each TODO's points, as day06's checks declare them."""
    from validator.instructor.gradebooks import todo_points
    from validator.lessons import load_lesson
    return todo_points(load_lesson("day06"))


def grade_class(submissions: Path, out: Path, *extra: str, cwd: Path = ROOT) -> subprocess.CompletedProcess:
    """validate.py grade, as an instructor runs it. Where the jail can't be built (macOS), with the
    instructor's opt-out: what these tests try is the class run, not the jail (test_isolation.py)."""
    from validator.isolation import jail
    env = {k: v for k, v in os.environ.items() if k not in ("LANGUAGE", "LC_MESSAGES", "LANG")}
    env.update(LC_ALL="C.UTF-8", PYTHONIOENCODING="utf-8")
    unjailed = ["--allow-unisolated"] if jail.unavailable_reason() else []
    return subprocess.run([sys.executable, str(ROOT / "validate.py"), "grade", "day06", str(submissions), "--out",
                           str(out), "--jobs", "2", *unjailed, *extra], cwd=cwd, env=env, capture_output=True,
                          text=True, timeout=600)


def _grade_here(submissions: Path, out: Path, lang: str = "en") -> tuple[int, str]:
    """validate.py grade in this process (its workers are forks of it): the exit status and what it printed."""
    from rich.console import Console

    from validator.instructor import classroom
    from validator.lessons import load_lesson
    printed = io.StringIO()
    code = classroom.grade_class(load_lesson("day06"), submissions, out, 0, 2, lang,
                                 Console(file=printed, highlight=False, soft_wrap=True))
    return code, printed.getvalue()


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
    with (out / "grades.csv").open(encoding="utf-8-sig") as table:  # a BOM, for Excel
        return {row["student"]: row for row in csv.DictReader(table)}


@pytest.mark.slow
def test_one_row_per_student_with_status_and_todo_columns(classroom):
    subs, out, first = classroom
    assert first.returncode == 0, first.stderr
    table = rows(out)
    assert sorted(table) == ["alice", "bob", "carol", "dave", "erin", "frank", "gina", "hank", "ivan", "judy", "kim"]
    first_todo = next(iter(day06_points().items()))
    assert list(next(iter(table.values())))[:4] == ["student", "score", "max", "TODO %s (/%d)" % first_todo]
    assert (table["alice"]["score"], table["alice"]["status"]) == (table["alice"]["max"], "graded")
    assert table["bob"]["status"] == "syntax error" and table["bob"]["score"] == "0"
    assert table["erin"]["score"] == table["erin"]["max"]  # the exercise file found in a sub-folder
    assert table["frank"]["status"] == "graded" and table["frank"][f"TODO 4.1 (/{day06_points()['4.1']})"] != ""  # from the zip
    for student, why in (("gina", "bad zip"), ("hank", "missing"), ("ivan", "unsafe path")):
        assert table[student]["status"] == "missing" and why in table[student]["flags"]
    assert not (subs.parent.parent / "escape.py").exists()


@pytest.mark.slow
def test_flags_copies_and_the_reference_solution(classroom):
    _, out, _ = classroom
    table = rows(out)
    assert "same code as carol" in table["alice"]["flags"]
    assert "same as the reference solution" in table["dave"]["flags"]
    assert "same as the reference solution" in table["kim"]["flags"]  # read as Python reads it
    assert "solution markers" in table["dave"]["flags"]
    assert table["erin"]["flags"] == ""


ORIGINAL = '''def react(question, llm_call, max_steps=5):
    """Think, act, observe."""
    history = [question]
    for step in range(max_steps):
        reply = llm_call("\\n".join(history))
        if reply.startswith("Final Answer:"):
            return reply[len("Final Answer:"):].strip()
        history.append(reply)
    return None
'''
DISGUISED = '''# my own work
def react(question,llm_call,max_steps=5):
  """Think, act, observe."""
  history=[question]   # the prompt so far

  for step in range( max_steps ):
    reply=llm_call("\\n".join(history))
    if reply.startswith("Final Answer:"):
        return reply[len("Final Answer:"):].strip()
    history.append(reply)
  return None  # \\
'''


def test_a_copy_has_the_shape_of_its_original_and_a_change_of_code_does_not():
    """The copy fingerprint ignores what a copier changes to hide a copy (comments and docstrings,
    blank lines, spaces, indents, names: a variable renamed) and keeps every other change of code:
    a string, a keyword, an operator, the space between words."""
    from validator.instructor.submissions import code_shape
    shape = code_shape(ORIGINAL)
    assert code_shape(DISGUISED) == shape
    assert code_shape(ORIGINAL.replace("history", "past").replace("step", "学步")) == shape
    assert code_shape(ORIGINAL.replace("for step in", "for step not in")) != shape
    assert code_shape(ORIGINAL.replace("max_steps=5", "max_steps=6")) != shape
    assert code_shape(ORIGINAL.replace("Final Answer:", "Final  Answer:")) != shape  # inside a string
    assert code_shape(ORIGINAL.replace("Think, act", "Think, then act")) == shape  # a docstring, as a comment
    assert code_shape(ORIGINAL.replace('"""Think', 'f"""{run()}Think')) != shape  # an f-string runs: no docstring
    assert code_shape(ORIGINAL.replace(".strip()", ".lower()")) != shape  # an attribute is no name of one's own
    assert code_shape("return x\n") != code_shape("returnx\n")
    # nor what changes no string and no statement: quotes, a literal split in two, a `pass` more
    assert code_shape(ORIGINAL.replace('"Final Answer:"', "'Final Answer:'")) == shape
    assert code_shape(ORIGINAL.replace('"Final Answer:"', '"Final " "Answer:"')) == shape
    assert code_shape(ORIGINAL.replace("    return None", "    pass\n    return None")) == shape
    assert code_shape(ORIGINAL.replace('"Final Answer:"', '"Final " + "Answer:"')) != shape  # an operator
    # code that does not parse has a shape all the same
    assert code_shape("def f(:\n  '''unended\n") == code_shape("def f(:  # broken\n\t'''unended\n")


@pytest.mark.slow
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


@pytest.mark.slow
def test_the_terminal_shows_a_summary_not_learner_reports(classroom):
    _, _, first = classroom
    assert "students, mean" in first.stdout
    assert "not implemented yet" not in first.stdout or "×" in first.stdout  # only as a counted failure
    assert "hint:" not in first.stdout
    assert "missing" in first.stdout.splitlines()[-1]


@pytest.mark.slow
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


@pytest.mark.slow
def test_the_summary_page_is_self_contained(classroom):
    _, out, _ = classroom
    page_text = (out / "summary.html").read_text(encoding="utf-8")
    page = Page()
    page.feed(page_text)
    assert "svg" in page.tags and "rect" in page.tags
    assert "script" not in page.tags and "http" not in page_text.replace("http-equiv", "")
    assert "alice" in "".join(page.text)


@pytest.mark.slow
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
    dom = subprocess.run([browser, "--headless", "--no-sandbox", "--disable-gpu", "--no-first-run",
                          "--disable-background-networking", "--disable-component-update", "--disable-sync",
                          f"--user-data-dir={tmp_path / 'profile'}", "--dump-dom", (out / "summary.html").as_uri()],
                         capture_output=True, text=True, timeout=120).stdout
    page = Tables(dom)  # the page as the browser built it: each link leads to the student's feedback
    assert sorted(page.links) == ["alice", "bob", "carol", "dave", "erin", "frank", "judy", "kim"]
    assert all((out / urllib.parse.unquote(href)).is_file() for href in page.links.values())
    assert len(page.tables) == 2 and len(page.svg_texts) == 20


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
    with (out / "grades.csv").open(encoding="utf-8-sig") as table:
        rows_ = [{k: v for k, v in row.items() if k != "seconds"} for row in csv.DictReader(table)]
    book = json.loads((out / "grades.json").read_text(encoding="utf-8"))
    for student in book["students"]:
        student.pop("seconds", None)
    return rows_, book


@pytest.mark.slow
def test_the_same_class_gives_the_same_bytes_with_any_number_of_workers(tmp_path):
    subs = _class_of(tmp_path / "subs", 10)
    one, three = tmp_path / "one", tmp_path / "three"
    assert grade_class(subs, one, "--jobs", "1").returncode == 0
    assert grade_class(subs, three, "--jobs", "3").returncode == 0
    assert _without_seconds(one) == _without_seconds(three)
    for name in ("summary.html", *(f"students/s{n:02d}/{f}" for n in range(10) for f in ("results.json", "feedback.txt"))):
        assert (one / name).read_bytes() == (three / name).read_bytes(), name


@pytest.mark.slow
def test_workers_are_added_while_the_cpus_sit_idle_and_grade_the_same(tmp_path, monkeypatch):
    """Workers that wait on their students' processes (day11's rounds) leave the CPUs idle: the run
    starts more, up to most_jobs, and each student's outputs are the same bytes as one worker's."""
    from rich.console import Console

    from validator.grading import busy
    from validator.instructor import classroom, workers
    from validator.lessons import load_lesson
    subs = _class_of(tmp_path / "subs", 10)
    one = tmp_path / "one"
    assert grade_class(subs, one, "--jobs", "1").returncode == 0
    started = []
    start = workers.Workers._start
    monkeypatch.setattr(workers.Workers, "_start", lambda self: started.append(1) or start(self))
    monkeypatch.setattr(workers.Workers, "LOOK_EVERY", 0.0)
    monkeypatch.setattr(busy.IdleCPUs, "share", lambda self: 1.0)  # as idle as can be: grow at every look
    grown = tmp_path / "grown"
    assert classroom.grade_class(load_lesson("day06"), subs, grown, 0, 1, "en", Console(file=io.StringIO()),
                                 most_jobs=3) == 0
    assert len(started) == 3  # one, then two more: never past most_jobs
    assert _without_seconds(one) == _without_seconds(grown)
    for name in ("summary.html", *(f"students/s{n:02d}/{f}" for n in range(10) for f in ("results.json", "feedback.txt"))):
        assert (one / name).read_bytes() == (grown / name).read_bytes(), name


def test_only_a_student_graded_gets_a_private_copy_of_their_file(tmp_path, monkeypatch):
    """A student's file is copied into a folder of their own only to be graded: a run again with
    nothing changed makes no copy (nor folder), one changed file makes one, of the bytes read."""
    from rich.console import Console

    from validator.instructor import classroom, submissions
    from validator.lessons import load_lesson
    staged = []

    def stage(entry):
        source = entry.source
        submissions.stage(entry)
        staged.append((entry.student, entry.path.read_bytes() == source))
    monkeypatch.setattr(classroom, "stage", stage)
    subs, out = _class_of(tmp_path / "subs", 3), tmp_path / "out"

    def run():
        staged.clear()
        assert classroom.grade_class(load_lesson("day06"), subs, out, 0, 1, "en", Console(file=io.StringIO())) == 0
        return staged
    assert run() == [("s00", True), ("s01", True), ("s02", True)]
    assert run() == []
    (subs / "s01.py").write_text((CORPUS / "bad_history_reversed.py").read_text(encoding="utf-8"), encoding="utf-8")
    assert run() == [("s01", True)]


def test_a_run_into_gradebooks_with_students_starts_its_sandbox_only_once_it_has_some_to_grade(tmp_path, monkeypatch):
    """`validate.py grade` starts the run's warm sandbox as it starts (forkserver.warm_early), but
    not for an --out that holds students already: run again, it may have nobody to grade."""
    from validator.isolation import forkserver
    started = []
    monkeypatch.setattr(forkserver, "available", lambda: True)
    monkeypatch.setattr(forkserver, "WarmSandbox", lambda preload: started.append(preload) or "a warm sandbox")
    monkeypatch.setattr(forkserver, "_early", None)
    monkeypatch.setattr(forkserver.atexit, "register", lambda end: None)
    (tmp_path / "again" / "students").mkdir(parents=True)
    forkserver.warm_early("day06", ["validate.py", "grade", "day06", "subs", "--out", str(tmp_path / "again")])
    forkserver.warm_early("day06", ["validate.py", "grade", "day06", "subs", f"--out={tmp_path / 'again'}"])
    assert started == [] and forkserver._early is None
    forkserver.warm_early("day06", ["validate.py", "grade", "day06", "subs", "--out", str(tmp_path / "new")])
    assert len(started) == 1 and forkserver._early == "a warm sandbox"


def test_on_a_terminal_every_worker_is_forked_from_a_run_of_one_thread(tmp_path, monkeypatch):
    """The progress bar is drawn without a thread of its own: a fork of a process with other
    threads may inherit a lock one of them held, and workers are forked throughout the run (one
    added while the CPUs idle, one in place of a worker that died)."""
    import threading

    from rich.console import Console

    from validator.grading import busy
    from validator.instructor import classroom, workers
    from validator.lessons import load_lesson
    threads_at_fork = []
    start = workers.Workers._start
    monkeypatch.setattr(workers.Workers, "_start", lambda self: threads_at_fork.append(threading.active_count())
                        or start(self))
    monkeypatch.setattr(workers.Workers, "LOOK_EVERY", 0.0)
    monkeypatch.setattr(busy.IdleCPUs, "share", lambda self: 1.0)
    shown = io.StringIO()
    terminal = Console(file=shown, force_terminal=True, width=100)
    assert classroom.grade_class(load_lesson("day06"), _class_of(tmp_path / "subs", 4), tmp_path / "out", 0, 1, "en",
                                 terminal, most_jobs=2) == 0
    assert threads_at_fork == [1, 1]
    assert "4/4" in shown.getvalue()


def test_idle_cpus_are_a_share_of_the_time_between_two_looks():
    from validator.grading.busy import IdleCPUs
    idle = IdleCPUs()
    deadline = time.monotonic() + 0.05
    while time.monotonic() < deadline:  # some CPU time passes
        pass
    assert 0.0 <= idle.share() <= 1.0


@pytest.mark.slow
def test_a_run_stopped_by_ctrl_c_or_killed_resumes_where_it_stopped(tmp_path):
    subs = _class_of(tmp_path / "subs", 16)
    out = tmp_path / "out"
    command = [sys.executable, "validate.py", "grade", "day06", str(subs), "--out", str(out), "--jobs", "2"]
    # A suite started in the background (`nohup pytest &`) ignores SIGINT, and so would the run it
    # starts, as a shell's background job does: the run starts with Python's own handler instead
    # (a handler, unlike an ignored signal, is not inherited across exec).
    for stop in (signal.SIGINT, signal.SIGKILL):  # Ctrl-C reaches the whole foreground group
        handler = signal.signal(signal.SIGINT, signal.default_int_handler)
        try:
            run = subprocess.Popen(command, cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                                   start_new_session=True)
        finally:
            signal.signal(signal.SIGINT, handler)
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


@pytest.mark.slow
def test_a_worker_that_dies_costs_only_the_student_it_was_grading_who_is_graded_again_next_run(tmp_path, monkeypatch):
    from validator.instructor import workers
    subs = _class_of(tmp_path / "subs", 4)
    summarise = workers.summarise

    def dies_on_s02(result, lang):  # runs in the worker, a fork of this process
        if result.path.stem == "s02":
            os._exit(3)
        return summarise(result, lang)

    monkeypatch.setattr(workers, "summarise", dies_on_s02)
    out = tmp_path / "out"
    code, printed = _grade_here(subs, out)
    assert code == 0
    table = rows(out)
    assert sorted(table) == [f"s{n:02d}" for n in range(4)]
    assert table["s02"]["status"] == "grader failed" and "grading process died" in table["s02"]["flags"]
    assert all(table[s]["status"] != "grader failed" for s in table if s != "s02")
    assert table["s00"]["score"] == table["s00"]["max"]
    assert "s02: the grader failed" in printed  # named in the summary, and counted on the last line
    assert printed.splitlines()[-1].startswith("3 graded, 0 unchanged since the last run, 0 missing, 1 not graded "
                                               "because the grader failed")
    monkeypatch.setattr(workers, "summarise", summarise)
    code, printed = _grade_here(subs, out)
    assert printed.splitlines()[-1].startswith("1 graded, 3 unchanged"), printed  # never kept: graded again
    assert rows(out)["s02"]["status"] == "graded"


@pytest.mark.slow
def test_grades_kept_inside_the_submissions_folder_are_not_a_student(tmp_path):
    subs = _class_of(tmp_path / "subs", 2)
    assert grade_class(subs, subs / "grades").returncode == 0
    assert sorted(rows(subs / "grades")) == ["s00", "s01"]
    again = grade_class(subs, subs / "grades")
    assert again.stdout.splitlines()[-1].startswith("0 graded, 2 unchanged since the last run, 0 missing")


# ---------------------------------------------------------------- what an instructor-tester met

LINUX = pytest.mark.skipif(sys.platform != "linux", reason="a FIFO, links and a file name that is no UTF-8")


def _odd_class(folder: Path) -> Path:
    """A class of what an instructor-tester met, each student named after it."""
    subs = folder / "subs"

    def put(name: str, source: Path) -> None:
        (subs / name).parent.mkdir(parents=True, exist_ok=True)
        shutil.copy(source, subs / name)

    for name, source in (("good.py", "good_regex.py"), ("goody.py", "good_regex.py"),  # copies of each other
                         ("bob smith.py", "good_sync_loop.py"), ("bob_smith.py", "good_partition_parser.py"),
                         ("nora/day06.py", "good_lines_dict.py"), ("kit/workspace/day06.py", "good_class_agent.py"),
                         ("two/a/day06.py", "good_history_after_question.py"), ("two/b/c/day06.py", "good_transcript_list.py"),
                         ("kate.PY", "bad_returns_none.py"), ("sam/a.py", "good_regex.py"), ("sam/b.py", "good_separators.py"),
                         ("dup.py", "good_chinese_prompt.py")):
        put(name, CORPUS / source)
    for name in ("nora/backup/day06.py", "kit/lessons/day06/day06.py", "tess.py", "uma.py", "vic.py"):
        put(name, TEMPLATE)  # untouched templates
    with zipfile.ZipFile(subs / "dup.zip", "w") as bundle:  # one student's name on two submissions
        bundle.write(CORPUS / "good_markdown_prompt.py", "day06.py")
    with zipfile.ZipFile(subs / "zed.zip", "w") as bundle:  # a zipped repository: 6 MB of .git beside the file
        bundle.writestr(".git/objects/pack/pack-1.pack", os.urandom(6_000_000))
        bundle.write(CORPUS / "bad_unknown_tool_keyerror.py", "day06.py")  # a traceback that quotes the file
    (subs / "gina.zip").write_text("not a zip", encoding="utf-8")
    (subs / "huge.py").write_text("x = 1\n" * 400_000, encoding="utf-8")
    for name in ("notes.txt", "alice.ipynb", ".DS_Store"):
        (subs / name).write_text("{}\n", encoding="utf-8")
    secret = folder / "secret.py"
    secret.write_text("raise RuntimeError('INSTRUCTOR_ONLY: the answers')\n", encoding="utf-8")  # a traceback quotes it
    (subs / "mal").mkdir()
    (subs / "mal" / "day06.py").symlink_to(secret)
    (subs / "nat.py").symlink_to("notes.txt")
    (subs / "rob.py").symlink_to(folder / "nowhere.py")
    os.mkfifo(subs / "fifo.py")
    return subs


GRADED = ["bob smith", "bob_smith", "dup.py", "dup.zip", "good", "goody", "kate", "kit", "nora", "tess", "two", "uma",
          "vic", "zed"]
NOT_GRADED = ["fifo", "gina", "huge", "mal", "nat", "rob", "sam"]


@pytest.fixture(scope="module")
def odd(tmp_path_factory):
    """The odd class, graded once, from another working folder, with relative paths."""
    folder = tmp_path_factory.mktemp("odd")
    subs = _odd_class(folder)
    return subs, folder / "grades", grade_class(Path("subs"), Path("grades"), cwd=folder)


def _book(out: Path) -> dict[str, dict]:
    return {s["student"]: s for s in json.loads((out / "grades.json").read_text(encoding="utf-8"))["students"]}


def _found(subs: Path, tmp_path: Path) -> tuple[dict, list[str]]:
    from validator.instructor import submissions
    from validator.lessons import load_lesson
    staging = tmp_path / "staging"
    staging.mkdir()
    entries, ignored = submissions.find_submissions(subs, load_lesson("day06"), staging, tmp_path / "out", "en")
    return {e.student: e for e in entries}, ignored


@LINUX
@pytest.mark.slow
def test_every_student_of_an_odd_class_gets_a_row_and_the_others_are_named(odd):
    _, out, done = odd
    assert done.returncode == 0 and "INTERNALERROR" not in done.stdout + done.stderr, done.stdout + done.stderr
    table = rows(out)
    assert sorted(table) == sorted(GRADED + NOT_GRADED)
    assert [s for s in GRADED if table[s]["status"] != "graded"] == []
    summary = done.stdout[done.stdout.index("Not graded (7):"):]  # each named with the reason, briefly
    for student, why in (("fifo", "unreadable"), ("gina", "bad zip"), ("huge", "too large"),
                         ("mal", "refused"), ("nat", "refused"), ("rob", "refused"), ("sam", "missing")):
        assert f"\n  {student}: {why}" in summary
    assert "Ignored (hidden, or not a .py file, .zip or folder): .DS_Store, alice.ipynb, notes.txt" in summary
    assert done.stdout.splitlines()[-1].startswith("14 graded, 0 unchanged since the last run, 7 missing")
    clash = "one name, several submissions (dup.py, dup.zip): each graded on its own file; check which is whose"
    assert table["dup.py"]["flags"].startswith(clash) and table["dup.zip"]["flags"].startswith(clash)
    assert f"⚑ dup.py, dup.zip: {clash}" in done.stdout


@LINUX
@pytest.mark.slow
def test_a_file_name_that_is_no_utf8_is_graded_under_a_printable_name(tmp_path):
    subs, out = tmp_path / "subs", tmp_path / "out"
    subs.mkdir()
    shutil.copy(CORPUS / "good_regex.py", subs / os.fsdecode(b"bad\xffname.py"))
    shutil.copy(CORPUS / "good_separators.py", subs / "good.py")
    assert _grade_here(subs, out)[0] == 0
    table = rows(out)
    assert sorted(table) == ["bad\\xffname", "good"]
    assert table["bad\\xffname"]["score"] == table["bad\\xffname"]["max"]
    [folder] = (out / "students").glob("bad_name.py~*")
    assert "file: bad\\xffname.py" in (folder / "feedback.txt").read_text(encoding="utf-8")


@LINUX
@pytest.mark.slow
def test_of_several_candidate_files_the_students_own_is_graded_and_named(odd):
    _, out, _ = odd
    table, book = rows(out), _book(out)
    assert {s: book[s]["file"] for s in ("good", "kit", "nora", "two", "zed")} == {
        "good": "good.py", "kit": "kit/workspace/day06.py", "nora": "nora/day06.py", "two": "two/a/day06.py",
        "zed": "zed.zip:day06.py"}
    assert table["nora"]["score"] == table["nora"]["max"] and table["kit"]["score"] == table["kit"]["max"]
    assert table["nora"]["flags"] == table["kit"]["flags"] == ""  # the template and lessons/ gave way: no choice
    assert table["two"]["flags"] == "several candidate files: graded two/a/day06.py"
    assert "file: two/a/day06.py" in (out / "students" / "two" / "feedback.txt").read_text(encoding="utf-8")


def test_exercise_file_skips_a_cloned_kits_lessons_and_untouched_templates_then_takes_the_shallowest(tmp_path):
    from validator.instructor.submissions import exercise_file
    from validator.lessons import load_lesson
    lesson, kit = load_lesson("day06"), tmp_path / "kit"
    for name, source in (("lessons/day06/day06.py", TEMPLATE), ("backup/day06.py", TEMPLATE),
                         ("workspace/day06.py", CORPUS / "good_regex.py")):
        (kit / name).parent.mkdir(parents=True, exist_ok=True)
        shutil.copy(source, kit / name)
    assert exercise_file(kit, lesson) == (kit / "workspace" / "day06.py", "")
    shutil.copy(CORPUS / "good_separators.py", kit / "day06.py")
    assert exercise_file(kit, lesson) == (kit / "day06.py", "several candidate files: graded day06.py")
    (tmp_path / "empty").mkdir()
    assert exercise_file(tmp_path / "empty", lesson, "zh") == (None, "缺交：其中没有 day06.py，也没有其他 .py 文件")


def test_folder_names_are_unique_safe_and_the_same_on_every_run():
    import unicodedata

    from validator.instructor.submissions import folder_names
    files = ["bob smith.py", "bob_smith.py", "Ann.py", "ann.zip", "zoë.py", "zoe\u0308.zip", "chloé", "ｂｏｂ.py",
             os.fsdecode(b"bad\xffname.py"), "a:b.py", "bob.py", "bob.zip"]
    found = {file: file.rsplit(".", 1)[0] if file.endswith((".py", ".zip")) else file for file in files}
    folders = folder_names(found)
    assert folders == folder_names(dict(reversed(found.items())))
    shapes = {unicodedata.normalize("NFKC", f).casefold() for f in folders.values()}
    assert len(shapes) == len(files)  # also where case or normalisation doesn't count
    assert folders["bob_smith.py"] == "bob_smith" and folders["chloé"] == "chloé"
    assert folders["bob smith.py"].startswith("bob_smith.py~")
    assert all(re.fullmatch(r"[\w.@+-]+(~[0-9a-f]{16})?", folder) for folder in folders.values())
    # a name that looks like another's hashed folder is no such folder: "~" makes a name hashed too
    taker = {**found, folders["bob smith.py"] + ".py": folders["bob smith.py"]}
    assert len(set(folder_names(taker).values())) == len(taker)
    # a name of letters four bytes long each (Unicode's Extension B) fits a file system's 255 bytes
    long = {"\U00020000" * 62 + " x.py": "\U00020000" * 62 + " x", "\U00020000" * 63 + ".py": "\U00020000" * 63}
    assert all(len(folder.encode()) <= 255 and folder.endswith(f"~{folder[-16:]}") for folder in folder_names(long).values())


@pytest.mark.slow
def test_a_name_too_long_in_bytes_or_a_file_of_unclosed_quotes_costs_no_classmate_a_grade(tmp_path):
    """Two submissions made to stop a class run: a name whose folder, cut at 64 characters, was
    longer than a file system's 255 bytes (the run ended at it, no gradebook made), and a folder
    holding a second candidate of unclosed quotes, whose fingerprint took hours as the run looked
    for the file to grade (each quote scanned the rest of the file again)."""
    solution = (ROOT / "solutions" / "day06.py").read_text(encoding="utf-8")
    submissions = tmp_path / "class"
    submissions.mkdir()
    (submissions / "alice.py").write_text(solution, encoding="utf-8")
    (submissions / ("\U00020000" * 62 + " x.py")).write_text(solution, encoding="utf-8")
    (submissions / "mallory" / "old").mkdir(parents=True)
    (submissions / "mallory" / "day06.py").write_text(solution, encoding="utf-8")
    (submissions / "mallory" / "old" / "day06.py").write_text("\\'\'\'x\n" * 150_000, encoding="utf-8")  # 0.9 MB
    done = grade_class(submissions, tmp_path / "out")
    assert done.returncode == 0, done.stderr
    book = rows(tmp_path / "out")
    assert {row["status"] for row in book.values()} == {"graded"} and len(book) == 3
    assert {row["score"] for row in book.values()} == {str(sum(day06_points().values()))}


@LINUX
@pytest.mark.slow
def test_names_that_make_the_same_folder_each_keep_their_own(odd):
    _, out, _ = odd
    book = _book(out)
    assert book["bob_smith"]["folder"] == "bob_smith" and book["bob smith"]["folder"].startswith("bob_smith.py~")
    for student in ("bob smith", "bob_smith"):
        record = json.loads((out / "students" / book[student]["folder"] / "record.json").read_text(encoding="utf-8"))
        assert (record["student"], record["file"]) == (student, f"{student}.py")


@LINUX
def test_every_entry_is_a_student_or_said_to_be_ignored_and_no_link_is_followed(tmp_path):
    found, ignored = _found(_odd_class(tmp_path), tmp_path)
    assert ignored == [".DS_Store", "alice.ipynb", "notes.txt"]
    assert sorted(found) == sorted(GRADED + NOT_GRADED)
    assert (found["kate"].shown, found["kate"].path.name) == ("kate.PY", "day06.py")  # a copy Python imports
    for student, file in (("rob", "rob.py"), ("mal", "mal/day06.py"), ("nat", "nat.py")):  # to nothing, out, in
        assert found[student].problem.startswith(f"refused: {file} is a link, and links are never followed")
    assert found["fifo"].problem.startswith("unreadable: fifo.py is not a regular file")
    assert found["huge"].problem.startswith("too large: huge.py has 2.3 MB, more than the 1 MB")
    assert (found["zed"].shown, found["zed"].problem) == ("zed.zip:day06.py", "")  # the .git is not unpacked
    assert found["sam"].problem == "missing: several .py files and no day06.py, so which to grade is unknown"


def test_a_folder_without_a_submission_is_an_error_and_makes_no_gradebook(tmp_path):
    subs = tmp_path / "subs"
    subs.mkdir()
    (subs / "alice.ipynb").write_text("{}\n", encoding="utf-8")
    done = grade_class(subs, tmp_path / "out")
    assert done.returncode == 2 and "no submission in" in done.stderr and "only alice.ipynb" in done.stderr
    assert not (tmp_path / "out").exists()


@LINUX
@pytest.mark.slow
def test_links_lead_no_instructors_file_into_any_output(odd):
    _, out, _ = odd
    assert not [p for p in out.rglob("*") if p.is_file() and "INSTRUCTOR_ONLY" in p.read_text(encoding="utf-8")]


@LINUX
@pytest.mark.slow
def test_untouched_templates_are_said_so_and_each_group_of_copies_shows_once(odd):
    _, out, done = odd
    table = rows(out)
    assert [table[s]["flags"] for s in ("tess", "uma", "vic")] == ["untouched template"] * 3
    assert (table["good"]["flags"], table["goody"]["flags"]) == ("same code as goody", "same code as good")
    flags = [line for line in done.stdout.splitlines() if line.startswith("⚑")]
    assert "⚑ tess, uma, vic: untouched template" in flags and "⚑ good, goody: same code as each other" in flags
    assert sum("same code" in line for line in flags) == 1


def _unmeasured(name: Path, text: str):
    """A gradebook without the measured seconds."""
    if name.suffix == ".csv":
        return [dict(row, seconds="") for row in csv.DictReader(io.StringIO(text))]
    return re.sub(r'"seconds": [\d.]+', "", text)


@LINUX
@pytest.mark.slow
def test_outputs_are_the_same_bytes_from_any_working_folder(odd, tmp_path):
    subs, out, _ = odd
    again = tmp_path / "again"
    assert _grade_here(subs.resolve(), again)[0] == 0  # absolute paths, this working folder, new temporary ones
    files = sorted(p.relative_to(out) for p in out.rglob("*") if p.is_file())
    assert files == sorted(p.relative_to(again) for p in again.rglob("*") if p.is_file())
    texts = {name: (again / name).read_text(encoding="utf-8") for name in files}
    for name, text in texts.items():  # no temporary folder, no absolute path
        assert "reactlings-" not in text and str(subs.parent.resolve()) not in text, name
    for name, text in texts.items():
        assert _unmeasured(name, (out / name).read_text(encoding="utf-8")) == _unmeasured(name, text), name
    assert 'File "zed.zip:day06.py", line' in (again / "students" / "zed" / "feedback.txt").read_text(encoding="utf-8")


@LINUX
@pytest.mark.slow
def test_a_rerun_grades_nothing_and_copy_detection_reads_no_file(odd, monkeypatch):
    from validator.instructor import workers
    subs, out, _ = odd

    def read_again(path):
        raise AssertionError(f"copy detection read {path} again")

    monkeypatch.setattr(workers, "fingerprint", read_again)
    code, printed = _grade_here(subs, out)
    assert printed.splitlines()[-1].startswith("0 graded, 14 unchanged since the last run, 7 missing"), printed
    assert rows(out)["good"]["flags"] == "same code as goody"  # from the records


@pytest.mark.slow
def test_a_deleted_output_is_made_again(classroom):
    subs, out, _ = classroom
    grade_class(subs, out)  # up to date, whatever other tests changed
    feedback = out / "students" / "carol" / "feedback.txt"
    before = feedback.read_bytes()
    feedback.unlink()
    assert grade_class(subs, out).stdout.splitlines()[-1].startswith("1 graded, 7 unchanged")
    assert feedback.read_bytes() == before


def test_the_key_covers_every_input_of_the_outputs():
    from validator.instructor.workers import grading_inputs
    from validator.lessons import load_lesson
    inputs = grading_inputs(load_lesson("day06"))
    for name in ("validator/messages.yaml", "validator/grading/report.py", "mock_llm/__init__.py", "day06/lesson.yaml",
                 "day06/checks.py", "day06/day06.py"):
        assert name in inputs


def test_an_out_folder_that_is_the_submissions_or_inside_a_submission_is_refused(tmp_path):
    from validator.instructor.classroom import grade_class as grade
    from validator.lessons import LessonError, load_lesson
    subs = tmp_path / "subs"
    (subs / "alice").mkdir(parents=True)
    shutil.copy(CORPUS / "good_regex.py", subs / "alice" / "day06.py")
    for out in (subs, subs / "alice", subs / "alice" / "grades"):
        with pytest.raises(LessonError, match="is the submissions folder or inside a submission"):
            grade(load_lesson("day06"), subs, out, 0, 1, "en", None)
    assert sorted(p.name for p in subs.rglob("*")) == ["alice", "day06.py"]  # nothing written
    done = grade_class(subs, subs)
    assert done.returncode == 2 and "--out" in done.stderr and "Traceback" not in done.stderr


def test_lang_zh_speaks_chinese_on_the_terminal_and_in_every_gradebook(tmp_path):
    subs = tmp_path / "subs"
    (subs / "hank").mkdir(parents=True)
    (subs / "gina.zip").write_text("not a zip", encoding="utf-8")
    (subs / "notes.txt").write_text("notes\n", encoding="utf-8")
    out = tmp_path / "out"
    code, printed = _grade_here(subs, out, "zh")
    assert code == 0
    for text in ("未评分（2 份）：", "  gina: zip 文件损坏", "  hank: 缺交：", "已忽略", "缺交 2"):
        assert text in printed
    assert printed.splitlines()[-1].startswith("评分 0 份")
    page = (out / "summary.html").read_text(encoding="utf-8")
    for text in ('<html lang="zh">', "全班概况", "分数分布", "各 TODO 情况", "<th>状态</th>", "<td>缺交</td>", "zip 文件损坏"):
        assert text in page
    assert not re.search(r"Score distribution|Students|missing", page)
    assert rows(out)["gina"]["flags"].startswith("zip 文件损坏")
    assert rows(out)["gina"]["max"] == str(sum(day06_points().values()))  # the lesson's, though no one's file was graded


def test_flags_speak_the_language_and_untouched_templates_are_no_copies():
    from validator.instructor import copies, submissions, workers
    from validator.lessons import load_lesson
    files = {"ann": TEMPLATE, "ben": TEMPLATE, "Cat": CORPUS / "good_regex.py", "dan": CORPUS / "good_regex.py",
             "eve": ROOT / "solutions" / "day06.py"}
    entries = [submissions.Entry(name, name, f"{name}.py", path) for name, path in sorted(files.items())]  # as found
    records = {name: {"student": name, "folder": name, **workers.fingerprint(path)} for name, path in files.items()}
    flagged, noted, lines = copies.look_at(entries, records, load_lesson("day06"), "zh")
    assert noted["ann"] == noted["ben"] == ["未改动的模板"] and "ann" not in flagged
    assert (flagged["Cat"], flagged["dan"]) == (["与 dan 的代码相同"], ["与 Cat 的代码相同"])
    assert flagged["eve"] == ["与参考答案相同", "含有参考答案的标记"]
    assert lines[:2] == [(["ann", "ben"], "未改动的模板"), (["Cat", "dan"], "彼此代码相同")]  # as people sort names


@pytest.mark.parametrize("stage", ["find_submissions", "look_at"])
def test_ctrl_c_before_or_after_the_grading_loop_ends_the_run_cleanly(tmp_path, monkeypatch, stage):
    from validator.instructor import classroom
    subs = tmp_path / "subs"
    (subs / "hank").mkdir(parents=True)  # nothing to grade: from finding straight to the flags

    def interrupted(*args):
        raise KeyboardInterrupt

    monkeypatch.setattr(classroom, stage, interrupted)
    try:
        code, printed = _grade_here(subs, tmp_path / "out")
    except KeyboardInterrupt:
        pytest.fail("Ctrl-C escaped the run: a traceback")
    assert code == 130 and "run the same command again" in printed


def test_a_missing_or_file_submissions_path_is_said_so_and_makes_no_out_folder(tmp_path):
    from validator.instructor.classroom import grade_class as grade
    from validator.lessons import LessonError, load_lesson
    (tmp_path / "alice.py").write_text("", encoding="utf-8")
    for path, said in ((tmp_path / "nowhere", "no such folder"), (tmp_path / "alice.py", "is a file, not a folder")):
        with pytest.raises(LessonError, match=said):
            grade(load_lesson("day06"), path, tmp_path / "out", 0, 1, "en", None)
    assert not (tmp_path / "out").exists()


def test_jobs_below_one_are_refused_and_every_argument_is_explained(tmp_path):
    subs = tmp_path / "subs"
    subs.mkdir()
    for jobs in ("0", "-3"):
        done = grade_class(subs, tmp_path / "out", "--jobs", jobs)
        assert done.returncode == 2 and "--jobs" in done.stderr
    helped = subprocess.run([sys.executable, "validate.py", "grade", "--help"], cwd=ROOT, capture_output=True,
                            text=True, env=dict(os.environ, COLUMNS="200")).stdout
    for argument in ("lesson", "--allow-unisolated", "--lang"):
        line = next(line for line in helped.splitlines() if line.strip().startswith(argument))
        assert len(line.split()) > 2, line  # the argument, then what it is for


class Tables(HTMLParser):
    """A page's tables as rows of cell texts, the links in each cell, and the SVG's texts."""

    def __init__(self, page: str):
        super().__init__()
        self.tables, self.links, self.svg_texts, self.classes = [], {}, [], []
        self._cell = self._in_svg_text = None
        self.feed(page)

    def handle_starttag(self, tag, attrs):
        attrs = dict(attrs)
        self.classes.append(attrs.get("class"))
        if tag == "table":
            self.tables.append([])
        elif tag == "tr":
            self.tables[-1].append([])
        elif tag in ("td", "th"):
            self._cell = []
            self.tables[-1][-1].append(self._cell)
        elif tag == "a":
            self._href = attrs["href"]
        elif tag == "text":
            self._in_svg_text = True

    def handle_endtag(self, tag):
        if tag in ("td", "th"):
            row = self.tables[-1][-1]
            row[-1] = "".join(self._cell).strip()
            self._cell = None
        elif tag == "text":
            self._in_svg_text = False

    def handle_data(self, data):
        if self._cell is not None:
            self._cell.append(data)
            if self.lasttag == "a":
                self.links[data] = self._href
        elif self._in_svg_text:
            self.svg_texts.append(data)


def test_the_summary_page_counts_links_each_student_and_sets_flags_apart_from_notes():
    from validator.instructor import gradebooks
    from validator.lessons import load_lesson
    lesson = load_lesson("day06")
    points = {"1.2": 2, "1.3": 3, "2.1": 4, "3.1": 6, "4.1": 8}

    def record(student: str, score: int, status: str, problem: str = "", flags=(), notes=(), folder=None) -> dict:
        unscored = status in ("missing", "grader failed")
        todos = {t: [n if score else 0, n] for t, n in points.items()}
        checks = []
        if score == 15:  # the loop never stops: TODO 4.1 lost
            todos["4.1"] = [0, 8]
            checks = [{"todo": "4.1", "passed": False, "message": "the model was called 25 times\nmore"}]
        return {"student": student, "folder": folder or student, "score": score, "max": None if unscored else 23,
                "status": status, "problem": problem, "todos": {} if unscored else todos, "checks": checks,
                "flags": list(flags), "notes": list(notes)}

    records = [record("ann", 23, "graded", flags=["same code as eve"]), record("ben", 15, "graded"),
               record("cat", 0, "syntax error", notes=["untouched template"]),
               record("dan", 0, "missing", "bad zip: truncated"), record("zoë b", 23, "graded", folder="zoë_b-1a2b3c4d")]
    summary = gradebooks.class_summary(lesson, records, points, "note: these grades are at seed 0")
    page_text = gradebooks.summary_html(lesson, summary, records, [], "en")
    assert "<title>90–100%: 2</title>" in page_text  # full marks are in the top bar, as on the terminal
    assert "mean 15.2 of 23" in page_text and "3 graded · 1 syntax error · 1 missing" in page_text
    assert "the mean is over the 4 scored" in page_text
    page = Tables(page_text)
    assert page.svg_texts == [str(n) if i % 2 == 0 else f"{i // 2 * 10}%"  # each bar's count, then its label
                              for i, n in enumerate(x for b in (1, 0, 0, 0, 0, 0, 1, 0, 0, 2) for x in (b, b))]
    todos, students = page.tables
    assert todos[0] == ["TODO", "points", "passed", "most common failures"]
    assert todos[5] == ["4.1 the agent loop", "8", "2/4", "1× the model was called 25 times"]
    assert todos[1][:3] == ["1.2 describe the tools", "2", "3/4"]
    assert students[0] == ["student", "score", "status", "flags", "notes"]
    by_name = {row[0]: row for row in students[1:]}
    assert by_name["ann"] == ["ann", "23/23", "graded", "⚑ same code as eve", ""]
    assert by_name["cat"] == ["cat", "0/23", "syntax error", "", "untouched template"]
    assert by_name["dan"] == ["dan", "0/23", "missing", "", "bad zip: truncated"]  # the lesson's max
    assert page.links == {"ann": "students/ann/feedback.txt", "ben": "students/ben/feedback.txt",
                          "cat": "students/cat/feedback.txt", "zoë b": "students/zo%C3%AB_b-1a2b3c4d/feedback.txt"}
    assert "warn" in page.classes and "note: these grades are at seed 0" in page_text
    assert "warn" not in Tables(gradebooks.summary_html(lesson, gradebooks.class_summary(lesson, records, points),
                                                       records, [], "en")).classes


@pytest.mark.slow
def test_a_students_file_name_cannot_steer_the_terminal_or_a_spreadsheet(tmp_path):
    subs = tmp_path / "subs"
    subs.mkdir()
    shutil.copy(ROOT / "solutions" / "day06.py", subs / "ev\x1b[2Jil.py")  # clears the instructor's screen
    shutil.copy(CORPUS / "bad_returns_none.py", subs / '=HYPERLINK("http:x").py')  # a formula, in a spreadsheet
    # a formula after a ";": where Excel's list separator is ";" (most of Europe) it splits cells there
    shutil.copy(CORPUS / "bad_returns_none.py", subs / "x;=1+1;.py")
    done = grade_class(subs, tmp_path / "out")
    assert done.returncode == 0, done.stderr
    assert "\x1b" not in done.stdout + done.stderr and "ev\\x1b[2Jil" in done.stdout
    table = (tmp_path / "out" / "grades.csv").read_text(encoding="utf-8")
    assert '"\'=HYPERLINK(""http:x"")"' in table and "\n=" not in table and '\n"=' not in table
    assert '\n"x;=1+1;",' in table  # one quoted cell, whatever the separator a spreadsheet splits on
    single = subprocess.run([sys.executable, "validate.py", "day06", "--file", str(subs / "ev\x1b[2Jil.py")],
                            cwd=ROOT, capture_output=True, text=True, timeout=300)
    assert "\x1b" not in single.stdout and "ev\\x1b[2Jil.py" in single.stdout


@pytest.mark.slow
def test_a_student_who_keeps_the_grader_busy_is_stopped_and_timed_out(tmp_path, monkeypatch):
    # The grader's own time is bounded per student (REACTLINGS_STUDENT_SECONDS, 600 by default):
    # here 2 s, which a file that hangs outlasts (each hang waits out a 3 s call limit). A student
    # without a file needs no grading: the run goes on to the end.
    subs = tmp_path / "subs"
    (subs / "empty").mkdir(parents=True)
    shutil.copy(CORPUS / "bad_sleep_forever.py", subs / "slow.py")
    monkeypatch.setenv("REACTLINGS_STUDENT_SECONDS", "2")
    done = grade_class(subs, tmp_path / "out")
    assert done.returncode == 0, done.stderr
    table = rows(tmp_path / "out")
    assert table["slow"]["status"] == "timed out" and "grader's own time" in table["slow"]["flags"]
    assert table["empty"]["status"] == "missing"
    assert "grader's own time" in (tmp_path / "out" / "students" / "slow" / "feedback.txt").read_text(encoding="utf-8")
    assert processes.gone(str(subs))
    again = grade_class(subs, tmp_path / "out")
    assert again.stdout.splitlines()[-1].startswith("0 graded, 1 unchanged")  # the student's doing: kept


# ---------------------------------------------------------------- seeds and spreadsheets, as instructors meet them

SECRET = "18446744073709551629"  # above 2**64: no note that it is short enough to guess


@pytest.mark.slow
def test_grades_csv_opens_in_a_spreadsheet_and_a_run_without_a_secret_seed_says_it_is_at_seed_0(tmp_path):
    # Excel (2007 on) opens a CSV by double-click as UTF-8 only when it starts with a BOM, else in the
    # local code page: a Chinese name is mojibake (stackoverflow.com/questions/155097, "Microsoft
    # Excel mangles diacritics in .csv files"). Python's csv reads it with encoding="utf-8-sig".
    subs = tmp_path / "subs"
    subs.mkdir()
    for name, source in (("Carol", "good_regex.py"), ("bob", "bad_while_true.py"), ("张伟", "good_separators.py")):
        shutil.copy(CORPUS / source, subs / f"{name}.py")
    (subs / "ann").mkdir()  # nothing in it: missing
    out = tmp_path / "out"
    done = grade_class(subs, out)
    assert done.returncode == 0, done.stderr
    note = "these grades are at seed 0, the learners' own numbers: no secret seed was given"
    assert note in done.stdout.splitlines()[0]  # before the grading starts
    assert note in done.stdout.split("students, mean")[1]  # and again in the summary
    assert note in html.unescape((out / "summary.html").read_text(encoding="utf-8"))
    raw = (out / "grades.csv").read_bytes()
    todos = ",".join(f"TODO {todo} (/{points})" for todo, points in day06_points().items())
    assert raw.startswith(f"\ufeffstudent,score,max,{todos},status,seconds,flags\n".encode())
    table = list(csv.DictReader(io.StringIO(raw.decode("utf-8-sig"))))
    assert [row["student"] for row in table] == ["ann", "bob", "Carol", "张伟"]  # as people sort names
    assert all(row["max"] == str(sum(day06_points().values())) for row in table)  # the missing ann too
    assert (table[0]["status"], table[0]["score"]) == ("missing", "0")
    book = json.loads((out / "grades.json").read_text(encoding="utf-8"))
    assert (book["max"], book["todos"]) == (sum(day06_points().values()), day06_points())
    assert [s["student"] for s in book["students"]] == ["ann", "bob", "Carol", "张伟"]

    secret = tmp_path / "seed"
    secret.write_text(SECRET + "\n", encoding="utf-8")
    quiet = grade_class(subs, tmp_path / "secret", "--seed-file", str(secret))
    assert quiet.returncode == 0, quiet.stderr
    assert "seed 0" not in quiet.stdout and "seed 0" not in (tmp_path / "secret" / "summary.html").read_text(
        encoding="utf-8")


@pytest.mark.slow
def test_a_folder_graded_with_another_seed_is_refused_unless_reseed(tmp_path):
    subs = tmp_path / "subs"
    subs.mkdir()
    shutil.copy(CORPUS / "good_regex.py", subs / "alice.py")
    secret, other = tmp_path / "secret", tmp_path / "other"
    secret.write_text(SECRET + "\n", encoding="utf-8")
    other.write_text(str(int(SECRET) + 1) + "\n", encoding="utf-8")
    out = tmp_path / "out"
    assert grade_class(subs, out, "--seed-file", str(secret)).returncode == 0
    graded = {p: p.read_bytes() for p in out.rglob("*") if p.is_file()}
    assert not [p for p, text in graded.items() if SECRET.encode() in text]  # the seed is in no output
    forgot = grade_class(subs, out)  # the instructor forgot the secret: seed 0
    assert forgot.returncode == 2 and "graded earlier with a different seed" in forgot.stderr
    assert "this run: seed 0, the learners' own numbers" in forgot.stderr and "--reseed" in forgot.stderr
    assert SECRET not in forgot.stdout + forgot.stderr and "Traceback" not in forgot.stderr
    assert {p: p.read_bytes() for p in out.rglob("*") if p.is_file()} == graded  # nothing regraded or rewritten
    wrong = grade_class(subs, out, "--seed-file", str(other))
    assert wrong.returncode == 2 and "a seed with fingerprint" in wrong.stderr and SECRET[:8] not in wrong.stderr
    assert grade_class(subs, out, "--seed-file", str(secret)).stdout.splitlines()[-1].startswith("0 graded, 1 unchanged")
    reseeded = grade_class(subs, out, "--reseed")
    assert reseeded.returncode == 0 and reseeded.stdout.splitlines()[-1].startswith("1 graded, 0 unchanged")
    again = grade_class(subs, out, "--seed-file", str(secret))
    assert again.returncode == 2 and "graded earlier with a different seed (seed 0, the learners' own" in again.stderr
