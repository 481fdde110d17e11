"""A class's gradebooks from its students' records: grades.csv for people (and spreadsheets),
grades.json for programs, the summary on the terminal and as a self-contained summary.html.
"""
from __future__ import annotations

import csv
import html
import io
import json
import urllib.parse
from collections import Counter
from pathlib import Path
from typing import Callable

import pytest
from rich.console import Console
from rich.table import Table
from rich.text import Text

from validator.files import write_atomically
from validator.grading.report import clean
from validator.lessons import Lesson, say
from validator.outcomes import Status


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


_points: dict[tuple, dict[str, int]] = {}  # (checks file, its text, the TODOs) -> each TODO's points


def todo_points(lesson: Lesson) -> dict[str, int]:
    """Each TODO's points, as the lesson's checks declare them: read by collecting the checks, not
    running them, so that a gradebook says the maximum even of a class where no file was graded.
    Collected once for the same checks (a class run asks before its workers start, and at the end)."""
    key = (str(lesson.checks), lesson.checks.read_text(encoding="utf-8"), tuple(t.id for t in lesson.todos))
    if key not in _points:
        _points[key] = _collect_points(lesson)
    return dict(_points[key])


def _collect_points(lesson: Lesson) -> dict[str, int]:
    from validator.grading.grade import TODO_MARKER, checks_broken, pytest_arguments

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
        raise checks_broken(lesson, code)
    return points.by_todo


def csv_text(header: list[str], rows: list[list], separator: str = ",", newline: str = "\n",
             quoted: Callable[[list], bool] = lambda row: True) -> str:
    """A table as CSV: every text cell of the rows `quoted` picks (all) in quotes, so that a
    spreadsheet that splits on another separator than the file's (Excel where the list separator
    is ";") keeps each one whole: a student named x;=1+1 is one cell, not a name and a formula."""
    table = io.StringIO()
    plain, quoting = (csv.writer(table, delimiter=separator, lineterminator=newline, quoting=how)
                      for how in (csv.QUOTE_MINIMAL, csv.QUOTE_NONNUMERIC))
    plain.writerow(header)
    for row in rows:
        (quoting if quoted(row) else plain).writerow(row)
    return table.getvalue()


def spreadsheet_safe(text: str) -> str:
    """A cell a spreadsheet shows as text: one that starts like a formula (a student named
    =HYPERLINK(…)) gets a leading apostrophe, as spreadsheets themselves mark text."""
    return "'" + text if text[:1] in ("=", "+", "-", "@", "\t", "\r") else text


def write_gradebooks(out: Path, lesson: Lesson, records: list[dict], points: dict[str, int]) -> None:
    """grades.csv for people: every student has the lesson's maximum (a missing one too), and each
    TODO column says its own; a BOM first, without which Excel reads UTF-8 as the local code page
    (a name in Chinese becomes mojibake). grades.json for programs: the records as they are."""
    total = sum(points.values())
    header = ["student", "score", "max", *(f"TODO {t} (/{n})" for t, n in points.items()), "status", "seconds", "flags"]
    rows = [[spreadsheet_safe(record["student"]), record["score"], record.get("max") or total,
             *((record.get("todos") or {}).get(t, ["", ""])[0] for t in points), record["status"],
             record.get("seconds", ""), spreadsheet_safe("; ".join(record["flags"] + _notes(record)))]
            for record in records]
    write_atomically(out / "grades.csv", "\ufeff" + csv_text(header, rows))
    write_atomically(out / "grades.json", json.dumps(
        {"lesson": lesson.name, "max": total, "todos": points, "students": records},
        ensure_ascii=False, indent=1, sort_keys=True) + "\n")


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
                      f"{todo['passed']}/{summary['scored']}", Text(common))  # a learner's words: no markup
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
