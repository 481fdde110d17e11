"""The warm workers of a class run: each loads the grader and the checks once, then grades one
submission after another, each in a sandboxed child forked from a ready sandbox.

A student's key (submission_key) is a digest of everything their outputs depend on: their file,
the lesson, the grader, the Python and packages that run the checks, the seed and the language.
The same key, the same outputs: a run after Ctrl-C grades only what changed.
"""
from __future__ import annotations

import gc
import hashlib
import importlib.metadata
import itertools
import json
import multiprocessing
import multiprocessing.connection
import os
import signal
import sys
import time
from pathlib import Path

import pytest

from validator.child import launching
from validator.child.wire import printable
from validator.files import ROOT, write_atomically
from validator.grading import busy
from validator.grading.report import failure_text, gradescope, load_failure, report_text
from validator.grading.runner import open_submission, read_source, submission_seed
from validator.instructor.gradebooks import student_outputs
from validator.instructor.submissions import Entry, code_shape
from validator.isolation import forkserver, jail
from validator.lessons import Lesson, LessonError, load_lesson, say
from validator.outcomes import Status

RUNTIME = ("pytest", "rich", "openai", "jsonschema", "PyYAML")  # run the checks, render the feedback


class Workers:
    """The grading processes of a run, and which students each holds. Each worker is warm: it
    imports the grader, pytest and the mock once, collects the checks once (one pytest session),
    and starts its children from a fork server (forkserver.py), a fork of the run's one warm
    sandbox, which loads what the lesson's files import once for all. It holds at most AHEAD
    students: the one it grades and the next, whose child starts meanwhile. It saves each
    student's files as soon as they are graded; a worker that dies costs the student it was
    grading a grader failure (graded again on the next run), no more. While the machine's CPUs sit
    idle (workers waiting on their students' processes: day11's rounds), it starts more, up to
    `most`."""

    AHEAD = 2
    LOOK_EVERY = 0.5  # seconds between looks at the CPUs, for another worker while they idle
    IDLE_TO_GROW = 0.25  # the share of the CPUs' time idle since the last look that starts one more
    # The grader's own time a student may take (the mock reading their prompts, the checks): the
    # child's limits do not bound it. A worker past it is stopped, and the student timed out.
    SECONDS = float(os.environ.get("REACTLINGS_STUDENT_SECONDS") or 600)

    def __init__(self, lesson: Lesson, todo: list[tuple[Entry, str]], out: Path, seed: int, lang: str, jobs: int,
                 most: int | None = None, secret: bool = False):
        # fork where there is fork: a worker then starts with the grader imported already
        self.context = multiprocessing.get_context("fork" if sys.platform == "linux" else "spawn")
        self.warm = forkserver.WarmSandbox.take(forkserver.imports_of(lesson.exercise, lesson.solution)) \
            if self.context.get_start_method() == "fork" and forkserver.available() else None
        self.settings = (str(lesson.folder), seed, secret, lang, str(out), jail.required, os.getpid(),
                         self.warm and self.warm.door)
        self.waiting, self.out, self.lang = list(reversed(todo)), out, lang
        # Each worker, with its children, on one CPU of its own, in turn: a worker and its child
        # answer each other a hundred times a student, and a message that wakes a process on
        # another CPU costs both CPUs more than the message (about a tenth of a class run's time)
        self.cpus = itertools.cycle(sorted(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else [None])
        self.workers = [self._start() for _ in range(max(1, min(jobs, len(todo))))]
        self.most, self.idle_cpus, self.looked = max(jobs, most or jobs), busy.IdleCPUs(), time.monotonic()

    def _start(self) -> dict:
        pipe, theirs = self.context.Pipe()
        process = self.context.Process(target=work, args=(*self.settings, next(self.cpus), theirs), daemon=True)
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
        while holding := [w for w in self.workers if w["holds"]]:
            left = min(w["since"] for w in holding) + self.SECONDS - time.monotonic()
            ready = multiprocessing.connection.wait([w["pipe"] for w in holding] + [w["process"].sentinel for w in holding],
                                                    timeout=max(0.0, min(left, self.LOOK_EVERY)))
            self._grow()
            for worker in holding:
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
        if self.warm:
            self.warm.close()

    def _grow(self) -> None:
        """One more worker, if the CPUs were idle enough since the last look and students wait."""
        if len(self.workers) >= self.most or not self.waiting or time.monotonic() < self.looked + self.LOOK_EVERY:
            return
        self.looked = time.monotonic()
        if self.idle_cpus.share() > self.IDLE_TO_GROW:
            self.workers.append(self._start())

    def stop(self) -> None:
        for worker in self.workers:  # all at once: one waited for would give the others time to see
            worker["process"].kill()  # the loss and save a grader failure (its fork server and children go with it)
        for worker in self.workers:
            worker["process"].join()
        if self.warm:
            self.warm.close(kill=True)

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


def work(lesson_ref: str, seed: int, secret: bool, lang: str, out: str, required: bool, run: int, door,
         cpu: int | None, pipe) -> None:
    """A worker: one pytest session grading each file the run sends, until it sends None, at `seed`
    (a `secret` one: each file at its own, runner.submission_seed). `door`: the run's warm
    sandbox's (forked workers only), whose forks serve as its fork server. `cpu`: the one it and
    its children run on (fork server children take the grader's CPUs, forkserver.py)."""
    from mock_llm import load_world
    from validator.grading.grade import Collector, run_checks
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # Ctrl-C is the run's to handle: it stops the workers
    if cpu is not None:
        try:
            os.sched_setaffinity(0, {cpu})
        except OSError:  # taken away meanwhile (a cpuset changed): any CPU, as the scheduler likes
            pass
    if sys.platform == "linux":
        launching.die_with(run, 0)  # a run that is killed takes its workers with it
    jail.required = required
    jail.unavailable_reason()  # probed now, while this process has one thread: forking is safe
    lesson = load_lesson(lesson_ref)
    server = forkserver.ForkServer(forkserver.imports_of(lesson.exercise, lesson.solution), door) \
        if forkserver.available() else None
    collector = Collector(lesson, None, load_world(lesson.folder, seed))
    try:
        run_checks(lesson, collector, GradingLoop(lesson, collector, pipe, Path(out), lang, server, secret))
    except LessonError as error:  # the lesson's checks can't run at all: the run says so, once
        pipe.send((None, {"key": error.key, "params": error.params}))
    finally:
        if server:
            server.close()


class GradingLoop:
    """A worker's pytest plugin: the checks are collected once, then run on each file in turn, the
    next file's child starting while the current one is graded."""

    def __init__(self, lesson: Lesson, collector, pipe, out: Path, lang: str, server, secret: bool):
        self.lesson, self.collector, self.pipe, self.out, self.lang, self.server = (
            lesson, collector, pipe, out, lang, server)
        self.seed, self.secret = collector.scenario_world.seed, secret

    @pytest.hookimpl(tryfirst=True)
    def pytest_runtestloop(self, session):
        from validator.grading.grade import checks_loaded, run_items
        if not checks_loaded(session):
            return None
        gc.collect()
        gc.freeze()  # the grader, pytest and the checks, loaded once: no collection walks them per student
        upcoming = self._next()
        while upcoming:
            (entry, key), child, world = upcoming
            upcoming = self._next()
            try:  # whatever goes wrong with one student is that student's record, never the lesson's
                result = run_items(session.items, self.collector, child, entry.path, world)
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
        from mock_llm import load_world  # imported by the worker already (work)
        seed = submission_seed(self.seed, task[0].path.read_bytes()) if self.secret else self.seed
        world = load_world(self.lesson.folder, seed)  # its own: nothing of the last student's is kept in it
        child = open_submission(self.lesson, world, task[0].path, forkserver=self.server)
        child.spawn(load=False)
        return task, child, world


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
    kit = ROOT
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


def submission_key(entry: Entry, version: str, seed: int, lang: str, secret: bool = False) -> str:
    """What a student's outputs are made of: their file, their name and its name in the feedback,
    the lesson and grader (version), the seed (and whether it is a secret one, which draws each
    file's numbers from it), the language."""
    seeded = f"{seed}{' secret' if secret else ''}"
    return hashlib.sha256(f"{entry.digest}\0{entry.student}\0{entry.shown}\0{version}\0{seeded}\0{lang}".encode()).hexdigest()[:24]


def fingerprint(path: Path) -> dict:
    """What the flags need of a file, kept in its record: a rerun need not read the file again."""
    text = read_source(path)
    return {"shape": code_shape(text), "markers": "BEGIN SOLUTION" in text or "END SOLUTION" in text}


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
    record = {**entry.names(), "key": None if result["status"] == Status.GRADER_FAILED else key, **result}
    write_atomically(folder / "record.json", json.dumps(record, ensure_ascii=False, indent=1, sort_keys=True) + "\n")
    return record
