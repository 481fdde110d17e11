"""An instructor's judgement over the autograder's: GRADES/overrides.csv.

    student,target,points,comment
    bob,TODO 2.1,3,"history kept in order, only printed reversed"
    李雷,test_parses_an_action,1,parsed by hand: fine

A row sets the points of one student's TODO (target: its id, `2.1` or `TODO 2.1`; points: the
TODO's new points, 0 to what it is worth) or of one check (target: its name, as grades.json names
it; points: the check's new points, 0 to what it is worth). A TODO's override decides its points,
whatever its checks' overrides say. Points may have decimals (2.5, or 2,5).

The file is the instructor's: grading reads it on every run and never writes it; `validate.py
override` edits it, one row at a time. It is read as spreadsheets save it: UTF-8 with or without a
BOM, any line ends, quoted cells (a comma, a quote, a line break inside), `,` `;` or a tab between
cells, a leading apostrophe that marks a cell as text.

Overrides are applied on the records just before the gradebooks are written (apply). Records keep
the autograder's own grade and outputs (record.json is never overridden), so an override removed
is gone on the next run and none counts twice; a run resumed after Ctrl-C applies them as any
other run. An override that matches nothing (no such student, no such TODO or check: the lesson
changed) is applied to no one and said on the terminal and in summary.html; it stays in the file.
"""
from __future__ import annotations

import copy
import csv
import io
import json
import re
import unicodedata
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path

from rich.console import Console

from validator.files import write_atomically
from validator.instructor.gradebooks import csv_text, spreadsheet_safe, status_name, student_outputs
from validator.lessons import Lesson, LessonError, say

FILE = "overrides.csv"
COLUMNS = ("student", "target", "points", "comment")
REQUIRED = COLUMNS[:3]
SEPARATORS = ",;\t"  # as spreadsheets save CSV: `;` where the decimal mark is a comma
TODO_TARGET = re.compile(r"todo\s+(\S+)", re.IGNORECASE)
NUMBER = re.compile(r"\+?(\d+)(?:[.,](\d+))?")  # never negative: no TODO or check is worth less than 0


@dataclass(frozen=True)
class Override:
    row: int  # the spreadsheet's row number: the header is row 1
    student: str
    target: str  # a TODO's id (`TODO 2.1` read as 2.1) or a check's name
    points: int | float
    comment: str
    written: str = field(default="", compare=False)  # the target as the file has it, to say which row is meant


@dataclass
class Table:
    """overrides.csv as it is saved, for `override` to write back every row but the one it edits."""
    header: list[str]
    rows: list[list[str]]  # the rows after the header, blank ones too
    separator: str
    bom: bool
    newline: str


# ---------------------------------------------------------------- reading the file

def read(out: Path) -> list[Override]:
    """The overrides in `out`'s overrides.csv, in the file's order; none without one. A file that
    can't be read as overrides is a LessonError naming its row, raised before anything is graded."""
    return overrides_of(read_table(out / FILE), out / FILE)


def read_table(path: Path) -> Table:
    try:
        data = path.read_bytes()
    except FileNotFoundError:
        return Table(list(COLUMNS), [], ",", True, "\r\n")
    try:
        text = data.decode("utf-8-sig")
    except UnicodeDecodeError as error:  # Excel's plain "CSV" is the local code page, not UTF-8
        raise LessonError("override_not_utf8", path=path, line=data[:error.start].count(b"\n") + 1) from None
    first = text.split("\n", 1)[0]
    separator = min(SEPARATORS, key=lambda s: (first.find(s) < 0, first.find(s)))  # the first one in the header
    reader = csv.reader(io.StringIO(text, newline=""), delimiter=separator, strict=True)
    rows = []
    try:
        rows.extend(reader)
    except csv.Error as error:
        raise LessonError("override_bad_csv", path=path, row=len(rows) + 1, problem=str(error)) from None
    header, *body = rows or [list(COLUMNS)]
    return Table(header, body, separator, data.startswith(b"\xef\xbb\xbf"), "\r\n" if "\r\n" in text else "\n")


def overrides_of(table: Table, path: Path) -> list[Override]:
    columns = columns_of(table, path)
    overrides = []
    for number, cells in enumerate(table.rows, start=2):
        if not any(cell.strip() for cell in cells):  # a blank row, as spreadsheets leave them
            continue
        stray = [i for i, cell in enumerate(cells) if cell.strip() and i not in columns.values()]
        if stray:
            raise LessonError("override_stray_cell", path=path, row=number, column=column_letters(stray[0]))
        cell = {name: unmarked(cells[i].strip()) if i < len(cells) else "" for name, i in columns.items()}
        for name in REQUIRED:
            if not cell[name]:
                raise LessonError("override_empty_cell", path=path, row=number, column=name)
        overrides.append(Override(number, cell["student"], target_of(cell["target"]),
                                  points_of(cell["points"], path, number), " ".join(cell.get("comment", "").split()),
                                  cell["target"]))
    return overrides


def columns_of(table: Table, path: Path) -> dict[str, int]:
    """Each column's place, by the header's names (any case, any order; comment may be left out)."""
    columns: dict[str, int] = {}
    for place, name in enumerate(table.header):
        name = name.strip().casefold()
        if not name:  # a column a spreadsheet kept without a name: its cells must be empty
            continue
        if name in columns:
            raise LessonError("override_column_twice", path=path, column=name)
        if name not in COLUMNS:
            raise LessonError("override_bad_column", path=path, column=name, columns=", ".join(COLUMNS))
        columns[name] = place
    for name in REQUIRED:
        if name not in columns:
            raise LessonError("override_no_column", path=path, column=name, columns=", ".join(COLUMNS))
    return columns


def column_letters(place: int) -> str:
    """A column as spreadsheets name it: A for the first, Z, AA, AB…"""
    letters = ""
    place += 1
    while place:
        place, rest = divmod(place - 1, 26)
        letters = chr(ord("A") + rest) + letters
    return letters


def unmarked(cell: str) -> str:
    """A cell without the apostrophe a spreadsheet (or spreadsheet_safe) puts before text that
    starts like a formula."""
    return cell[1:] if cell[:1] == "'" and spreadsheet_safe(cell[1:]) != cell[1:] else cell


def target_of(text: str) -> str:
    todo = TODO_TARGET.fullmatch(text)
    return todo.group(1) if todo else text


def points_of(text: str, path: Path, row: int) -> int | float:
    points = parsed_points(text)
    if points is None:
        raise LessonError("override_not_a_number", path=path, row=row, points=text)
    return points


def parsed_points(text: str) -> int | float | None:
    match = NUMBER.fullmatch(text.strip())
    if not match:
        return None
    whole, fraction = match.groups()
    return number(float(f"{whole}.{fraction}") if fraction else int(whole))


def number(value: int | float) -> int | float:
    """A score as the gradebooks write it: a whole number without a decimal point; sums of
    decimals without float noise (0.1 + 0.2 is 0.3)."""
    value = round(value, 6)
    return int(value) if value == int(value) else value


# ---------------------------------------------------------------- which student, which TODO or check

def same(name: str) -> str:
    return unicodedata.normalize("NFC", name)


class Class:
    """The students of a run, to find an override's: by their name (in any Unicode normalisation,
    as a spreadsheet may have saved it), their folder under students/, or the name they handed in
    under, exactly, when a clash renamed them and no one else handed in under it."""

    def __init__(self, records: list[dict]):
        self.by_name: dict[str, list[dict]] = {}  # a list: two students shown alike are never taken for one
        for record in records:
            self.by_name.setdefault(same(record["student"]), []).append(record)
        self.by_folder = {r["folder"]: r for r in records}
        handed_in = Counter(same(r["handed_in_as"]) for r in records if r.get("handed_in_as"))
        self.by_handed_in_name = {same(r["handed_in_as"]): r for r in records
                                  if r.get("handed_in_as") and handed_in[same(r["handed_in_as"])] == 1}

    def find(self, student: str) -> dict | None:
        """By folder or by name, when only one student is either; else, last, the name handed in: a
        classmate's Alice.py beside alice.py renames both (a clash), and the overrides written for
        "alice" are still alice.py's. None when `student` is one student's folder and another's name
        (a file handed in named after a classmate's folder): which one was meant can't be known."""
        if len(self.all_named(student)) > 1:
            return None
        return (self.by_folder.get(student) or next(iter(self.by_name.get(same(student), [])), None)
                or self.by_handed_in_name.get(same(student)))

    def all_named(self, student: str) -> list[dict]:
        """The students `student` is the folder or the name of."""
        found = [self.by_folder.get(student), *self.by_name.get(same(student), [])]
        return [record for n, record in enumerate(found) if record is not None and record not in found[:n]]

    def written_as(self, record: dict) -> str:
        """How an override names `record`: by name, or by folder if that name is also another's folder."""
        return record["student"] if self.find(record["student"]) is record else record["folder"]


@dataclass
class Target:
    """What an override changes in a record: a TODO, or a check (its place in the record's checks)."""
    todo: str
    check: int | None
    max: int
    was: int
    shown: str  # `TODO 2.1`, or `TODO 2.1 · the check's title`


def target(record: dict, override: Override, points: dict[str, int]) -> Target | None:
    """The TODO or check of `record` the override names; None if the lesson has no such thing."""
    if override.target in points:
        todo = override.target
        return Target(todo, None, points[todo], record["todos"][todo][0], f"TODO {todo}")
    for place, check in enumerate(record["checks"]):
        if check["name"] == override.target:
            return Target(check["todo"], place, check["points"], check["points"] if check["passed"] else 0,
                          f"TODO {check['todo']} · {check['title']}")
    return None


def matched(records: list[dict], overrides: list[Override], lesson: Lesson, points: dict[str, int], path: Path,
            lang: str) -> tuple[dict[str, list[tuple[Override, Target]]], list[str]]:
    """Each student's overrides and what they change, by folder; and, for those that match no
    student, TODO or check, a line each saying why. Raises a LessonError for points out of a
    target's range and for a target overridden twice."""
    students = Class(records)
    found: dict[str, list[tuple[Override, Target]]] = {}
    unmatched = []
    first: dict[tuple[str, str, int | None], int] = {}  # (folder, todo, check) -> row
    for override in overrides:
        record = students.find(override.student)
        aim = target(record, override, points) if record and record.get("todos") else None
        if aim is None:
            unmatched.append(say("override_unmatched", lang, row=override.row, student=override.student,
                                 target=override.written,
                                 why=why_not(record, override, lesson.name, lang, students)))
            continue
        if override.points > aim.max:
            raise LessonError("override_out_of_range", path=path, row=override.row, points=override.points,
                              target=aim.shown, max=aim.max)
        where = (record["folder"], aim.todo, aim.check)
        if where in first:
            raise LessonError("override_twice", path=path, row=override.row, first=first[where], target=aim.shown,
                              student=record["student"])
        first[where] = override.row
        found.setdefault(record["folder"], []).append((override, aim))
    return found, unmatched


def why_not(record: dict | None, override: Override, lesson: str, lang: str, students: Class) -> str:
    """Why an override matches nothing."""
    both = students.all_named(override.student)
    if record is None and len(both) > 1:
        return say("override_two_students", lang, student=override.student, folder_of=both[0]["student"],
                   name_of=both[1]["folder"])
    if record is None:
        return say("override_no_student", lang, student=override.student)
    if not record.get("todos"):
        return say("override_nothing_graded", lang, status=status_name(record["status"], lang))
    return say("override_no_target", lang, lesson=lesson, target=override.target)


# ---------------------------------------------------------------- applying them

def apply(out: Path, lesson: Lesson, records: list[dict], points: dict[str, int], overrides: list[Override],
          lang: str) -> tuple[list[dict], list[str]]:
    """The records as the gradebooks show them, and a line for each override that matched nothing.
    Each student's results.json and feedback.txt are made again from their record's own (the
    autograder's) with their overrides; a file that would not change is left alone. Records keep
    the autograder's score in `autograder` and list their `overrides`; they lose the outputs.

    Whatever writes gradebooks from records (record.json as saved: the outputs in it) calls this
    once, just before: `apply(out, lesson, records, points, read(out), lang)`."""
    found, unmatched = matched(records, overrides, lesson, points, out / FILE, lang)
    shown = []
    for record in records:
        record = overridden(record, found.get(record["folder"], []), lesson, lang)
        if "gradescope" in record:  # a student graded: not missing, no grader failure
            folder = out / "students" / record["folder"]
            for name, text in student_outputs(record.pop("gradescope"), record.pop("feedback")).items():
                if _text(folder / name) != text:
                    write_atomically(folder / name, text)
        shown.append(record)
    return shown, unmatched


def _text(path: Path) -> str | None:
    try:
        return path.read_text(encoding="utf-8")
    except (OSError, ValueError):
        return None


def overridden(record: dict, changes: list[tuple[Override, Target]], lesson: Lesson, lang: str) -> dict:
    """A record with its overrides: its score and TODOs', its notes, its outputs."""
    if not changes:
        return dict(record)
    todos = {todo: list(score) for todo, score in record["todos"].items()}
    for override, aim in sorted(changes, key=lambda change: change[1].check is None):  # checks, then TODOs
        if aim.check is None:
            todos[aim.todo][0] = override.points
        else:
            todos[aim.todo][0] = number(todos[aim.todo][0] + override.points - aim.was)
    score = number(record["score"] + sum(todos[t][0] - record["todos"][t][0] for t in todos))
    lines = [say("override_line", lang, target=aim.shown if aim.check is not None else
                 f"{aim.shown} · {lesson.todo(aim.todo).title[lang]}", points=o.points, max=aim.max, was=aim.was,
                 comment=f" — {o.comment}" if o.comment else "") for o, aim in changes]
    record = dict(record, score=score, todos=todos, autograder={"score": record["score"], "todos": record["todos"]},
                  overrides=[{"row": o.row, "target": o.target, "todo": aim.todo, "points": o.points, "max": aim.max,
                              "was": aim.was, "comment": o.comment} for o, aim in changes],
                  notes=record.get("notes", []) + [say("override_note", lang, line=line) for line in lines])
    if "gradescope" in record:
        total = say("override_total", lang, score=score, max=record["max"], was=record["autograder"]["score"])
        record["gradescope"] = _results(record["gradescope"], changes, lesson, lines, total, score, lang)
        record["feedback"] = record["feedback"] + "\n" + "\n".join(
            [say("override_header", lang), *(f"  {line}" for line in lines), total]) + "\n"
    return record


def _results(results: dict, changes: list[tuple[Override, Target]], lesson: Lesson, lines: list[str], total: str,
             score: int | float, lang: str) -> dict:
    """Gradescope's results.json with the overrides: its top-level score, which Gradescope takes
    over the sum of the tests; an overridden check's own test; a test of its own for each
    overridden TODO (its checks' tests keep what the autograder gave them); the lines in the output."""
    results = copy.deepcopy(results)
    results["score"] = score
    results["output"] += "\n" + "\n".join([say("override_header", lang), *lines, total])
    for (override, aim), line in zip(changes, lines):
        if aim.check is None:
            test = {"name": say("override_todo_test", lang, todo=aim.todo), "number": str(len(results["tests"]) + 1),
                    "tags": [f"TODO {aim.todo}", lesson.todo(aim.todo).function], "visibility": "visible",
                    "output": ""}
            results["tests"].append(test)
        else:
            test = results["tests"][aim.check]
        test.update(score=override.points, max_score=aim.max, output=(test["output"] + "\n" + line).strip(),
                    status="passed" if override.points == aim.max else "failed")
    return results


def print_overrides(console: Console, records: list[dict], unmatched: list[str], lang: str) -> None:
    """On the terminal: how many overrides were applied, and each that matched nothing, with why."""
    applied = sum(len(record.get("overrides", [])) for record in records)
    if applied:
        console.print(say("override_applied", lang, count=applied), markup=False)
    if unmatched:
        console.print(say("override_unmatched_header", lang, count=len(unmatched)), style="yellow", markup=False)
        for line in unmatched:
            console.print(f"  {line}", markup=False)


# ---------------------------------------------------------------- validate.py override

def override_command(out: Path, student: str, target_text: str, points_text: str | None, comment: str, remove: bool,
                     console: Console, lang: str) -> int:
    """Set (or, `remove`, take out) one student's override of a TODO or check in out/overrides.csv,
    checked against the class as last graded (grades.json); every other row is written back as it
    was. The next `grade` run applies it (nothing is graded again)."""
    path = out / FILE
    try:
        book = json.loads((out / "grades.json").read_text(encoding="utf-8"))
    except (OSError, ValueError):
        raise LessonError("override_no_gradebook", out=out) from None
    table = read_table(path)
    overrides_of(table, path)  # a file that can't be read as overrides is not written over
    students = Class(book["students"])
    student = unmarked(student.strip())  # the name as grades.csv shows it, as a row of overrides.csv may
    record = students.find(student)
    wanted = Override(0, student, target_of(target_text.strip()), 0, " ".join(comment.split()))
    aim = target(record, wanted, book["todos"]) if record and record.get("todos") else None
    if aim is None:
        raise LessonError("override_refused", why=why_not(record, wanted, book["lesson"], lang, students))
    points = None if remove else parsed_points(points_text or "")
    if not remove and (points is None or points > aim.max):
        raise LessonError("override_bad_points", points=points_text or "", target=aim.shown, max=aim.max)
    columns = columns_of(table, path)
    if wanted.comment and "comment" not in columns:
        table.header.append("comment")
        columns["comment"] = len(table.header) - 1
    new = [""] * len(table.header)
    for name, value in (("student", students.written_as(record)), ("target", f"TODO {aim.todo}" if aim.check is None else
                                                          wanted.target), ("points", str(points)),
                        ("comment", wanted.comment)):
        if name in columns:
            new[columns[name]] = spreadsheet_safe(value)
    rows, found = [], False
    for cells in table.rows:
        if same_override(cells, columns, students, record, wanted.target):
            if not remove and not found:
                rows.append(new)
            found = True
        else:
            rows.append(cells)
    if remove and not found:
        raise LessonError("override_not_found", path=path, student=record["student"], target=aim.shown)
    if not found:
        rows.append(new)
    # every other row as it was; the new one's cells in quotes
    text = csv_text(table.header, rows, table.separator, table.newline, quoted=lambda cells: cells is new)
    write_atomically(path, (("\ufeff" if table.bom else "") + text).encode("utf-8"))
    console.print(say("override_removed" if remove else "override_saved", lang, path=path, student=record["student"],
                      target=aim.shown, points=points, max=aim.max), markup=False)
    return 0


def same_override(cells: list[str], columns: dict[str, int], students: Class, record: dict, target_name: str) -> bool:
    """Whether a row of the file overrides the same student's same TODO or check."""
    def cell(name: str) -> str:
        return unmarked(cells[columns[name]].strip()) if columns[name] < len(cells) else ""
    return students.find(cell("student")) is record and target_of(cell("target")) == target_name
