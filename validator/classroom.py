"""Grade a whole class: `python validate.py grade day06 SUBMISSIONS --out GRADES`.

SUBMISSIONS holds one `.py` file per student, or one folder or `.zip` per student with the lesson's
exercise file inside; the student's name is the file's or folder's name. GRADES receives:

    grades.csv                one row per student: score, max, one column per TODO, status, seconds, flags
                              (UTF-8 with a BOM, which Excel needs to read names that are not ASCII)
    grades.json               every check of every student, with its message and the file graded
    summary.html              the class at a glance (self-contained: no script, no network)
    .seed-fingerprint         a digest of the seed (never the seed): a run with another one is refused
    students/FOLDER/results.json     Gradescope's format
    students/FOLDER/feedback.txt     the report the student would see (--lang)
    students/FOLDER/record.json      what the row was made from, with the key that says when to regrade
                                     and the autograder's own results.json and feedback.txt

and applies the instructor's overrides.csv there, if any (overrides.py).

FOLDER is the student's name, or, when that is no safe file name or is another student's but for
case, the name made safe plus a hash of it. Each file is graded where it lies, as a single run
grades it (a zip's once unpacked in a temporary folder), and every output names it by its path in
SUBMISSIONS (`alice.py`, `erin/work/day06.py`, `zed.zip:day06.py`), never by where it was read.

Every file is written whole and renamed into place as soon as its student is graded. Stopping the
run and starting it again grades only the students whose file or any other input of their outputs
changed (the key), or whose outputs are gone; a failure of the grader itself is never kept. Workers
stay warm (see Workers): the grader and the checks are loaded once per worker, and each
submission's sandboxed child starts as a fork of a ready sandbox. The same inputs give the same
bytes, from any working folder, but for the `seconds` column, which is measured.

With `--shard K/N` a run grades only its share of the class, and saves what `merge` needs in
place of the gradebooks; merge ends as a run does, in finish_class (shards.py).
"""
from __future__ import annotations

import csv
import hashlib
import html
import importlib.metadata
import io
import json
import multiprocessing
import multiprocessing.connection
import os
import re
import signal
import stat
import sys
import tempfile
import time
import tokenize
import unicodedata
import urllib.parse
import zipfile
import zlib
from collections import Counter
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path

import pytest
from rich.console import Console
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn
from rich.table import Table

from mock_llm import DEFAULT_SEED

from . import forkserver, jail, jailer
from .lessons import Lesson, LessonError, load_lesson, say
from .outcomes import Status
from .report import clean, failure_text, gradescope, load_failure, report_text
from .runner import open_submission, read_source
from .wire import printable
from .workspace import write_atomically

FILE_LIMIT = 1024 * 1024  # bytes of a file to grade: an exercise is far smaller, and every run reads it
ZIP_LIMIT = 5 * 1024 * 1024  # bytes the candidate files of a student's zip may unpack to
SKIPPED = ("__MACOSX", "__pycache__")  # folders that hold no one's work, as hidden ones (.git, .venv)
GRADEBOOK = {"grades.csv", "grades.json", "summary.html", "students", "overrides.csv"}  # what --out holds
SEED_FINGERPRINT = ".seed-fingerprint"  # in --out: which seed its grades are at
RUNTIME = ("pytest", "rich", "openai", "jsonschema", "PyYAML")  # run the checks, render the feedback


@dataclass
class Entry:
    """One student's submission as found: the file to grade, or why there is none."""
    student: str  # the name, printable (undecodable bytes as \\xff); one of several under a name: the file's (distinct_name)
    folder: str  # theirs under students/ (folder_names)
    shown: str = ""  # the file graded, as SUBMISSIONS names it
    path: Path | None = None  # the private copy graded (staging/FOLDER/day06.py), as the jailed child sees it
    digest: str = ""  # of its bytes, for the key
    problem: str = ""  # why there is nothing to grade: missing, unreadable, a link, bad zip
    flags: list[str] = field(default_factory=list)  # reasons to look at it: a clash of names, a hard link
    notes: list[str] = field(default_factory=list)  # what was chosen: which of several files
    inode: tuple[int, int] | None = None  # (device, inode) of the file read: hard links are one file
    reader_name: str = ""  # the name as a reader takes it (same_name): which shard grades it (shards.py)


class Refused(Exception):
    """A file the grader won't read, and why (a message for the instructor)."""


# ---------------------------------------------------------------- finding the submissions

def check_folders(submissions: Path, out: Path) -> None:
    """Refuse, before anything is written, submissions that are no folder and an --out that would
    mix gradebooks with submissions: the submissions folder itself, or a place inside a student's
    submission. A sub-folder of SUBMISSIONS that is new or holds only gradebooks is fine (no student)."""
    must_be_folder(submissions)
    folder, target = submissions.resolve(), out.resolve()
    inside = target == folder or folder in target.parents
    if inside and (target.parent != folder or _holds_more_than_gradebooks(target)):
        raise LessonError("class_out_inside", out=out, submissions=submissions)


def must_be_folder(path: Path) -> None:
    if not path.is_dir():
        raise LessonError("not_a_folder" if path.exists() else "no_such_folder", path=path)


def _holds_more_than_gradebooks(target: Path) -> bool:
    if not target.exists():
        return False
    return not target.is_dir() or any(p.name not in GRADEBOOK and not p.name.startswith(".") for p in target.iterdir())


def find_submissions(submissions: Path, lesson: Lesson, staging: Path, out: Path,
                     lang: str) -> tuple[list[Entry], list[str]]:
    """Each student's submission, its file copied into a private folder of its own in `staging`
    (staging/FOLDER), and the names of the entries that are no submission (ignored). Each entry
    is one student's: several under one name (bob.py and bob.zip, Ann and ann) are each graded,
    under their file's name, and flagged; two that are one file on disk (hard links) are flagged."""
    found: dict[str, str] = {}  # file name in SUBMISSIONS -> student name
    ignored = []
    gradebooks = out.resolve()
    for item in sorted(submissions.iterdir()):
        if not item.is_symlink() and item.resolve() == gradebooks:  # kept among them in a folder of their own
            continue
        name = student_name(item)
        if name is None:
            ignored.append(printable_name(item.name))
        else:
            found[item.name] = name
    under_name: dict[str, list[str]] = {}  # the files under each name, as a reader takes it (same_name)
    for file, name in found.items():
        under_name.setdefault(same_name(name), []).append(file)
    folders = folder_names(found)
    entries = []
    for file, name in found.items():
        files = under_name[same_name(name)]
        clash = len(files) > 1
        student = distinct_name(file) if clash else printable_name(name)
        flags = [say("class_flag_clash", lang, files=", ".join(map(distinct_name, files)))] if clash else []
        entry = _entry(submissions / file, student, folders[file], flags, submissions, lesson,
                       staging / folders[file], lang)
        entry.reader_name = same_name(name)
        entries.append(entry)
    _flag_hard_links(entries, lang)
    return entries, ignored


def student_name(item: Path) -> str | None:
    """Whose submission `item` is: its name without .py or .zip (any case), a folder's name. None
    for a hidden file or any other file. What can't be opened (a link to a folder, a FIFO) is a
    student's too, said to be refused, never dropped without a word."""
    if item.name.startswith("."):
        return None
    if item.suffix.lower() in (".py", ".zip"):
        return item.stem
    return None if item.is_file() else item.name


def printable_name(name: str) -> str:
    """A file name as text any output can hold: undecodable bytes as \\xff, control characters
    (bidi ones too) escaped."""
    return clean(os.fsencode(name).decode("utf-8", "backslashreplace"), None)


def distinct_name(name: str) -> str:
    """A file name as printable ASCII that no other name shares: every character beyond ASCII
    escaped, so names that look alike (José in NFC and in NFD) read differently."""
    return name.encode("unicode_escape").decode("ascii")


def same_name(name: str) -> str:
    """What two names have in common when they differ only by case or Unicode normalisation:
    one student's name to anyone reading it (Unicode's compatibility caseless match, D146)."""
    nf = unicodedata.normalize
    return nf("NFKD", nf("NFKD", nf("NFD", name).casefold()).casefold())


def folder_names(found: dict[str, str]) -> dict[str, str]:
    """Each submission's folder under students/, by its file name in SUBMISSIONS (`found`: file
    name -> student name): the student's name when it is a safe file name, in NFC, that no other
    student's equals but for case or normalisation; else the file's name made safe, a "~" (that no
    name used as it is holds) and a hash of the file's name: "bob smith.py" -> bob_smith.py~3f2a9c1e0b7d4a55.
    File names are unique in a folder and 64 bits of hash can't be matched on purpose, so no
    student can name themselves into another's folder. The same names give the same folders."""
    owners = Counter(same_name(name) for name in found.values())
    folders = {}
    for file, name in found.items():
        plain = not UNSAFE.search(name) and unicodedata.is_normalized("NFC", name) and owners[same_name(name)] == 1
        hashed = UNSAFE.sub("_", file)[:64] + "~" + hashlib.sha256(os.fsencode(file)).hexdigest()[:16]
        folders[file] = name if plain else hashed
    return folders


UNSAFE = re.compile(r"[^\w.@+-]")  # what a name must not hold to be a folder's name as it is


def _entry(item: Path, student: str, folder: str, flags: list[str], submissions: Path, lesson: Lesson,
           private: Path, lang: str) -> Entry:
    """One student's entry: the file chosen, vetted and read (never through a link), and copied
    into `private`, a folder of theirs alone."""
    shown = printable_name(item.name)
    private.mkdir()
    try:
        mode = _vetted(item, shown, lang, entry=True).st_mode
        if stat.S_ISDIR(mode):
            path, note = exercise_file(item, lesson, lang, root=submissions)
            shown = printable_name(path.relative_to(submissions).as_posix()) if path else shown
        elif item.suffix.lower() == ".zip":
            unzipped = private / "unzipped"
            path, note = _unzip(item, shown, unzipped, lesson, lang)
            shown = f"{shown}:{printable_name(path.relative_to(unzipped).as_posix())}" if path else shown
        else:
            path, note = item, ""
        if path is None:
            raise Refused(note)
        source, info = read_submitted(path, shown, lang)
    except Refused as refusal:
        return Entry(student, folder, shown, problem=str(refusal), flags=flags)
    copy = private / lesson.exercise.name  # kate.PY too: Python imports a file by a .py name only
    copy.write_bytes(source)
    return Entry(student, folder, shown, copy, hashlib.sha256(source).hexdigest(), flags=flags,
                 notes=[note] if note else [], inode=(info.st_dev, info.st_ino))


def _flag_hard_links(entries: list[Entry], lang: str) -> None:
    """Students whose files are one file on disk (hard links: any name may be the first) are each
    flagged, with all their names. Each is graded on the bytes it holds, read once: a hard link
    leads to no file but one its maker could already read and write (fs.protected_hardlinks, on
    by default in Linux), so it can do no more than a copy."""
    names: dict[tuple[int, int], list[str]] = {}
    for entry in entries:
        if entry.inode:
            names.setdefault(entry.inode, []).append(entry.student)
    for entry in entries:
        if len(names.get(entry.inode, [])) > 1:
            entry.flags.append(say("class_flag_hard_link", lang, names=", ".join(names[entry.inode])))


def exercise_file(folder: Path, lesson: Lesson, lang: str = "en",
                  root: Path | None = None) -> tuple[Path | None, str]:
    """The file to grade in a handed-in folder or repository, and a note: why there is none, or,
    when it was chosen among several real candidates, "several candidate files: graded X". Files
    are named by their path in `root` (default: `folder`); no link is followed, to a file or a
    folder. Gradescope's run_autograder can grade through it too.

    The candidates are the files named as the lesson's exercise, at any depth, else every .py file;
    none in a hidden folder (.git, .venv) or __MACOSX. Among several, the kit's own lessons/ (a
    cloned course) and untouched templates (a backup beside the real file) give way to any other;
    then the shallowest path wins."""
    candidates = _candidates(_files(folder), lesson)
    if len(candidates) > 1:
        candidates = _likely(candidates, folder, lesson)
    if not candidates:
        return None, say("class_no_exercise", lang, file=lesson.exercise.name)
    chosen = min(candidates, key=lambda name: (name.count("/"), name))
    if len(candidates) > 1 and not _named_as_exercise(chosen, lesson):
        return None, say("class_several_py", lang, file=lesson.exercise.name)
    path = folder / chosen
    shown = printable_name(path.relative_to(root or folder).as_posix())
    try:
        _vetted(path, shown, lang)
    except Refused as refusal:
        return None, str(refusal)
    return path, say("class_flag_several", lang, file=shown) if len(candidates) > 1 else ""


def _files(folder: Path) -> list[str]:
    """The paths of the files under `folder`, relative to it, sorted; linked folders are not
    entered, hidden ones not even listed (a .venv or .git can hold thousands)."""
    found = []
    for parent, folders, files in os.walk(folder):
        folders[:] = [name for name in folders if not _hidden(name)]
        found += [Path(parent, name).relative_to(folder).as_posix() for name in files]
    return sorted(found)


def _hidden(part: str) -> bool:
    return part.startswith(".") or part in SKIPPED


def _candidates(names: list[str], lesson: Lesson) -> list[str]:
    """Of a submission's files (relative paths), those that may be the exercise."""
    visible = [name for name in names if not any(_hidden(part) for part in name.split("/"))]
    named = [name for name in visible if _named_as_exercise(name, lesson)]
    return named or [name for name in visible if name.casefold().endswith(".py")]


def _named_as_exercise(name: str, lesson: Lesson) -> bool:
    return name.rsplit("/", 1)[-1].casefold() == lesson.exercise.name.casefold()


def _likely(candidates: list[str], folder: Path, lesson: Lesson) -> list[str]:
    """The candidates but those less likely to be the student's work, as long as one is left."""
    template = shape_of(lesson.exercise)
    for unlikely in (lambda name: "lessons" in name.split("/")[:-1],
                     lambda name: _is_template(folder / name, template)):
        candidates = [name for name in candidates if not unlikely(name)] or candidates
    return candidates


def _is_template(path: Path, template: str) -> bool:
    try:  # read as Python reads it: a BOM or a `# coding:` line chooses the encoding
        source, _ = read_submitted(path, "", "en")
        text = source.decode(tokenize.detect_encoding(io.BytesIO(source).readline)[0])
    except (Refused, SyntaxError, UnicodeDecodeError, LookupError):  # unreadable: no template
        return False
    return code_shape(text) == template


def _vetted(path: Path, shown: str, lang: str, entry: bool = False) -> os.stat_result:
    """What `path` itself is (lstat: no link followed), if the grader may read it: a regular file
    of at most FILE_LIMIT bytes; or, a student's entry in SUBMISSIONS (`entry`), a folder or a
    file of any size (a zip holds more than its exercise). Else Refused, with why: a link (even to
    a classmate's file inside the submissions folder), a FIFO or device (reading it could wait for
    ever), too large."""
    try:
        info = os.lstat(path)
    except OSError as error:
        raise Refused(say("class_unreadable", lang, file=shown, problem=error.strerror)) from None
    if stat.S_ISLNK(info.st_mode):
        raise Refused(say("class_link", lang, file=shown))
    if stat.S_ISDIR(info.st_mode) and entry:
        return info
    if not stat.S_ISREG(info.st_mode):
        raise Refused(say("class_not_a_file", lang, file=shown))
    if info.st_size > FILE_LIMIT and not entry:
        raise Refused(say("class_too_large", lang, file=shown, size=f"{info.st_size / 2 ** 20:.1f}",
                          limit=FILE_LIMIT // 2 ** 20))
    return info


# Opening never follows a link nor waits on a FIFO put in the vetted file's place meanwhile.
_OPENING = os.O_RDONLY | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_BINARY", 0)


def read_submitted(path: Path, shown: str, lang: str) -> tuple[bytes, os.stat_result]:
    """The bytes of a handed-in file and what it is, read only once vetted (_vetted), from the
    very file vetted, and never more than FILE_LIMIT bytes of it, whatever it grew to."""
    _vetted(path, shown, lang)
    try:
        with open(os.open(path, _OPENING), "rb") as file:
            info = os.fstat(file.fileno())
            if not stat.S_ISREG(info.st_mode):  # it changed since it was vetted
                raise Refused(say("class_not_a_file", lang, file=shown))
            source = file.read(FILE_LIMIT + 1)
    except OSError as error:
        raise Refused(say("class_unreadable", lang, file=shown, problem=error.strerror)) from None
    if len(source) > FILE_LIMIT:
        raise Refused(say("class_too_large", lang, file=shown, size=f"> {FILE_LIMIT / 2 ** 20:.1f}",
                          limit=FILE_LIMIT // 2 ** 20))
    return source, info


def _unzip(archive: Path, shown: str, target: Path, lesson: Lesson, lang: str) -> tuple[Path | None, str]:
    """The exercise file of a zip, chosen as in a folder. Only the candidates are unpacked (what
    else a zipped repository holds, such as its .git, is no concern), nothing outside `target`, and
    no link: a candidate that is one (symlink mode bits) refuses the zip."""
    try:
        with open(os.open(archive, _OPENING), "rb") as file, zipfile.ZipFile(file) as bundle:
            members = {member.filename: member for member in bundle.infolist() if not member.is_dir()}
            for name in members:
                if Path(name).is_absolute() or ".." in Path(name).parts:
                    return None, say("class_zip_unsafe", lang, name=repr(printable_name(name)))
            candidates = _candidates(sorted(members), lesson)
            for name in candidates:
                if stat.S_IFMT(members[name].external_attr >> 16) not in (0, stat.S_IFREG):
                    return None, say("class_zip_link", lang, zip=shown, name=printable_name(name))
            if sum(members[name].file_size for name in candidates) > ZIP_LIMIT:
                return None, say("class_zip_too_big", lang, limit=ZIP_LIMIT // 2 ** 20)
            for name in candidates:
                destination = target / name
                destination.parent.mkdir(parents=True, exist_ok=True)
                destination.write_bytes(bundle.read(members[name]))
    except (zipfile.BadZipFile, zlib.error, OSError, RuntimeError, EOFError, NotImplementedError, ValueError) as error:
        return None, say("class_bad_zip", lang, problem=printable_name(str(error)))
    return exercise_file(target, lesson, lang)


# ---------------------------------------------------------------- grading, in warm workers

class Workers:
    """The grading processes of a run, and which students each holds. Each worker is warm: it
    imports the grader, pytest and the mock once, collects the checks once (one pytest session),
    and starts its children from a fork server (forkserver.py). It holds at most AHEAD students:
    the one it grades and the next, whose child starts meanwhile. It saves each student's files as
    soon as they are graded; a worker that dies costs the student it was grading a grader failure
    (graded again on the next run), no more."""

    AHEAD = 2
    # The grader's own time a student may take (the mock reading their prompts, the checks): the
    # child's limits do not bound it. A worker past it is stopped, and the student timed out.
    SECONDS = float(os.environ.get("REACTLINGS_STUDENT_SECONDS") or 600)

    def __init__(self, lesson: Lesson, todo: list[tuple[Entry, str]], out: Path, seed: int, lang: str, jobs: int):
        # fork where there is fork: a worker then starts with the grader imported already
        self.context = multiprocessing.get_context("fork" if sys.platform == "linux" else "spawn")
        self.settings = (str(lesson.folder), seed, lang, str(out), jail.required, os.getpid())
        self.waiting, self.out, self.lang = list(reversed(todo)), out, lang
        self.workers = [self._start() for _ in range(max(1, min(jobs, len(todo))))]

    def _start(self) -> dict:
        pipe, theirs = self.context.Pipe()
        process = self.context.Process(target=work, args=(*self.settings, theirs), daemon=True)
        process.start()
        theirs.close()
        worker = {"pipe": pipe, "process": process, "holds": [], "told_to_end": False, "since": time.monotonic()}
        self._fill(worker)
        return worker

    def _fill(self, worker: dict) -> None:
        while len(worker["holds"]) < self.AHEAD and not worker["told_to_end"]:
            if not self.waiting:
                worker["pipe"].send(None)  # nothing more: end after what it holds
                worker["told_to_end"] = True
                break
            task = self.waiting.pop()
            worker["holds"].append(task)
            worker["pipe"].send(task)

    def graded(self):
        """Each student's folder and record, as soon as it is saved."""
        while busy := [w for w in self.workers if w["holds"]]:
            left = min(w["since"] for w in busy) + self.SECONDS - time.monotonic()
            ready = multiprocessing.connection.wait([w["pipe"] for w in busy] + [w["process"].sentinel for w in busy],
                                                    timeout=max(0.0, left))
            for worker in busy:
                if worker["pipe"] in ready or worker["pipe"].poll():
                    try:
                        folder, record = worker["pipe"].recv()
                    except EOFError:  # it died as it wrote
                        yield self._died(worker)
                        continue
                    if folder is None:  # a broken lesson, not a student's doing
                        self.stop()
                        raise LessonError(record["key"], **record["params"])
                    worker["holds"].pop(0)
                    worker["since"] = time.monotonic()
                    self._fill(worker)
                    yield folder, record
                elif worker["process"].sentinel in ready:
                    yield self._died(worker)
                elif time.monotonic() > worker["since"] + self.SECONDS:
                    worker["process"].kill()  # its fork server and children go with it
                    yield self._died(worker, overran=True)
        for worker in self.workers:
            worker["process"].join()

    def stop(self) -> None:
        for worker in self.workers:
            worker["process"].kill()  # its fork server and children go with it
            worker["process"].join()

    def _died(self, worker: dict, overran: bool = False) -> tuple[str, dict]:
        """A worker died: the student it was grading gets a grader failure (tried again on the
        next run), or, stopped past SECONDS, is timed out; the next it held goes back in line, and
        a new worker takes its place."""
        (entry, key), *rest = worker["holds"]
        worker["holds"] = []
        self.waiting.extend(reversed(rest))
        worker["process"].join()
        if overran:  # the student's doing, as a hang is: kept, with outputs that say so
            problem = say("class_student_overran", self.lang, seconds=f"{self.SECONDS:g}")
            result = {"score": 0, "max": None, "status": Status.TIMED_OUT, "checks": [], "problem": problem,
                      "gradescope": {"score": 0, "output": problem, "tests": []}, "feedback": problem + "\n"}
        else:
            result = grader_failed(RuntimeError(f"the grading process died (exit status "
                                                f"{worker['process'].exitcode})"), self.lang)
        record = _save_student(self.out, entry, key, result)
        self.workers[self.workers.index(worker)] = self._start() if self.waiting else worker
        return entry.folder, record


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
        from mock_llm import load_world

        from .grading import checks_loaded, run_items
        if not checks_loaded(session):
            return None
        upcoming = self._next()
        while upcoming:
            (entry, key), child = upcoming
            upcoming = self._next()
            # a world of the lesson's own for each student: nothing a tool or a check kept in it
            # (day11's rounds of tool calls) is seen by the next one
            self.collector.scenario_world = load_world(self.lesson.folder, self.collector.scenario_world.seed)
            try:  # whatever goes wrong with one student is that student's record, never the lesson's
                result = run_items(session.items, self.collector, child, entry.path)
                name_as_submitted(result, entry.shown)
                record = _save_student(self.out, entry, key, {**summarise(result, self.lang),
                                                               **fingerprint(entry.path)})
            except Exception as error:
                record = _save_student(self.out, entry, key, grader_failed(error, self.lang))
            self.pipe.send((entry.folder, record))
        return True

    def _next(self):
        task = self.pipe.recv()
        if task is None:
            return None
        child = open_submission(self.lesson, self.collector.scenario_world, task[0].path, forkserver=self.server)
        child.spawn(load=False)
        return task, child


def grader_failed(error: Exception, lang: str) -> dict:
    """The record of a file the grader itself could not grade: no score, and why."""
    return {"score": 0, "max": None, "status": Status.GRADER_FAILED, "checks": [],
            "problem": say("class_grader_failed", lang, error=f"{type(error).__name__}: {error}")}


def name_as_submitted(result, shown: str) -> None:
    """Have the grade name its file as the submissions folder does (`shown`), not by the path it was
    read from, wherever it quotes it: the file line, a traceback, a message, a failure's cause, the
    learner's printing. The outputs then read the same wherever the class lies, a zip was
    unpacked and the run started."""
    read = str(result.path)
    for check in result.checks:
        check.printed = check.printed.replace(read, shown)
        if check.failure:
            check.failure.detail = (check.failure.detail or "").replace(read, shown)
            check.failure.cause = check.failure.cause and check.failure.cause.replace(read, shown)
            check.failure.params = {name: value.replace(read, shown) if isinstance(value, str) else value
                                    for name, value in check.failure.params.items()}
    result.path = Path(shown)


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
    unloaded = load_failure(result)
    status = unloaded.unloaded if unloaded else Status.GRADED
    return {"score": result.score, "max": result.max_score, "status": status,
            "seconds": round(result.seconds, 2), "checks": checks,
            "todos": {t.id: list(result.todo_score(t.id)) for t in lesson.todos},
            "gradescope": gradescope(result, lang),
            "feedback": report_text(result, lang, f"python validate.py {lesson.name}")}


def grading_inputs(lesson: Lesson) -> dict[str, Path]:
    """Every file a student's outputs depend on, but their own: the lesson, and the grader's and the
    mock's code and texts (messages.yaml words the feedback). By a name that doesn't depend on
    where the kit lies."""
    kit = Path(__file__).resolve().parent.parent
    inputs = {}
    for folder in (lesson.folder, kit / "validator", kit / "mock_llm"):
        for path in sorted(folder.rglob("*")):
            if path.is_file() and "__pycache__" not in path.parts:
                inputs[f"{folder.name}/{path.relative_to(folder).as_posix()}"] = path
    return inputs


def lesson_version(lesson: Lesson) -> str:
    """A hash of the grading inputs, the Python that runs them and the packages that run the checks
    and render the feedback: a change means regrade."""
    digest = hashlib.sha256(sys.version.encode())
    for package in RUNTIME:
        try:
            digest.update(f"\0{package} {importlib.metadata.version(package)}".encode())
        except importlib.metadata.PackageNotFoundError:
            digest.update(f"\0{package} none".encode())
    for name, path in grading_inputs(lesson).items():
        digest.update(name.encode() + b"\0" + path.read_bytes())
    return digest.hexdigest()[:16]


def submission_key(entry: Entry, version: str, seed: int, lang: str) -> str:
    """What a student's outputs are made of: their file, their name and its name in the feedback,
    the lesson and grader (version), the seed, the language."""
    return hashlib.sha256(f"{entry.digest}\0{entry.student}\0{entry.shown}\0{version}\0{seed}\0{lang}".encode()).hexdigest()[:24]


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


def code_shape(source: str) -> str:
    """A digest of the normalised code: equal for copies."""
    return hashlib.sha256(normalised(source).encode("utf-8", "surrogatepass")).hexdigest()[:24]


@lru_cache(maxsize=8)
def shape_of(kit_file: Path) -> str:
    """code_shape of a file of the kit's (a template, a solution), read once however many students'
    folders are compared with it."""
    return code_shape(read_source(kit_file))


def fingerprint(path: Path) -> dict:
    """What the flags need of a file, kept in its record: a rerun need not read the file again."""
    text = read_source(path)
    return {"shape": code_shape(text), "markers": "BEGIN SOLUTION" in text or "END SOLUTION" in text}


def look_at(entries: list[Entry], records: dict[str, dict], lesson: Lesson,
            lang: str) -> tuple[dict[str, list[str]], dict[str, list[str]], list[tuple[list[str], str]]]:
    """Reasons to look at submissions by hand, per student's folder: flags (work that may not be
    the student's own: copies of each other or of the reference, the solution markers) and notes
    (an untouched template, which of several files was graded); and the lot as (folders, reason)
    lines for the terminal, where a reason several students share, such as a group of copies,
    shows once. Untouched templates are nobody's copies."""
    template = shape_of(lesson.exercise)
    reference = shape_of(lesson.solution) if lesson.solution.is_file() else None
    flagged: dict[str, list[str]] = {}
    noted: dict[str, list[str]] = {}
    shared: dict[str, list[str]] = {}  # reason -> folders
    copies: dict[str, list[str]] = {}  # shape -> folders
    for entry in sorted(entries, key=lambda e: by_name(records[e.folder])):  # each line's names in that order
        record = records[entry.folder]
        shape = record.get("shape")
        flags = [say("class_flag_reference", lang)] if shape and shape == reference else []
        flags += [say("class_flag_markers", lang)] if record.get("markers") else []
        notes = [say("class_flag_template", lang)] if shape == template else []
        flags += entry.flags
        notes += entry.notes
        for reasons, kept in ((flags, flagged), (notes, noted)):
            for reason in reasons:
                kept.setdefault(entry.folder, []).append(reason)
                shared.setdefault(reason, []).append(entry.folder)
        if shape and shape != template:
            copies.setdefault(shape, []).append(entry.folder)
    lines = [(folders, reason) for reason, folders in shared.items()]
    for group in (g for g in copies.values() if len(g) > 1):
        for folder in group:
            others = ", ".join(records[f]["student"] for f in group if f != folder)
            flagged.setdefault(folder, []).append(say("class_flag_copy", lang, others=others))
        lines.append((group, say("class_flag_copies", lang)))
    return flagged, noted, sorted(lines, key=lambda line: ([by_name(records[f]) for f in line[0]], line[1]))


# ---------------------------------------------------------------- the seed a folder is graded at

def seed_fingerprint(seed: int) -> str:
    """A short digest that tells seeds apart without showing one: a secret seed is long and random
    (cli.GUESSABLE), so its digest gives nothing away."""
    return hashlib.sha256(f"reactlings seed {seed}".encode()).hexdigest()[:12]


def check_seed(out: Path, seed: int, reseed: bool, lang: str) -> None:
    """Refuse, unless `reseed`, an `out` graded earlier at another seed: a run that forgot the
    secret seed would otherwise regrade the whole class at seed 0 over the grades that count."""
    try:
        earlier = (out / SEED_FINGERPRINT).read_text(encoding="utf-8").strip()
    except OSError:  # never graded here, or by a kit that kept no fingerprint
        return
    if earlier != seed_fingerprint(seed) and not reseed:
        raise LessonError("class_other_seed", out=out, earlier=_seed_named(earlier, lang),
                          now=_seed_named(seed_fingerprint(seed), lang))


def _seed_named(fingerprint: str, lang: str) -> str:
    if fingerprint == seed_fingerprint(DEFAULT_SEED):
        return say("class_seed_public", lang, seed=DEFAULT_SEED)
    return say("class_seed_other", lang, fingerprint=fingerprint)


# ---------------------------------------------------------------- the run

@dataclass
class Tally:
    """How far a run got: what a Ctrl-C reports, and the workers it stops."""
    todo: int = 0
    graded: int = 0
    workers: Workers | None = None


def grade_class(lesson: Lesson, submissions: Path, out: Path, seed: int, jobs: int, lang: str,
                console: Console, reseed: bool = False, shard=None) -> int:
    """Grade every submission into the gradebooks in `out`. 130 when stopped by Ctrl-C, at any
    moment: what was graded is saved, and the same command grades the rest. An `out` graded with
    another seed is refused unless `reseed`. A `shard` (shards.Shard) grades only its share of the
    class into `out`, and saves what `merge` needs instead of the gradebooks."""
    started = time.monotonic()
    check_folders(submissions, out)
    check_seed(out, seed, reseed, lang)
    from . import overrides  # it builds on this module's gradebook helpers
    judged = overrides.read(out)  # a file that is no overrides is said before any grading
    public = say("class_public_seed", lang) if seed == DEFAULT_SEED else ""
    if public:
        console.print(public, style="yellow", markup=False)
    tally = Tally()
    try:
        with tempfile.TemporaryDirectory(prefix="reactlings-class-") as staging:
            entries, ignored = find_submissions(submissions, lesson, Path(staging).resolve(), out, lang)
            if not entries:
                raise LessonError("class_no_submissions_ignored" if ignored else "class_no_submissions",
                                  path=submissions, ignored=", ".join(ignored))
            by_user = jail.level() == "user"  # a student's code reads what any user may: not the gradebooks
            out.mkdir(mode=0o700 if by_user else 0o777, parents=True, exist_ok=True)  # a place that can't
            if by_user and jail.open_to_all(str(out)):  # take the results: said before grading
                raise LessonError("class_out_open", path=out)
            write_atomically(out / SEED_FINGERPRINT, seed_fingerprint(seed) + "\n")  # before any grade
            share = shard.share(out, entries) if shard else entries
            records = _records(share, lesson, out, seed, jobs, lang, console, tally)
        if shard:
            ordered = shard.save(out, lesson, seed, lang, entries, records, ignored, console)
        else:
            ordered = finish_class(out, lesson, entries, records, ignored, public, judged, lang, console)
    except KeyboardInterrupt:
        if tally.workers is None:
            console.print(say("class_stopped_early", lang), markup=False)
        else:
            tally.workers.stop()
            console.print(say("class_stopped", lang, graded=tally.graded, left=tally.todo - tally.graded),
                          markup=False)
        return 130
    failed = sum(r["status"] == Status.GRADER_FAILED for r in ordered)
    missing = sum(r["status"] == Status.MISSING for r in ordered)
    done = {"graded": tally.graded - failed, "reused": len(ordered) - tally.todo - missing, "missing": missing,
            "seconds": f"{time.monotonic() - started:.1f}", "out": out}
    console.print(say("class_done_failed", lang, failed=failed, **done) if failed else say("class_done", lang, **done),
                  markup=False)
    return 0


def finish_class(out: Path, lesson: Lesson, entries: list[Entry], records: dict[str, dict], ignored: list[str],
                 seed_note: str, judged: list, lang: str, console: Console) -> list[dict]:
    """The gradebooks of the whole class from every student's record (by folder): the flags that
    compare students, the instructor's overrides (`judged`, read from overrides.csv before any
    grading), grades.csv and grades.json, summary.html, the summary on the terminal. A class run
    and a merge of shards both end here, so that they write the same bytes. The records, in the
    gradebooks' order, with their flags, notes and overrides."""
    from . import overrides
    flagged, noted, lines = look_at(entries, records, lesson, lang)
    ordered = [dict(r, flags=flagged.get(r["folder"], []), notes=noted.get(r["folder"], []))
               for r in sorted(records.values(), key=by_name)]
    points = todo_points(lesson)
    ordered, unmatched = overrides.apply(out, lesson, ordered, points, judged, lang)
    _write_gradebooks(out, lesson, ordered, points)
    summary = dict(class_summary(lesson, ordered, points, seed_note), unmatched_overrides=unmatched)
    write_atomically(out / "summary.html", summary_html(lesson, summary, ordered, ignored, lang))
    print_summary(console, lesson, summary, ordered, lines, ignored, lang)
    overrides.print_overrides(console, ordered, unmatched, lang)
    return ordered


def _records(entries: list[Entry], lesson: Lesson, out: Path, seed: int, jobs: int, lang: str,
             console: Console, tally: Tally) -> dict[str, dict]:
    """Every student's record, by folder: kept from the last run when none of its inputs changed and
    its outputs are there, else graded now (a progress bar on a terminal)."""
    version = lesson_version(lesson)
    records: dict[str, dict] = {}
    todo: list[tuple[Entry, str]] = []
    for entry in entries:
        if entry.path is None:
            records[entry.folder] = {"student": entry.student, "folder": entry.folder, "file": entry.shown,
                                     "status": Status.MISSING, "problem": entry.problem, "score": 0, "max": None}
            continue
        key = submission_key(entry, version, seed, lang)
        kept = _kept(out / "students" / entry.folder, key)
        if kept:
            records[entry.folder] = kept
        else:
            todo.append((entry, key))
    tally.todo = len(todo)
    if todo:
        tally.workers = Workers(lesson, todo, out, seed, lang, jobs)  # before the bar's thread
        with _progress(console, lang, len(todo)) as (bar, task):
            for folder, record in tally.workers.graded():
                records[folder] = record
                tally.graded += 1
                bar.advance(task)
    return records


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


def _kept(folder: Path, key: str) -> dict | None:
    """The saved record of a student, if its key is this one and the outputs it was made with are
    all there (a deleted feedback.txt is made again)."""
    try:
        record = json.loads((folder / "record.json").read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    outputs = all((folder / name).is_file() for name in ("results.json", "feedback.txt"))
    return record if isinstance(record, dict) and record.get("key") == key and outputs else None


def _save_student(out: Path, entry: Entry, key: str, result: dict) -> dict:
    """Write a student's outputs and their record. A grader failure's record has no key, so the
    next run grades the student again, and no earlier grade's outputs stay beside it."""
    folder = out / "students" / entry.folder
    folder.mkdir(parents=True, exist_ok=True)
    result = printable(result)  # lone surrogates (undecodable bytes) can't be written as UTF-8
    outputs = student_outputs(result["gradescope"], result["feedback"]) if "gradescope" in result else {}
    for name in ("results.json", "feedback.txt"):
        if name in outputs:
            write_atomically(folder / name, outputs[name])
        else:
            (folder / name).unlink(missing_ok=True)
    # the outputs too, as the autograder made them: overrides are applied to them on every run
    record = {"student": entry.student, "folder": entry.folder, "file": entry.shown,
              "key": None if result["status"] == Status.GRADER_FAILED else key, **result}
    write_atomically(folder / "record.json", json.dumps(record, ensure_ascii=False, indent=1, sort_keys=True) + "\n")
    return record


def student_outputs(results: dict, feedback: str) -> dict[str, str]:
    """A student's results.json (Gradescope's) and feedback.txt, as written: the keys sorted, as in the
    record they are made again from."""
    return {"results.json": json.dumps(results, ensure_ascii=False, indent=2, sort_keys=True) + "\n",
            "feedback.txt": feedback}


def _notes(record: dict) -> list[str]:
    """A student's notes, then the problem with their submission, if any."""
    return record["notes"] + ([record["problem"]] if record.get("problem") else [])


def by_name(record: dict) -> tuple:
    """Rows in the order people sort names: case aside ("bob" beside "Bob", not after "Zoe"),
    then exactly, so that the order is the same on every run."""
    return record["student"].casefold(), record["student"], record["folder"]


def todo_points(lesson: Lesson) -> dict[str, int]:
    """Each TODO's points, as the lesson's checks declare them: read by collecting the checks, not
    running them, so that a gradebook says the maximum even of a class where no file was graded."""
    from .grading import TODO_MARKER, pytest_arguments

    class Points:
        def __init__(self):
            self.by_todo = {todo.id: 0 for todo in lesson.todos}

        def pytest_configure(self, config):
            config.addinivalue_line("markers", TODO_MARKER)

        def pytest_collection_finish(self, session):
            for item in session.items:
                marker = item.get_closest_marker("todo")
                if marker:
                    self.by_todo[str(marker.args[0])] += int(marker.kwargs["points"])

    points = Points()
    code = pytest.main([*pytest_arguments(lesson), "--collect-only", "-p", "no:terminal"], plugins=[points])
    if code != pytest.ExitCode.OK:
        raise LessonError(f"the checks of {lesson.name} could not be collected ({lesson.checks}, pytest exit "
                          f"code {int(code)})")
    return points.by_todo


def spreadsheet_safe(text: str) -> str:
    """A cell a spreadsheet shows as text: one that starts like a formula (a student named
    =HYPERLINK(…)) gets a leading apostrophe, as spreadsheets themselves mark text."""
    return "'" + text if text[:1] in ("=", "+", "-", "@", "\t", "\r") else text


def _write_gradebooks(out: Path, lesson: Lesson, records: list[dict], points: dict[str, int]) -> None:
    """grades.csv for people: every student has the lesson's maximum (a missing one too), and each
    TODO column says its own; a BOM first, without which Excel reads UTF-8 as the local code page
    (a name in Chinese becomes mojibake). grades.json for programs: the records as they are."""
    total = sum(points.values())
    table = io.StringIO()
    writer = csv.writer(table, lineterminator="\n")
    writer.writerow(["student", "score", "max", *(f"TODO {t} (/{n})" for t, n in points.items()), "status",
                     "seconds", "flags"])
    for record in records:
        todos = record.get("todos") or {}
        writer.writerow([spreadsheet_safe(record["student"]), record["score"], record.get("max") or total,
                         *(todos.get(t, ["", ""])[0] for t in points), record["status"], record.get("seconds", ""),
                         spreadsheet_safe("; ".join(record["flags"] + _notes(record)))])
    write_atomically(out / "grades.csv", "\ufeff" + table.getvalue())
    write_atomically(out / "grades.json", json.dumps(
        {"lesson": lesson.name, "max": total, "todos": points, "students": records},
        ensure_ascii=False, indent=1, sort_keys=True) + "\n")


# ---------------------------------------------------------------- the class at a glance

def class_summary(lesson: Lesson, records: list[dict], points: dict[str, int], seed_note: str = "") -> dict:
    """The figures of the summary. The mean is over the students scored (the checks ran on their
    file: graded, syntax error, timed out, crashed), not the missing ones nor grader failures.
    `seed_note`: said at the top when the class was graded at the public seed."""
    scored = [r for r in records if r.get("max")]
    buckets = Counter(min(9, int(10 * r["score"] / r["max"])) for r in scored)
    todos = []
    for todo in lesson.todos:
        failing = [r for r in scored if (r.get("todos") or {}).get(todo.id, [0, 0])[0]
                   < (r.get("todos") or {}).get(todo.id, [0, 0])[1]]
        messages = Counter(message for r in failing for message in  # each student counted once
                           {c["message"].splitlines()[0] for c in r.get("checks", [])
                            if c["todo"] == todo.id and not c["passed"] and c["message"]})
        common = sorted(messages.items(), key=lambda item: (-item[1], item[0]))[:3]  # ties: same order always
        todos.append({"id": todo.id, "title": todo.title, "points": points[todo.id], "failed": len(failing),
                      "passed": len(scored) - len(failing), "common": common})
    statuses = Counter(r["status"] for r in records)
    return {"students": len(records), "scored": len(scored), "max": sum(points.values()),
            "distribution": [buckets.get(i, 0) for i in range(10)], "seed_note": seed_note,
            "statuses": [(s.value, statuses[s]) for s in Status if statuses[s]], "todos": todos,
            "mean": round(sum(r["score"] for r in scored) / len(scored), 1) if scored else 0}


def bucket(index: int) -> str:
    """The scores of a bar of the distribution: 0–9%, …, 90–100% (the top one holds full marks)."""
    return f"{index * 10}–{index * 10 + 9 if index < 9 else 100}%"


def status_name(status: str, lang: str) -> str:
    return say(Status(status).message, lang)


def headline(lesson: Lesson, summary: dict, lang: str) -> list[str]:
    """The summary's first lines, on the terminal as on the page: the class, the mean and what it
    counts, the students by status (the words of the gradebook's status column)."""
    counts = " · ".join(say("class_count", lang, n=n, status=status_name(s, lang)) for s, n in summary["statuses"])
    return [say("class_header", lang, name=lesson.name, students=summary["students"], mean=summary["mean"],
                max=summary["max"]),
            say("class_counts", lang, counts=counts, scored=summary["scored"])]


def todo_columns(lang: str) -> list[str]:
    """The per-TODO table's columns, on the terminal as on the page."""
    return ["TODO", say("class_points", lang), say("class_passed", lang), say("class_common", lang)]


def print_summary(console: Console, lesson: Lesson, summary: dict, records: list[dict],
                  lines: list[tuple[list[str], str]], ignored: list[str], lang: str) -> None:
    """The class on the terminal: figures, each TODO's points, passes and failures, then, briefly,
    every submission that was not graded and why, what was ignored, and the flags."""
    first, counts = headline(lesson, summary, lang)
    console.print(first, style="bold", markup=False)
    console.print(f"  {counts}", markup=False)
    if summary["seed_note"]:
        console.print(f"  {summary['seed_note']}", style="yellow", markup=False)
    peak = max(summary["distribution"]) or 1
    for index, count in enumerate(summary["distribution"]):
        console.print(f"  {bucket(index):>8}  {'█' * round(20 * count / peak):20} {count}", markup=False)
    table = Table(box=None, pad_edge=False)
    for column in todo_columns(lang):
        table.add_column(column)
    for todo in summary["todos"]:
        common = "\n".join(f"{n}× {clean(m, 90)}" for m, n in todo["common"])
        table.add_row(f"{todo['id']} {todo['title'][lang]}", str(todo["points"]),
                      f"{todo['passed']}/{summary['scored']}", common)
    console.print(table)
    unscored = [r for r in records if not Status(r["status"]).scored]
    if unscored:
        console.print(say("class_problems", lang, count=len(unscored)), style="red", markup=False)
        for record in unscored:
            console.print(f"  {record['student']}: {record['problem']}", markup=False)
    if ignored:
        console.print(say("class_ignored", lang, names=", ".join(ignored)), style="dim", markup=False)
    names = {r["folder"]: r["student"] for r in records}
    for folders, reason in lines:
        console.print(f"⚑ {', '.join(names[f] for f in folders)}: {reason}", style="yellow", markup=False)


PAGE_STYLE = """body{font-family:sans-serif;margin:2em;max-width:64em;color:#222}
table{border-collapse:collapse;margin-bottom:1em}
td,th{border:1px solid #ccc;padding:.3em .6em;vertical-align:top;text-align:left}
th{background:#f3f3f3;white-space:nowrap}
td.n{text-align:right;white-space:nowrap}
.warn{background:#fff4d6;border-left:4px solid #e0a800;padding:.5em .8em}
.flag{color:#a30;font-weight:bold}
td.overridden{background:#e8f0ff}
.note{color:#555}"""


def summary_html(lesson: Lesson, summary: dict, records: list[dict], ignored: list[str], lang: str) -> str:
    """One page, no script and nothing fetched: bars are inline SVG, each with its count; each
    student's name links to their feedback.txt beside it; flags (⚑) stand apart from notes."""
    e = html.escape
    peak = max(summary["distribution"]) or 1
    bars = "".join(
        f'<rect x="{i * 36 + 4}" y="{160 - 140 * n / peak:.1f}" width="30" height="{140 * n / peak:.1f}" '
        f'fill="#4a7"><title>{bucket(i)}: {n}</title></rect>'
        f'<text x="{i * 36 + 19}" y="{155 - 140 * n / peak:.1f}" font-size="11" text-anchor="middle">{n}</text>'
        f'<text x="{i * 36 + 19}" y="176" font-size="10" text-anchor="middle">{i * 10}%</text>'
        for i, n in enumerate(summary["distribution"]))
    rows = "".join(
        f"<tr><td>{e(t['id'])} {e(t['title'][lang])}</td><td class=\"n\">{t['points']}</td>"
        f"<td class=\"n\">{t['passed']}/{summary['scored']}</td><td>"
        + "<br>".join(f"{n}× {e(m)}" for m, n in t["common"]) + "</td></tr>" for t in summary["todos"])
    students = "".join(
        f"<tr><td>{_student_link(r)}</td>{_score_cell(r, summary['max'], lang)}"
        f"<td>{e(status_name(r['status'], lang))}</td>"
        f"<td>{''.join(f'<div class=flag>⚑ {e(flag)}</div>' for flag in r['flags'])}</td>"
        f"<td class=\"note\">{e('; '.join(_notes(r)))}</td></tr>"
        for r in records)
    first, counts = headline(lesson, summary, lang)
    seed = f'<p class="warn">{e(summary["seed_note"])}</p>\n' if summary["seed_note"] else ""
    aside = f"<p>{e(say('class_ignored', lang, names=', '.join(ignored)))}</p>\n" if ignored else ""
    unmatched = summary.get("unmatched_overrides")
    if unmatched:
        aside += (f'<div class="warn">{e(say("override_unmatched_header", lang, count=len(unmatched)))}<ul>'
                  + "".join(f"<li>{e(line)}</li>" for line in unmatched) + "</ul></div>\n")
    todo_head = "".join(f"<th>{e(column)}</th>" for column in todo_columns(lang))
    columns = "".join(f"<th>{e(say(key, lang))}</th>" for key in (
        "class_column_student", "class_column_score", "class_column_status", "class_column_flags",
        "class_column_notes"))
    return f"""<!DOCTYPE html>
<html lang="{lang}"><head><meta charset="utf-8"><title>{e(say('class_page_title', lang, name=lesson.name))}</title>
<style>{PAGE_STYLE}</style></head>
<body><h1>{e(lesson.name)} · {e(lesson.title[lang])}</h1>
<p>{e(first)}<br>{e(counts)}</p>
{seed}{aside}<h2>{e(say('class_page_distribution', lang))}</h2>
<svg width="370" height="185" role="img" aria-label="{e(say('class_page_distribution', lang))}">{bars}</svg>
<h2>{e(say('class_page_todos', lang))}</h2><table><tr>{todo_head}</tr>{rows}</table>
<h2>{e(say('class_page_students', lang))}</h2><table><tr>{columns}</tr>{students}</table>
</body></html>
"""


def _score_cell(record: dict, top: int, lang: str) -> str:
    """The score; one the instructor overrode is marked ✎, with the autograder's on hovering."""
    score = f"{record['score']}/{record.get('max') or top}"
    if not record.get("overrides"):
        return f'<td class="n">{score}</td>'
    was = html.escape(say("override_cell", lang, was=record["autograder"]["score"]))
    return f'<td class="n overridden" title="{was}">✎ {score}</td>'


def _student_link(record: dict) -> str:
    """The student's name, a link to their feedback.txt where they have one (not a missing one)."""
    name = html.escape(record["student"])
    if not Status(record["status"]).scored:
        return name
    return f'<a href="students/{html.escape(urllib.parse.quote(record["folder"]))}/feedback.txt">{name}</a>'
