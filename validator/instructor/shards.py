"""A class graded on several machines: `grade ... --shard K/N` on each, then `merge`.

    python validate.py grade day06 SUBMISSIONS --out shard-1 --shard 1/3     (and 2/3, 3/3 elsewhere)
    python validate.py merge GRADES shard-1 shard-2 shard-3

Every shard reads the whole class (cheap: the files are copied, not run), so a student's folder
name, the flags for two submissions under one name or one file on disk, and what was ignored are
those of one run; it grades only its share, and saves in its --out each student's files, as a run
does, and SHARD_FILE: its share's records and what `merge` checks (which shard, the seed's
fingerprint, the lesson's version, a digest of the class as found). `merge` checks that the shards
are one class cut one way, graded alike, each once and none missing, then writes the gradebooks as
one run would (classroom.finish_class): the flags that compare students (copies) are made there,
over the whole class. The bytes are one run's, but for the measured `seconds`.

Which shard grades a student: a hash of their name as a reader takes it (submissions.same_name, so
`bob.py` and `Bob.zip` go together), modulo N. It depends on that name alone, never on the other
students, the order files are listed in or the machine: a student added later changes no one
else's shard, so a shard's earlier grades are kept (the grade run's key). The price is balance: the
shares are random, not equal (N = 10 over 1,000 students: about 100 ± 10 each). Dealing the sorted
names out in turn would be even, but one name added would move every name after it to another
shard, and their grades with it.

`--shard auto` reads the shard from the engine that runs it: a Kubernetes Indexed Job's
JOB_COMPLETION_INDEX (0 to completions-1; Kubernetes gives no count: `--shard auto/N`), a Slurm
array's SLURM_ARRAY_TASK_ID, SLURM_ARRAY_TASK_MIN, SLURM_ARRAY_TASK_MAX and SLURM_ARRAY_TASK_COUNT
(any contiguous range, `--array=1-N` or `0-(N-1)`: MAX - MIN + 1 is COUNT). A GitHub Actions matrix sets no variable: the workflow passes
`--shard ${{ matrix.shard }}/N` (recipes.py).
"""
from __future__ import annotations

import hashlib
import json
import re
from dataclasses import dataclass
from pathlib import Path

from rich.console import Console

from mock_llm import DEFAULT_SEED
from validator.files import write_atomically
from validator.instructor import overrides
from validator.instructor.classroom import SEED_FINGERPRINT, finish_class, seed_fingerprint
from validator.instructor.submissions import Entry, holds_more_than_gradebooks
from validator.instructor.workers import lesson_version
from validator.lessons import LessonError, load_lesson, say

SHARD_FILE = ".shard.json"  # in a shard's --out: what merge needs and checks
STUDENT_FILES = ("results.json", "feedback.txt", "record.json")  # what a run writes in students/FOLDER


@dataclass(frozen=True)
class Shard:
    """Shard `index` (1 to `count`) of a class cut in `count`."""
    index: int
    count: int

    def holds(self, entry: Entry) -> bool:
        return shard_of(entry.reader_name, self.count) == self.index

    def share(self, out: Path, entries: list[Entry]) -> list[Entry]:
        """This shard's students. Its earlier SHARD_FILE goes first: a run stopped before the end
        leaves none, so merge never joins a share half regraded."""
        (out / SHARD_FILE).unlink(missing_ok=True)
        return [entry for entry in entries if self.holds(entry)]

    def save(self, out: Path, lesson, seed: int, lang: str, entries: list[Entry], records: dict[str, dict],
             ignored: list[str], console: Console) -> list[dict]:
        """SHARD_FILE, once the share is graded; the share's records."""
        share = [e for e in entries if e.folder in records]
        saved = {"shard": self.index, "shards": self.count, "lesson": lesson.name, "version": lesson_version(lesson),
                 "seed": seed_fingerprint(seed), "lang": lang, "class": class_digest(entries, ignored),
                 "students": len(entries), "ignored": ignored,
                 "entries": [{"student": e.student, "folder": e.folder, "shown": e.shown, "flags": e.flags,
                              "notes": e.notes} for e in share],
                 "records": records}
        write_atomically(out / SHARD_FILE, json.dumps(saved, ensure_ascii=False, indent=1, sort_keys=True) + "\n")
        console.print(say("shard_saved", lang, shard=self.index, shards=self.count, share=len(share),
                          students=len(entries), out=out), markup=False)
        return list(records.values())


def shard_of(name: str, count: int) -> int:
    """The shard (1 to count) of a student by their name as a reader takes it: the first 8 bytes
    of its SHA-256 modulo count. The same on every machine and Python (no hash())."""
    digest = hashlib.sha256(name.encode("utf-8", "surrogatepass")).digest()
    return int.from_bytes(digest[:8], "big") % count + 1


def class_digest(entries: list[Entry], ignored: list[str]) -> str:
    """The class as a shard found it: every student, their file and what it holds, its flags and
    notes, and what was ignored. Shards that found different classes can't be merged."""
    found = [[e.student, e.folder, e.shown, e.digest, e.problem, e.flags, e.notes] for e in entries]
    text = json.dumps([found, ignored], ensure_ascii=False)
    return hashlib.sha256(text.encode("utf-8", "surrogatepass")).hexdigest()[:16]


# ---------------------------------------------------------------- --shard K/N, auto, auto/N

SHAPE = re.compile(r"(\d+|auto)(?:/(\d+))?")


def parse_shard(given: str, environ: dict[str, str]) -> Shard:
    """--shard's value: K/N, auto (Slurm: both from its variables) or auto/N (Kubernetes: the
    index from JOB_COMPLETION_INDEX). Bad values are errors that say what to give."""
    shape = SHAPE.fullmatch(given.strip())
    if not shape or (shape[1] != "auto" and not shape[2]):
        raise LessonError("shard_bad", given=given)
    count = int(shape[2]) if shape[2] else None
    if shape[1] == "auto":
        index, count = _from_engine(given, count, environ)
    else:
        index = int(shape[1])
    if count < 1 or not 1 <= index <= count:
        raise LessonError("shard_range", given=given, index=index, count=count)
    return Shard(index, count)


def _from_engine(given: str, count: int | None, environ: dict[str, str]) -> tuple[int, int]:
    """The shard (1-based) and the count, from the engine's variables."""
    kubernetes, slurm = "JOB_COMPLETION_INDEX" in environ, "SLURM_ARRAY_TASK_ID" in environ
    if kubernetes and slurm:
        raise LessonError("shard_auto_both", given=given)
    if kubernetes:
        if count is None:
            raise LessonError("shard_auto_count", given=given)
        return _number(environ, "JOB_COMPLETION_INDEX", given) + 1, count
    if not slurm:
        raise LessonError("shard_auto_none", given=given)
    task, low = _number(environ, "SLURM_ARRAY_TASK_ID", given), _number(environ, "SLURM_ARRAY_TASK_MIN", given)
    tasks, high = _number(environ, "SLURM_ARRAY_TASK_COUNT", given), _number(environ, "SLURM_ARRAY_TASK_MAX", given)
    if high - low + 1 != tasks:  # --array=1,3,5 or 1-7:2: the ids are no 1 to N
        raise LessonError("shard_slurm_gaps", low=low, high=high, tasks=tasks)
    if count is not None and count != tasks:
        raise LessonError("shard_count_differs", given=given, count=count, variable="SLURM_ARRAY_TASK_COUNT",
                          value=tasks)
    return task - low + 1, tasks


def _number(environ: dict[str, str], variable: str, given: str) -> int:
    if variable not in environ:
        raise LessonError("shard_auto_unset", given=given, variable=variable)
    value = environ[variable]
    if not value.strip().isdigit():
        raise LessonError("shard_auto_variable", given=given, variable=variable, value=value)
    return int(value)


# ---------------------------------------------------------------- merge

# What every shard of one class must agree on, and the message when two don't.
AGREED = {"lesson": "merge_other_lesson", "shards": "merge_other_count", "seed": "merge_other_seed",
          "version": "merge_other_version", "lang": "merge_other_lang", "class": "merge_other_class"}


def merge(out: Path, folders: list[Path], console: Console, lang: str) -> int:
    """Join the shards saved in `folders` into the gradebooks of the whole class in `out`, as one
    run would have written them; refused, before anything is written, unless the shards are every
    shard of one class, each once, graded alike by this kit."""
    shards = [_read(folder) for folder in folders]
    first, first_folder = shards[0], folders[0]
    for saved, folder in zip(shards, folders):
        for field, message in AGREED.items():
            if saved[field] != first[field]:
                raise LessonError(message, first=first_folder, other=folder)
    by_index: dict[int, Path] = {}
    for saved, folder in zip(shards, folders):
        if saved["shard"] in by_index:
            raise LessonError("merge_twice", shard=saved["shard"], shards=first["shards"],
                              first=by_index[saved["shard"]], other=folder)
        by_index[saved["shard"]] = folder
    missing = [str(k) for k in range(1, first["shards"] + 1) if k not in by_index]
    if missing:
        # all text: shard 2 missing of 2 given is the same figure twice, not two that read alike (say)
        raise LessonError("merge_missing", missing=", ".join(missing), shards=str(first["shards"]),
                          given=str(len(folders)))
    lesson = load_lesson(first["lesson"])
    if lesson_version(lesson) != first["version"]:
        raise LessonError("merge_other_kit", lesson=lesson.name)
    entries, records, holder = _joined(shards, folders)
    if len(records) != first["students"]:
        raise LessonError("merge_other_class", first=first_folder, other=folders[-1])
    _check_out(out, folders, first["seed"])
    judged = overrides.read(out)  # a file that is no overrides is said before anything is written
    out.mkdir(parents=True, exist_ok=True)
    write_atomically(out / SEED_FINGERPRINT, first["seed"] + "\n")
    for folder, source in holder.items():
        _copy_student(source / "students" / folder, out / "students" / folder)
    public = say("class_public_seed", first["lang"]) if first["seed"] == seed_fingerprint(DEFAULT_SEED) else ""
    finish_class(out, lesson, entries, records, first["ignored"], public, judged, first["lang"], console)
    console.print(say("merged", lang, shards=first["shards"], students=len(records), out=out), markup=False)
    return 0


def _read(folder: Path) -> dict:
    """A shard's SHARD_FILE, if it is one: every field there, one record per entry, and each
    student's folder a plain name, so that no copy lands outside `out`/students."""
    try:
        saved = json.loads((folder / SHARD_FILE).read_text(encoding="utf-8"))
        fields = {*AGREED, "shard", "entries", "records", "ignored", "students"} <= set(saved)
        names = [entry["folder"] for entry in saved["entries"]] if fields else []
        plain = all(isinstance(n, str) and n not in ("", ".", "..") and Path(n).name == n for n in names)
        whole = fields and plain and sorted(names) == sorted(saved["records"])
    except (OSError, ValueError, TypeError, KeyError):
        whole = False
    if not whole:
        raise LessonError("merge_not_a_shard", path=folder, file=SHARD_FILE)
    return saved


def _joined(shards: list[dict], folders: list[Path]) -> tuple[list[Entry], dict[str, dict], dict[str, Path]]:
    """Every student's entry and record, and which shard's folder holds their files; a student in
    two shards is refused."""
    entries, records, holder = [], {}, {}
    for saved, folder in zip(shards, folders):
        for entry in saved["entries"]:
            name = entry["folder"]
            if name in records:
                raise LessonError("merge_overlap", student=entry["student"], first=holder[name], other=folder)
            entries.append(Entry(entry["student"], name, entry["shown"], flags=entry["flags"], notes=entry["notes"]))
            records[name], holder[name] = saved["records"][name], folder
    return entries, records, holder


def _check_out(out: Path, folders: list[Path], seed: str) -> None:
    """Refuse an `out` that is a shard's folder, holds more than gradebooks, or gradebooks at
    another seed."""
    if out.exists() and any(out.resolve() == folder.resolve() for folder in folders):
        raise LessonError("merge_out_is_shard", out=out)
    if holds_more_than_gradebooks(out):
        raise LessonError("merge_out_not_gradebooks", out=out)
    try:
        earlier = (out / SEED_FINGERPRINT).read_text(encoding="utf-8").strip()
    except OSError:
        return
    if earlier != seed:
        raise LessonError("merge_out_other_seed", out=out)


def _copy_student(source: Path, target: Path) -> None:
    """A student's files as their shard wrote them; none of another grade left beside them. A
    missing student has none."""
    if not source.is_dir():
        return
    target.mkdir(parents=True, exist_ok=True)
    for name in STUDENT_FILES:
        if (source / name).is_file():
            write_atomically(target / name, (source / name).read_bytes())
        else:
            (target / name).unlink(missing_ok=True)
