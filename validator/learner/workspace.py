"""The learner's own files: a working copy of each exercise, and their progress, kept apart from
the course so that nothing the kit does (regenerating exercises, its tests, a `git pull` of a
course update) ever touches a learner's edits.

    workspace/day06.py          the file you edit; made from lessons/day06/day06.py on first use
    workspace/backups/…         what `reset` replaced
    workspace/progress.json     best score per lesson, hint levels seen
    workspace/traces/day06.html the last graded run as a page (`validate.py day06 --html`)

In the kit's own repository git ignores `workspace/`; in the learners' copy of the course (`release`)
only the bookkeeping (BOOKKEEPING) is ignored, so a learner's push hands their exercise files in.
REACTLINGS_WORKSPACE names another folder (the kit's tests use it).
"""
from __future__ import annotations

import json
import os
import shutil
import time
from pathlib import Path

from validator.files import ROOT, write_atomically
from validator.lessons import Lesson, LessonError

FOLDER, STATE, BACKUPS, TRACES = "workspace", "progress.json", "backups", "traces"
BOOKKEEPING = (STATE, f"{BACKUPS}/", f"{TRACES}/")  # the kit's files in the workspace, as opposed to the learner's work


def folder() -> Path:
    return Path(os.environ.get("REACTLINGS_WORKSPACE") or ROOT / FOLDER)


def trace_page(lesson: Lesson) -> Path:
    """Where `--html` writes the lesson's trace page unless told."""
    return folder() / TRACES / f"{lesson.name}.html"


def working_copy(lesson: Lesson) -> tuple[Path, bool]:
    """The learner's copy of the lesson's exercise, and whether it was just made."""
    path = folder() / lesson.exercise.name
    if path.exists():
        return path, False
    if path.is_symlink():  # a dangling link: copying the exercise would write wherever it points
        raise LessonError("broken_link", path=path, target=os.readlink(path))
    if not lesson.exercise.is_file():
        raise LessonError("no_such_file", path=lesson.exercise)
    path.parent.mkdir(parents=True, exist_ok=True)
    shutil.copyfile(lesson.exercise, path)
    return path, True


def reset(lesson: Lesson) -> Path | None:
    """Put a fresh copy of the exercise in place, the learner's file in backups/ first, and start
    the lesson's progress (best score, hints seen) again. Returns the backup's path (None when
    there was nothing to keep)."""
    state = load_state()
    for entries in state.values():
        if isinstance(entries, dict):
            entries.pop(lesson.name, None)
    save_state(state)
    path, created = working_copy(lesson)
    if created:
        return None
    backups = folder() / BACKUPS
    backups.mkdir(parents=True, exist_ok=True)
    stamp = time.strftime("%Y%m%d-%H%M%S")
    backup, number = backups / f"{path.stem}.{stamp}{path.suffix}", 1
    while backup.exists():  # two resets within a second
        number += 1
        backup = backups / f"{path.stem}.{stamp}-{number}{path.suffix}"
    shutil.copyfile(path, backup)
    shutil.copyfile(lesson.exercise, path)
    return backup


# ---------------------------------------------------------------- progress

def _state_path() -> Path:
    return folder() / STATE


def load_state() -> dict:
    """The learner's progress. A file the kit can't read as progress (cut short by a crash, edited
    by hand) is never dropped in silence: it is copied into backups/, the learner told so, and
    whatever of it is well-formed kept."""
    path = _state_path()
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        return {"lessons": {}, "hints": {}}
    except (OSError, UnicodeDecodeError):
        text = ""
    try:
        read = json.loads(text)
    except ValueError:
        read = None
    state = _well_formed(read)
    if not isinstance(read, dict) or state != {"lessons": {}, "hints": {}, **read}:
        _set_aside(path)
        save_state(state)  # told once: the next command reads what was kept
    return state


def _well_formed(read) -> dict:
    """The parts of `read` shaped as save_state writes them: per lesson its scores, and per lesson
    each TODO's hint level seen."""
    read = read if isinstance(read, dict) else {}

    def table(value, fits) -> dict:
        return {key: entry for key, entry in value.items() if fits(entry)} if isinstance(value, dict) else {}

    def counts(entry) -> bool:  # bool is an int: a lesson's "passed" is one of its counts
        return isinstance(entry, dict) and all(isinstance(value, int) and value >= 0 for value in entry.values())

    return {"lessons": table(read.get("lessons"), counts), "hints": table(read.get("hints"), counts)}


def _set_aside(path: Path) -> None:
    """Copy an unreadable progress file into backups/ before it is written over, and say so."""
    from validator.console import stderr
    from validator.lessons import default_lang, say
    backups = folder() / BACKUPS
    backups.mkdir(parents=True, exist_ok=True)
    stamp, number = time.strftime("%Y%m%d-%H%M%S"), 1
    backup = backups / f"progress.{stamp}.json"
    while backup.exists():
        number += 1
        backup = backups / f"progress.{stamp}-{number}.json"
    shutil.copyfile(path, backup)
    stderr().print(say("progress_unreadable", default_lang(), path=path, backup=backup), markup=False)


def save_state(state: dict) -> None:
    """Written whole, then renamed into place: an interrupted write never loses the old state."""
    path = _state_path()
    path.parent.mkdir(parents=True, exist_ok=True)
    write_atomically(path, json.dumps(state, ensure_ascii=False, indent=1, sort_keys=True))


def record_score(lesson: str, score: int, max_score: int) -> None:
    state = load_state()
    entry = state.setdefault("lessons", {}).setdefault(lesson, {"best": 0})
    entry.update(best=max(int(entry.get("best", 0)), score), max=max_score, last=score,
                 passed=bool(entry.get("passed")) or score == max_score)
    save_state(state)


def next_hint_level(lesson: str, todo: str, levels: int) -> int:
    """The hint level to show for a TODO (1-based), one more each time it is asked, up to the last."""
    state = load_state()
    seen = state.setdefault("hints", {}).setdefault(lesson, {})
    level = min(int(seen.get(todo, 0)) + 1, levels)
    seen[todo] = level
    save_state(state)
    return level
