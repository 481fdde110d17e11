"""Grade a whole class: `python validate.py grade day06 SUBMISSIONS --out GRADES`.

SUBMISSIONS holds one `.py` file per student, or one folder or `.zip` per student with the lesson's
exercise file inside (submissions.py finds and vets them). GRADES receives:

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

This module is the run, top to bottom: find the submissions, keep each record whose inputs did not
change, grade the rest in warm workers (workers.py), then finish_class: the flags that compare
students (copies.py), the overrides, the gradebooks (gradebooks.py). Every file is written whole
and renamed into place as soon as its student is graded. Stopping the run and starting it again
grades only the students whose file or any other input of their outputs changed (the key), or
whose outputs are gone; a failure of the grader itself is never kept. The same inputs give the
same bytes, from any working folder, but for the `seconds` column, which is measured.

With `--shard K/N` a run grades only its share of the class, and saves what `merge` needs in
place of the gradebooks; merge ends as a run does, in finish_class (shards.py).
"""
from __future__ import annotations

import hashlib
import json
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

from rich.console import Console
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

from mock_llm import DEFAULT_SEED
from validator.files import write_atomically
from validator.instructor import overrides
from validator.instructor.copies import look_at
from validator.instructor.gradebooks import (
    by_name,
    class_summary,
    print_summary,
    summary_html,
    todo_points,
    write_gradebooks,
)
from validator.instructor.submissions import Entry, check_folders, find_submissions, stage
from validator.instructor.workers import Workers, lesson_version, submission_key
from validator.isolation import jail
from validator.lessons import Lesson, LessonError, say
from validator.outcomes import Status

SEED_FINGERPRINT = ".seed-fingerprint"  # in --out: which seed its grades are at


def seed_fingerprint(seed: int) -> str:
    """A short digest that tells seeds apart without showing one: a secret seed is long and random
    (cli/options.py, GUESSABLE), so its digest gives nothing away."""
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


@dataclass
class Tally:
    """How far a run got: what a Ctrl-C reports, and the workers it stops."""
    todo: int = 0
    graded: int = 0
    workers: Workers | None = None


def grade_class(lesson: Lesson, submissions: Path, out: Path, seed: int, jobs: int, lang: str,
                console: Console, reseed: bool = False, shard=None, most_jobs: int | None = None,
                secret: bool = False) -> int:
    """Grade every submission into the gradebooks in `out`, `jobs` at once (up to `most_jobs` while
    the CPUs sit idle). 130 when stopped by Ctrl-C, at any moment: what was graded is saved, and
    the same command grades the rest. An `out` graded with another seed is refused unless
    `reseed`. A `shard` (shards.Shard) grades only its share of the class into `out`, and saves
    what `merge` needs instead of the gradebooks."""
    started = time.monotonic()
    check_folders(submissions, out)
    check_seed(out, seed, reseed, lang)
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
            records = _records(share, lesson, out, seed, jobs, lang, console, tally, most_jobs, secret)
        if shard:
            ordered = shard.save(out, lesson, seed, lang, entries, records, ignored, console)
        else:
            ordered = finish_class(out, lesson, entries, records, ignored, public, judged, lang, console)
    except KeyboardInterrupt:
        if tally.workers is None:
            console.print(say("class_stopped_early", lang), markup=False)
        else:  # stopped already (_records), before the staged copies were removed
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
    flagged, noted, lines = look_at(entries, records, lesson, lang)
    ordered = [dict(r, flags=flagged.get(r["folder"], []), notes=noted.get(r["folder"], []))
               for r in sorted(records.values(), key=by_name)]
    points = todo_points(lesson)
    ordered, unmatched = overrides.apply(out, lesson, ordered, points, judged, lang)
    write_gradebooks(out, lesson, ordered, points)
    summary = dict(class_summary(lesson, ordered, points, seed_note), unmatched_overrides=unmatched)
    write_atomically(out / "summary.html", summary_html(lesson, summary, ordered, ignored, lang))
    print_summary(console, lesson, summary, ordered, lines, ignored, lang)
    overrides.print_overrides(console, ordered, unmatched, lang)
    return ordered


def _records(entries: list[Entry], lesson: Lesson, out: Path, seed: int, jobs: int, lang: str,
             console: Console, tally: Tally, most_jobs: int | None = None, secret: bool = False) -> dict[str, dict]:
    """Every student's record, by folder: kept from the last run when none of its inputs changed and
    its outputs are there, else graded now (a progress bar on a terminal)."""
    version = lesson_version(lesson)
    records: dict[str, dict] = {}
    todo: list[tuple[Entry, str]] = []
    for entry in entries:
        if entry.path is None:
            records[entry.folder] = {**entry.names(), "status": Status.MISSING, "problem": entry.problem,
                                     "score": 0, "max": None}
            continue
        key = submission_key(entry, version, seed, lang, secret)
        kept = _kept(out / "students" / entry.folder, key)
        if kept:
            records[entry.folder] = kept
            entry.source = None
        else:
            stage(entry)
            todo.append((entry, key))
    tally.todo = len(todo)
    if todo:
        # the checks collected here first: each worker, a fork of this process, then starts with
        # pytest's modules and the checks' imported (and the gradebooks need the points anyway)
        todo_points(lesson)
        tally.workers = Workers(lesson, todo, out, seed, lang, jobs, most_jobs, secret)
        try:
            with _progress(console, lang, len(todo)) as (bar, task):
                for folder, record in tally.workers.graded():
                    records[folder] = record
                    tally.graded += 1
                    bar.advance(task)
                    bar.refresh()
        except BaseException:  # Ctrl-C: the workers end here, before the staged copies they read are removed
            tally.workers.stop()
            raise
    return records


class _progress:
    """A rich progress bar on a terminal; nothing when there is nothing to grade or no terminal.
    Drawn as each student is graded, by no thread of its own: the run forks a worker whenever it
    adds or replaces one, and a fork of a process with other threads may inherit a lock one of
    them held (a worker that then hangs, its student timed out)."""

    def __init__(self, console: Console, lang: str, total: int):
        self.bar = Progress(TextColumn(say("class_grading", lang)), BarColumn(), MofNCompleteColumn(),
                            TimeElapsedColumn(), console=console, auto_refresh=False,
                            disable=not console.is_terminal or not total)
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


