"""Grade a whole class: `python validate.py grade day06 SUBMISSIONS --out GRADES`.

SUBMISSIONS holds one `.py` file per student, or one folder or `.zip` per student with the lesson's
exercise file inside; the student's name is the file's or folder's name. GRADES receives:

    grades.csv                one row per student: score, max, one column per TODO, status, seconds
    grades.json               every check of every student, with its message
    summary.html              the class at a glance (self-contained: no script, no network)
    students/NAME/results.json     Gradescope's format
    students/NAME/feedback.txt     the report the student would see (--lang)
    students/NAME/record.json      what the row was made from, with the key that says when to regrade

Every file is written whole and renamed into place as soon as its student is graded. Stopping the
run and starting it again grades only the students whose file, lesson or seed changed (the key).
Workers stay warm (see Workers): the grader and the checks are loaded once per worker, and each
submission's sandboxed child starts as a fork of a ready sandbox. The same inputs give the same
bytes, but for the `seconds` column, which is measured.
"""
from __future__ import annotations

import csv
import hashlib
import html
import io
import json
import multiprocessing
import multiprocessing.connection
import os
import re
import signal
import sys
import tempfile
import time
import tokenize
import zipfile
from collections import Counter
from dataclasses import dataclass
from pathlib import Path

import pytest
from rich.console import Console
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn
from rich.table import Table

from . import forkserver, jail, jailer
from .checking import LOAD_FAILURE
from .lessons import Lesson, LessonError, load_lesson, say
from .report import clean, failure_text, gradescope, print_report, write_atomically
from .runner import read_source

ZIP_LIMIT = 5 * 1024 * 1024  # bytes a student's zip may unpack to
STATUS_BY_KEY = {"import_syntax": "syntax error", "import_hang": "timed out", "import_died": "crashed",
                 "import_flood": "crashed", "import_failed": "crashed", "import_input": "crashed",
                 "loads_model": "crashed"}


@dataclass
class Entry:
    """One student's submission as found: the file to grade, or why there is none."""
    student: str
    path: Path | None
    problem: str = ""  # why there is no file to grade: missing, unreadable, bad zip, duplicate name


# ---------------------------------------------------------------- finding the submissions

def find_submissions(folder: Path, lesson: Lesson, unpack_to: Path, out: Path) -> list[Entry]:
    if not folder.is_dir():
        raise LessonError("no_such_folder", path=folder)
    wanted = lesson.exercise.name
    entries: dict[str, Entry] = {}
    for item in sorted(folder.iterdir()):
        if item.name.startswith(".") or item.resolve() == out.resolve():  # the gradebook, kept among them
            continue
        student = item.stem if item.is_file() else item.name
        if item.is_file() and item.suffix == ".py":
            entry = Entry(student, item)
        elif item.is_file() and item.suffix == ".zip":
            entry = _unzip(item, unpack_to / student, wanted)
        elif item.is_dir():
            entry = _pick(item, student, wanted)
        else:
            continue
        if entry.path is not None:
            try:
                entry.path.read_bytes()
            except OSError as error:
                entry = Entry(student, None, f"unreadable: {error.strerror}")
        if student in entries:
            entries[student] = Entry(student, None, "duplicate name: two submissions for this student")
            continue
        entries[student] = entry
    return list(entries.values())


def _pick(folder: Path, student: str, wanted: str) -> Entry:
    """The lesson's exercise file in a student's folder (at any depth), else its only .py file."""
    found = sorted(folder.rglob(wanted)) or sorted(p for p in folder.rglob("*.py") if "__MACOSX" not in p.parts)
    if len(found) == 1 or (found and found[0].name == wanted):
        return Entry(student, found[0])
    return Entry(student, None, f"missing: no {wanted} in the folder" if not found else
                 f"missing: several .py files and no {wanted}")


def _unzip(archive: Path, target: Path, wanted: str) -> Entry:
    student = archive.stem
    try:
        with zipfile.ZipFile(archive) as bundle:
            members = [m for m in bundle.infolist() if not m.is_dir()]
            if sum(m.file_size for m in members) > ZIP_LIMIT:
                return Entry(student, None, "bad zip: unpacks to more than 5 MB")
            for member in members:  # by hand: no member may land outside the target folder
                name = Path(member.filename)
                if name.is_absolute() or ".." in name.parts:
                    return Entry(student, None, f"bad zip: unsafe path {member.filename!r}")
                destination = target / name
                destination.parent.mkdir(parents=True, exist_ok=True)
                destination.write_bytes(bundle.read(member))
    except (zipfile.BadZipFile, OSError, RuntimeError, EOFError) as error:
        return Entry(student, None, f"bad zip: {error}")
    if not target.exists():
        return Entry(student, None, "missing: the zip is empty")
    return _pick(target, student, wanted)


# ---------------------------------------------------------------- grading, in warm workers

class Workers:
    """The grading processes of a run, and which students each holds. Each worker is warm: it
    imports the grader, pytest and the mock once, collects the checks once (one pytest session),
    and starts its children from a fork server (forkserver.py). It holds at most AHEAD students:
    the one it grades and the next, whose child starts meanwhile. It saves each student's files as
    soon as they are graded; a worker that dies costs the student it was grading, no more."""

    AHEAD = 2

    def __init__(self, lesson: Lesson, todo: list[tuple[Entry, str]], out: Path, seed: int, lang: str, jobs: int):
        # fork where there is fork: a worker then starts with the grader imported already
        self.context = multiprocessing.get_context("fork" if sys.platform == "linux" else "spawn")
        self.settings = (str(lesson.folder), seed, lang, str(out), jail.required, os.getpid())
        self.waiting, self.out = list(reversed(todo)), out
        self.workers = [self._start() for _ in range(max(1, min(jobs, len(todo))))]

    def _start(self) -> dict:
        pipe, theirs = self.context.Pipe()
        process = self.context.Process(target=work, args=(*self.settings, theirs), daemon=True)
        process.start()
        theirs.close()
        worker = {"pipe": pipe, "process": process, "holds": [], "told_to_end": False}
        self._fill(worker)
        return worker

    def _fill(self, worker: dict) -> None:
        while len(worker["holds"]) < self.AHEAD and not worker["told_to_end"]:
            if not self.waiting:
                worker["pipe"].send(None)  # nothing more: end after what it holds
                worker["told_to_end"] = True
                break
            entry, key = self.waiting.pop()
            worker["holds"].append((entry, key))
            worker["pipe"].send((entry.student, str(entry.path), key))

    def graded(self):
        """Each student's record, as soon as it is saved."""
        while busy := [w for w in self.workers if w["holds"]]:
            ready = multiprocessing.connection.wait([w["pipe"] for w in busy] + [w["process"].sentinel for w in busy])
            for worker in busy:
                if worker["pipe"] in ready or worker["pipe"].poll():
                    try:
                        student, record = worker["pipe"].recv()
                    except EOFError:  # it died as it wrote
                        yield self._died(worker)
                        continue
                    if student is None:  # a broken lesson, not a student's doing
                        self.stop()
                        raise LessonError(record["key"], **record["params"])
                    worker["holds"].pop(0)
                    self._fill(worker)
                    yield student, record
                elif worker["process"].sentinel in ready:
                    yield self._died(worker)
        for worker in self.workers:
            worker["process"].join()

    def stop(self) -> None:
        for worker in self.workers:
            worker["process"].kill()  # its fork server and children go with it
            worker["process"].join()

    def _died(self, worker: dict) -> tuple[str, dict]:
        """A worker died: the student it was grading is said to have crashed the grader, the next
        it held goes back in line, and a new worker takes its place."""
        (entry, key), *rest = worker["holds"]
        worker["holds"] = []
        self.waiting.extend(reversed(rest))
        worker["process"].join()
        error = RuntimeError(f"the grading process died (exit status {worker['process'].exitcode})")
        record = _save_student(self.out, entry.student, key, grader_failed(error))
        self.workers[self.workers.index(worker)] = self._start() if self.waiting else worker
        return entry.student, record


def work(lesson_ref: str, seed: int, lang: str, out: str, required: bool, run: int, pipe) -> None:
    """A worker: one pytest session grading each file the run sends, until it sends None."""
    from mock_llm import load_world

    from .grading import Collector, run_checks
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # Ctrl-C is the run's to handle: it stops the workers
    if sys.platform == "linux":
        jailer.die_with(run, 0)  # a run that is killed takes its workers with it
    jail.required = required
    jail.unavailable_reason()  # probed now, while this process has one thread: forking is safe
    lesson = load_lesson(lesson_ref)
    server = forkserver.ForkServer(forkserver.imports_of(lesson.exercise, lesson.solution)) \
        if forkserver.available() else None
    collector = Collector(lesson, None, load_world(lesson.folder, seed))
    try:
        run_checks(lesson, collector, GradingLoop(lesson, collector, pipe, Path(out), lang, server))
    except LessonError as error:  # the lesson's checks can't run at all: the run says so, once
        pipe.send((None, {"key": error.key, "params": error.params}))
    finally:
        if server:
            server.close()


class GradingLoop:
    """A worker's pytest plugin: the checks are collected once, then run on each file in turn, the
    next file's child starting while the current one is graded."""

    def __init__(self, lesson: Lesson, collector, pipe, out: Path, lang: str, server):
        self.lesson, self.collector, self.pipe, self.out, self.lang, self.server = (
            lesson, collector, pipe, out, lang, server)

    @pytest.hookimpl(tryfirst=True)
    def pytest_runtestloop(self, session):
        from .grading import checks_loaded, run_items
        if not checks_loaded(session):
            return None
        upcoming = self._next()
        while upcoming:
            (student, path, key), child = upcoming
            upcoming = self._next()
            try:
                result = summarise(run_items(session.items, self.collector, child, Path(path)), self.lang)
            except Exception as error:  # the grader itself failed on this file: say so, go on
                result = grader_failed(error)
            self.pipe.send((student, _save_student(self.out, student, key, result)))
        return True

    def _next(self):
        from .grading import open_submission
        task = self.pipe.recv()
        if task is None:
            return None
        child = open_submission(self.lesson, self.collector.scenario_world, Path(task[1]), forkserver=self.server)
        child.spawn(load=False)
        return task, child


def grader_failed(error: Exception) -> dict:
    """The record of a file the grader itself could not grade: crashed, and why."""
    return {"score": 0, "max": None, "status": "crashed", "checks": [],
            "problem": f"the grader failed: {type(error).__name__}: {error}"}


def summarise(result, lang: str) -> dict:
    """One graded file as plain data: score, status, every check with its message, the reports."""
    lesson = result.lesson
    checks = []
    for check in result.checks:
        checks.append({"name": check.name, "todo": check.todo, "points": check.points,
                       "title": check.title[lang], "passed": check.passed,
                       "key": check.failure.key if check.failure else None,
                       "cause": check.failure.cause if check.failure else None,
                       "message": failure_text(check, result, lang)})
    failures = [c for c in result.checks if not c.passed and c.failure]
    status = "graded"
    if failures and all(c.failure.cause == LOAD_FAILURE for c in failures):
        status = STATUS_BY_KEY.get(failures[0].failure.key, "crashed")
    feedback = io.StringIO()
    print_report(result, lang, f"python validate.py {lesson.name}", show_seed=False, console=Console(
        file=feedback, width=100, highlight=False, color_system=None, soft_wrap=True))
    return {"score": result.score, "max": result.max_score, "status": status,
            "seconds": round(result.seconds, 2), "checks": checks,
            "todos": {t.id: list(result.todo_score(t.id)) for t in lesson.todos},
            "gradescope": gradescope(result, lang), "feedback": feedback.getvalue()}


def lesson_version(lesson: Lesson) -> str:
    """A hash of everything of the lesson that decides a grade: a change means regrade."""
    digest = hashlib.sha256()
    for path in sorted(p for p in lesson.folder.rglob("*") if p.is_file() and "__pycache__" not in p.parts):
        digest.update(path.name.encode() + b"\0" + path.read_bytes())
    kit = Path(__file__).resolve().parent.parent
    for part in ("validator", "mock_llm"):
        for path in sorted((kit / part).glob("*.py")):
            digest.update(path.name.encode() + b"\0" + path.read_bytes())
    return digest.hexdigest()[:16]


def submission_key(path: Path, version: str, seed: int, lang: str) -> str:
    return hashlib.sha256(path.read_bytes() + f"\0{version}\0{seed}\0{lang}".encode()).hexdigest()[:24]


def _student_folder(out: Path, student: str) -> Path:
    safe = re.sub(r"[^\w.@+-]", "_", student) or "_"
    return out / "students" / safe


# ---------------------------------------------------------------- flags for the instructor

def normalised(source: str) -> str:
    """The code without comments, docstrings' layout or blank lines: to spot copies."""
    try:
        tokens = [t for t in tokenize.generate_tokens(io.StringIO(source).readline)
                  if t.type not in (tokenize.COMMENT, tokenize.NL, tokenize.NEWLINE, tokenize.INDENT,
                                    tokenize.DEDENT, tokenize.ENCODING)]
    except (tokenize.TokenError, IndentationError, SyntaxError):
        return re.sub(r"\s+", "", re.sub(r"#.*", "", source))
    return " ".join(t.string for t in tokens)


def flags(entries: list[Entry], lesson: Lesson) -> dict[str, list[str]]:
    """student -> reasons to look at the submission by hand."""
    found: dict[str, list[str]] = {}
    texts = {e.student: read_source(e.path) for e in entries if e.path}
    reference = normalised(read_source(lesson.solution)) if lesson.solution.is_file() else None
    groups: dict[str, list[str]] = {}
    for student, text in texts.items():
        shape = normalised(text)
        groups.setdefault(shape, []).append(student)
        if reference is not None and shape == reference:
            found.setdefault(student, []).append("same as the reference solution")
        if "BEGIN SOLUTION" in text or "END SOLUTION" in text:
            found.setdefault(student, []).append("contains the solution markers")
    for students in groups.values():
        for student in students if len(students) > 1 else []:
            others = ", ".join(s for s in students if s != student)
            found.setdefault(student, []).append(f"same code as {others}")
    return found


# ---------------------------------------------------------------- the run

def grade_class(lesson: Lesson, submissions: Path, out: Path, seed: int, jobs: int, lang: str,
                console: Console) -> int:
    started = time.monotonic()
    out.mkdir(parents=True, exist_ok=True)  # a place that can't take the results: said before grading
    version = lesson_version(lesson)
    with tempfile.TemporaryDirectory(prefix="reactlings-unzipped-") as unpacked:
        entries = find_submissions(submissions, lesson, Path(unpacked), out)
        records: dict[str, dict] = {}
        todo: list[tuple[Entry, str]] = []
        for entry in entries:
            if entry.path is None:
                records[entry.student] = {"student": entry.student, "status": "missing",
                                          "problem": entry.problem, "score": 0, "max": None}
                continue
            key = submission_key(entry.path, version, seed, lang)
            cached = _read_record(_student_folder(out, entry.student) / "record.json")
            if cached and cached.get("key") == key:
                records[entry.student] = cached
            else:
                todo.append((entry, key))
        workers = Workers(lesson, todo, out, seed, lang, jobs) if todo else None  # before the bar's thread
        graded_now = 0
        try:
            with _progress(console, lang, len(todo)) as (progress, task):
                for student, record in workers.graded() if workers else ():
                    records[student] = record
                    graded_now += 1
                    progress.advance(task)
        except KeyboardInterrupt:  # what is graded is saved: a second run grades the rest
            if workers:
                workers.stop()
            console.print(say("class_stopped", lang, graded=graded_now, left=len(todo) - graded_now), markup=False)
            return 130
        flagged = flags(entries, lesson)
    ordered = [records[s] for s in sorted(records)]
    _write_gradebooks(out, lesson, ordered, flagged)
    summary = class_summary(lesson, ordered)
    write_atomically(out / "summary.html", summary_html(lesson, summary, ordered, flagged))
    print_summary(console, lesson, summary, flagged, lang)
    console.print(say("class_done", lang, graded=len(todo), reused=len(entries) - len(todo) - sum(
        1 for e in entries if e.path is None), missing=sum(1 for e in entries if e.path is None),
        seconds=f"{time.monotonic() - started:.1f}", out=out), markup=False)
    return 0


class _progress:
    """A rich progress bar on a terminal; nothing when there is nothing to grade or no terminal."""

    def __init__(self, console: Console, lang: str, total: int):
        self.bar = Progress(TextColumn(say("class_grading", lang)), BarColumn(), MofNCompleteColumn(),
                            TimeElapsedColumn(), console=console, disable=not console.is_terminal or not total)
        self.total = total

    def __enter__(self):
        self.bar.__enter__()
        return self.bar, self.bar.add_task("grading", total=self.total)

    def __exit__(self, *exc):
        return self.bar.__exit__(*exc)


def _read_record(path: Path) -> dict | None:
    try:
        record = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    return record if isinstance(record, dict) else None


def _save_student(out: Path, student: str, key: str, result: dict) -> dict:
    folder = _student_folder(out, student)
    folder.mkdir(parents=True, exist_ok=True)
    if "gradescope" in result:
        write_atomically(folder / "results.json", json.dumps(result["gradescope"], ensure_ascii=False, indent=2) + "\n")
        write_atomically(folder / "feedback.txt", result["feedback"])
    record = {"student": student, "key": key, **{k: v for k, v in result.items() if k not in ("gradescope", "feedback")}}
    write_atomically(folder / "record.json", json.dumps(record, ensure_ascii=False, indent=1, sort_keys=True) + "\n")
    return record


def _write_gradebooks(out: Path, lesson: Lesson, records: list[dict], flagged: dict) -> None:
    todo_ids = [t.id for t in lesson.todos]
    table = io.StringIO()
    writer = csv.writer(table, lineterminator="\n")
    writer.writerow(["student", "score", "max", *(f"TODO {t}" for t in todo_ids), "status", "seconds", "flags"])
    for record in records:
        todos = record.get("todos") or {}
        writer.writerow([record["student"], record["score"], record.get("max") or "",
                         *(todos.get(t, ["", ""])[0] for t in todo_ids), record["status"],
                         record.get("seconds", ""),
                         "; ".join(flagged.get(record["student"], []) + ([record["problem"]] if record.get("problem") else []))])
    write_atomically(out / "grades.csv", table.getvalue())
    write_atomically(out / "grades.json", json.dumps(
        {"lesson": lesson.name, "students": [dict(r, flags=flagged.get(r["student"], [])) for r in records]},
        ensure_ascii=False, indent=1, sort_keys=True) + "\n")


# ---------------------------------------------------------------- the class at a glance

def class_summary(lesson: Lesson, records: list[dict]) -> dict:
    graded = [r for r in records if r.get("max")]
    maximum = max((r["max"] for r in graded), default=0)
    buckets = Counter(min(9, int(10 * r["score"] / r["max"])) if r["max"] else 0 for r in graded)
    todos = []
    for todo in lesson.todos:
        failing = [r for r in graded if (r.get("todos") or {}).get(todo.id, [0, 0])[0]
                   < (r.get("todos") or {}).get(todo.id, [0, 0])[1]]
        messages = Counter(message for r in failing for message in  # each student counted once
                           {c["message"].splitlines()[0] for c in r.get("checks", [])
                            if c["todo"] == todo.id and not c["passed"] and c["message"]})
        common = sorted(messages.items(), key=lambda item: (-item[1], item[0]))[:3]  # ties: same order always
        todos.append({"id": todo.id, "title": todo.title, "failed": len(failing), "common": common})
    return {"students": len(records), "graded": len(graded), "max": maximum,
            "distribution": [buckets.get(i, 0) for i in range(10)],
            "statuses": Counter(r["status"] for r in records), "todos": todos,
            "mean": round(sum(r["score"] for r in graded) / len(graded), 1) if graded else 0}


def print_summary(console: Console, lesson: Lesson, summary: dict, flagged: dict, lang: str) -> None:
    console.print(say("class_header", lang, name=lesson.name, students=summary["students"],
                      mean=summary["mean"], max=summary["max"]), style="bold", markup=False)
    peak = max(summary["distribution"]) or 1
    for index, count in enumerate(summary["distribution"]):
        console.print(f"  {index * 10:3d}–{index * 10 + 9 if index < 9 else 100:3d}%  "
                      f"{'█' * round(20 * count / peak):20} {count}", markup=False)
    table = Table(box=None, pad_edge=False)
    for column in ("TODO", say("class_failed", lang), say("class_common", lang)):
        table.add_column(column)
    for todo in summary["todos"]:
        common = "\n".join(f"{n}× {clean(m, 90)}" for m, n in todo["common"])
        table.add_row(f"{todo['id']} {todo['title'][lang]}", str(todo["failed"]), common)
    console.print(table)
    for student, reasons in sorted(flagged.items()):
        console.print(f"⚑ {student}: {'; '.join(reasons)}", style="yellow", markup=False)


def summary_html(lesson: Lesson, summary: dict, records: list[dict], flagged: dict) -> str:
    """One page, no script and nothing fetched: bars are inline SVG."""
    e = html.escape
    peak = max(summary["distribution"]) or 1
    bars = "".join(
        f'<rect x="{i * 36 + 4}" y="{150 - 140 * n / peak:.1f}" width="30" height="{140 * n / peak:.1f}" '
        f'fill="#4a7"><title>{i * 10}–{i * 10 + 9}%: {n}</title></rect>'
        f'<text x="{i * 36 + 19}" y="166" font-size="10" text-anchor="middle">{i * 10}%</text>'
        for i, n in enumerate(summary["distribution"]))
    rows = "".join(
        f"<tr><td>{e(t['id'])} {e(t['title']['en'])}</td><td>{t['failed']}</td><td>"
        + "<br>".join(f"{n}× {e(m)}" for m, n in t["common"]) + "</td></tr>" for t in summary["todos"])
    students = "".join(
        f"<tr><td>{e(r['student'])}</td><td>{r['score']}/{r.get('max') or '–'}</td><td>{e(r['status'])}</td>"
        f"<td>{e('; '.join(flagged.get(r['student'], [])) or r.get('problem', ''))}</td></tr>" for r in records)
    return f"""<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8"><title>{e(lesson.name)} · class summary</title>
<style>body{{font-family:sans-serif;margin:2em;max-width:60em}}table{{border-collapse:collapse}}
td,th{{border:1px solid #ccc;padding:.3em .6em;vertical-align:top;text-align:left}}</style></head>
<body><h1>{e(lesson.name)} · {e(lesson.title['en'])}</h1>
<p>{summary['students']} students, {summary['graded']} graded, mean {summary['mean']} of {summary['max']}.</p>
<h2>Score distribution</h2>
<svg width="370" height="175" role="img" aria-label="score distribution">{bars}</svg>
<h2>Per TODO</h2><table><tr><th>TODO</th><th>failed</th><th>most common failures</th></tr>{rows}</table>
<h2>Students</h2><table><tr><th>student</th><th>score</th><th>status</th><th>notes</th></tr>{students}</table>
</body></html>
"""
