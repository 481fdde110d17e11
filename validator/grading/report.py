"""Turn a Grade into what people and tools read: the terminal report, Gradescope's and
PrairieLearn's results.json, JUnit XML. Nothing here depends on time or machine, so the same grade gives the same bytes."""
from __future__ import annotations

import re
import xml.etree.ElementTree as ET
from itertools import groupby
from pathlib import Path

from rich.cells import cell_len
from rich.console import Console
from rich.text import Text

from validator.checking import raised_in
from validator.child.wire import printable
from validator.console import shown_path
from validator.grading.grade import CheckResult, Grade
from validator.lessons import say
from validator.outcomes import Problem

PRINTED_LINES = 15  # lines of the learner's printing shown under a failed check


def failure_text(check: CheckResult, grade: Grade, lang: str) -> str:
    """The failure message of a check in `lang`, with the learner's traceback if any; learner
    text in it is stripped of control characters, so it can't draw over the report."""
    if check.passed or check.failure is None:
        return ""
    params = check.failure.params
    where = grade.notebook and grade.notebook.where(params.get("line"), lang)
    message = say(check.failure.key, lang, grade.lesson, **(dict(params, where=where) if where else params))
    return clean(_named(message + ("\n" + check.failure.detail.rstrip() if check.failure.detail else ""), grade))


def _named(text: str, grade: Grade) -> str:
    """The text with the absolute path the learner's file was loaded from (a traceback's frames)
    as the file's name alone: the same report wherever the file lies; a notebook's lines as its
    cells' (`File "work.ipynb", cell 4, line 2`). A class run has named the file already, by its
    path in the submissions folder (workers.name_as_submitted)."""
    if grade.notebook is not None:
        text = grade.notebook.cite(text, grade.path)
    return text.replace(str(grade.path), grade.path.name) if grade.path.is_absolute() else text


# Control characters but newline and tab: escape sequences that move the cursor or recolour the
# terminal, characters XML 1.0 can't hold, bidi controls, which reorder what a line shows (a name
# that reads "alice" and is "ecila" backwards), and Unicode's line and paragraph separators, which
# editors and browsers break lines at (a learner's text that draws a line of its own).
_CONTROL = re.compile(r"[\x00-\x08\x0b-\x1f\x7f-\x9f\ufffe\uffff\u061c\u200e\u200f\u2028\u2029\u202a-\u202e\u2066-\u2069]")
MAX_SHOWN = 4000  # characters of one failure message or printed output kept in any report


# An object's address in its repr (`<ast.Call object at 0x7f3d5bea9fc0>`) changes from run to run.
_ADDRESS = re.compile(r"\bat 0x[0-9a-fA-F]{6,16}\b")


def clean(text: str, limit: int | None = MAX_SHOWN) -> str:
    """Text safe for a terminal, JSON and XML: control characters shown as \\x1b-style escapes,
    at most `limit` characters; the same on every run: objects' addresses left out."""
    text = _ADDRESS.sub("at 0x…", text)
    text = _CONTROL.sub(lambda m: f"\\x{ord(m.group()):02x}" if ord(m.group()) < 256
                        else f"\\u{ord(m.group()):04x}", text)
    return text if limit is None or len(text) <= limit else text[:limit] + " …"


def first_failures(grade: Grade) -> dict[str, CheckResult]:
    """By check name, for each failed check whose cause an earlier check already showed: that
    earlier check."""
    seen: dict[str, CheckResult] = {}
    same = {}
    for check in grade.checks:
        if check.passed or check.failure is None:
            continue
        cause = _cause(check.failure)
        if cause in seen:
            same[check.name] = seen[cause]
        else:
            seen[cause] = check
    return same


def _cause(failure) -> str:
    """What two failures must share to be one: the cause a check gave; or the same exception raised
    at the same line of the learner's code, whichever function of theirs a check called (a loop
    that crashes inside another TODO's helper fails as that helper's own check did); else all
    that is said, as the report shows it."""
    where = raised_in(failure)
    if failure.cause is None and where:
        said = f"raised at {where}: {failure.params['type']}: {failure.params.get('message')}"
    else:
        said = failure.cause or f"{failure.key}:{sorted(failure.params.items())!r}:{failure.detail}"
    return _ADDRESS.sub("at 0x…", said)  # as shown: two objects' addresses match only by chance


def display_path(path: Path) -> str:
    """Relative to here, and printable: a file name may hold escape sequences."""
    return clean(shown_path(path), None)


def print_report(grade: Grade, lang: str, command: str | None, trace: str | None = None,
                 console: Console | None = None, quiet: bool = False, show_seed: bool = True) -> None:
    """The terminal report: a summary line, then each TODO with its checks, a failure's reason
    (one root cause once) and the first hint. `trace` ("" for all, else a part of a check's or a
    scenario's name) adds the prompts, replies and tool calls of the matching checks. show_seed=False:
    a report for students graded with the instructor's secret seed. `command`: the one to run
    again, or None where a student submits again instead (a platform's page)."""
    console = console or Console(highlight=False, soft_wrap=True)
    score = Text(f"{say('report_score', lang)}{grade.score}/{grade.max_score}", style="bold")
    if quiet:
        console.print(Text(f"{grade.lesson.name} ") + score)
        return
    same = first_failures(grade)
    unloaded = load_failure(grade)  # a hint can't help while the file does not load
    traced: set[str] = set()  # the checks whose runs --trace showed
    runs_shown: dict = {}  # each run shown, by its lines: the check it was shown under
    _print_heading(console, grade, lang, show_seed)
    for todo_id, checks in groupby(grade.checks, key=lambda c: c.todo):
        todo = grade.lesson.todo(todo_id)
        got, total = grade.todo_score(todo_id)
        console.print()
        block(console, Text.assemble((f"TODO {todo_id}  ", "bold"), f"{todo.title[lang]} ",
                                     (f"({todo.function})", "dim"), "  ",
                                     (f"{got}/{total}", "green" if got == total else "red")), 0)
        for check in checks:
            _print_check(console, check, grade, lang, same)
            # --trace: one root cause's trace once (the checks that say "same cause" show none)
            if trace is not None and not (check.name in same and same[check.name].name in traced):
                runs = traced_runs(check, trace)
                traced |= {check.name} if runs else set()
                print_runs(console, runs, lang, runs_shown, check.title[lang])
        if got < total and not unloaded:
            block(console, f"{say('report_hint', lang)}{todo.hint[lang]}", 2, "yellow")
    if trace is not None and not traced:
        scenarios = sorted({run.scenario.name for check in grade.checks for run in check.runs})
        key = "report_trace_none" if scenarios else "report_trace_no_runs"
        console.print()
        console.print(say(key, lang, which=trace, scenarios=", ".join(scenarios)), style="yellow", markup=False)
    _print_ending(console, grade, lang, command, score)


def _print_heading(console: Console, grade: Grade, lang: str, show_seed: bool) -> None:
    """The report's first lines: the lesson, the score and the first TODO to work on, the file (and
    the seed), the notebook cells left out."""
    lesson = grade.lesson
    console.print(Text(f"{lesson.name} · {lesson.title[lang]}", style="bold"))
    failing = first_failing_todo(grade)
    summary = say("report_summary_pass", lang) if failing is None else say("report_summary", lang, todo=failing)
    console.print(Text(f"{grade.score}/{grade.max_score} · ", style="bold") + Text(summary))
    notebook = grade.notebook
    shown = display_path(notebook.path) if notebook and notebook.path else notebook.name if notebook else \
        display_path(grade.path)
    console.print(Text(f"{say('report_file', lang)}{shown}"  # one line: a path to copy
                       + (f"   {say('report_seed', lang)}{grade.seed}" if show_seed else ""), style="dim"),
                  soft_wrap=True)
    if notebook and notebook.left_out:
        cells = ", ".join(say("report_left_out_one", lang, cell=cell.said(lang), code=clean(code, None))
                          for cell, code in notebook.left_out)
        block(console, say("report_left_out", lang, cells=cells), 0, "dim")


def _print_check(console: Console, check: CheckResult, grade: Grade, lang: str,
                 same: dict[str, CheckResult]) -> None:
    """One check's line, and why it failed: its root cause, or "same cause as" the check that
    showed it (`same`), and what the learner's code printed."""
    mark = Text("  ✓ ", style="green") if check.passed else Text("  ✗ ", style="red")
    block(console, check.title[lang], 4, lead=mark)
    if check.name in same:
        block(console, say("same_cause", lang, title=same[check.name].title[lang]), 6, "dim")
    elif not check.passed:
        block(console, failure_text(check, grade, lang), 6)
        if check.printed.strip():
            block(console, f"{say('report_output', lang)}\n{printed_excerpt(check)}", 6, "dim")


def _print_ending(console: Console, grade: Grade, lang: str, command: str | None, score: Text) -> None:
    """The report's last lines: the score, and what to do next."""
    console.print()
    console.print(score)
    if grade.score == grade.max_score:
        console.print(Text(say("report_all_passed", lang), style="green"))
    else:
        again = say("report_next", lang, command=command) if command else say("report_next_submit", lang)
        console.print(again, markup=False, soft_wrap=True)  # a command to copy: one line


def printed_excerpt(check: CheckResult) -> str:
    """What the learner's code printed during the check: its first PRINTED_LINES lines, cleaned."""
    lines = clean(check.printed.rstrip()).splitlines()
    return "\n".join(lines[:PRINTED_LINES]) + ("\n…" if len(lines) > PRINTED_LINES else "")


def report_text(grade: Grade, lang: str, command: str | None) -> str:
    """The report as a student reads it on a platform's page or in a feedback file: plain text, no
    seed; `command` as print_report's."""
    text = PlainText()
    print_report(grade, lang, command, show_seed=False, console=text)
    return text.getvalue()


class PlainText:
    """What report_text prints on: the text rich's Console writes with no colours and soft wrapping
    (each line's characters, tabs expanded), without rich's rendering of each line, which was most
    of a report's cost (3 ms a student in a class run). The calls print_report makes, no more."""

    width, soft_wrap = 100, True

    def __init__(self):
        self.lines = []

    def print(self, *objects, **_) -> None:
        line = Text(" ").join(o if isinstance(o, Text) else Text(o) for o in objects)
        if "\t" in line.plain:
            line.expand_tabs()
        self.lines.append(line.plain + "\n")

    def getvalue(self) -> str:
        return "".join(self.lines)


def load_failure(grade: Grade) -> Problem | None:
    """Why the file did not load (Problem.IMPORT_SYNTAX, IMPORT_HANG, …, whose `unloaded` is the
    gradebook's status), or None when it loaded: every check failed for that one cause."""
    failures = [c for c in grade.checks if not c.passed and c.failure]
    if failures and all(c.failure.unloaded for c in failures):
        return Problem(failures[0].failure.key)
    return None


def first_failing_todo(grade: Grade) -> str | None:
    return next((c.todo for c in grade.checks if not c.passed), None)


def block(console: Console, text: str | Text, indent: int, style: str = "", lead: Text | None = None) -> None:
    """Text indented by `indent` columns, its first line after `lead` if given (as wide: "  ✓ "),
    wrapped to the console's width (see wrap) with the indent kept, no spaces padding a line's end:
    the same on a terminal, in a file or in `less`. A console that keeps whole lines gets them whole."""
    text = text.copy() if isinstance(text, Text) else Text(text, style=style)
    text.expand_tabs()
    width, first = max(console.width - indent, 20), True
    for line in text.split("\n", allow_blank=True) or [Text()]:
        for start, end in [(0, len(line))] if console.soft_wrap else wrap(line.plain, width):
            piece = line[start:end]
            console.print((lead if first and lead else Text(" " * indent if piece else "")) + piece, soft_wrap=True)
            first = False


# Where a line may break: at spaces, and before and after each Chinese (CJK) character; a closing
# mark (，。) stays with the character before it.
_CJK = "\u2e80-\u9fff\uf900-\ufaff\uff00-\uffef\u3000-\u303f"
_CLOSING = "，。、；：！？）》」』”’…"
_UNITS = re.compile(rf"\s+|[{_CJK}][{_CLOSING}]*|[^\s{_CJK}]+[{_CLOSING}]*")


def wrap(line: str, width: int) -> list[tuple[int, int]]:
    """Where one line breaks into lines of at most `width` terminal columns (a Chinese character
    takes two): the (start, end) of each, broken at spaces and at Chinese characters; a word wider
    than a line (a long path) has one of its own, whole, to copy or grep; a line's leading spaces
    kept, the spaces at a break dropped."""
    spans, start, end, used = [], 0, 0, 0  # the line so far: line[start:end], `used` columns wide
    for unit in _UNITS.finditer(line):
        if unit.group().isspace():
            continue  # spaces count with the word after them
        wide = cell_len(line[end:unit.end()])
        if used + wide <= width:
            end, used = unit.end(), used + wide
            continue
        if end > start:
            spans.append((start, end))
        start, end, used = unit.start(), unit.end(), cell_len(unit.group())
    spans.append((start, end))
    return spans


def traced_runs(check: CheckResult, which: str) -> list:
    """The runs of a check that `--trace WHICH` shows: every one for "", else those of a check whose
    title (in any language), TODO ("TODO 4.1") or name holds WHICH, or whose scenario's name or
    question does; in any case, as the report shows them."""
    which = which.casefold()
    names = (*check.title.values(), f"TODO {check.todo}", check.name)
    if not which or any(which in name.casefold() for name in names):
        return check.runs
    return [r for r in check.runs if which in r.scenario.name.casefold() or which in r.scenario.question.casefold()]


def print_runs(console: Console, runs: list, lang: str, shown: dict | None = None, title: str = "") -> None:
    """Each agent run: every round's prompt (or request) and reply, and the tools that ran. A
    prompt that starts like the one before shows only what is new (the rest is folded). A run
    already in `shown` (its lines: the title of the check it was shown under) is named, not repeated."""
    for run in runs:
        lines = run_lines(run, lang)
        if shown is not None and lines in shown:
            block(console, *lines[0])
            block(console, say("report_trace_same_run", lang, title=shown[lines]), 6, "dim")
            continue
        if shown is not None:
            shown[lines] = title
        for line in lines:
            block(console, *line)


def run_lines(run, lang: str) -> tuple:
    """A run as --trace shows it: (text, indent, style) for each block."""
    lines = [(f"── {run.scenario.name}: {run.scenario.question}", 4, "cyan")]
    shown, previous, fields = 0, "", ""  # chat messages already printed / the text prompt before / its fields
    for number, exchange in enumerate(run.exchanges, start=1):
        if shown and not exchange.continues(run.exchanges[number - 2]):
            shown = 0  # the history was trimmed or rebuilt: show the whole request
        sent, received, total = exchange.texts(shown)
        full = sent
        if not received.strip():
            received = say("report_trace_empty", lang)
        if (asked := exchange.parameters()) != fields:  # the request's other fields, when they change
            fields = asked
            sent = fields + "\n" + sent
        if shown:
            sent = say("report_trace_more", lang, earlier=shown) + "\n" + sent
        elif previous and sent.startswith(previous):  # the prompt grew: show what is new
            sent = (say("report_trace_folded", lang, lines=previous.count("\n") + 1) + "\n"
                    + sent[len(previous):].lstrip("\n"))
        previous, shown = full, total
        lines += [(f"{say('report_trace_round', lang, round=number)} · {say('report_trace_prompt', lang)}",
                   6, "bold"),
                  (clean(sent, None), 8, "dim"), (say("report_trace_reply", lang), 6, "bold"),
                  (clean(received, None), 8, "")]
        lines += [(clean(f"{say('report_trace_tool', lang)}{call.name}({call.input!r}) → {call.output!r}"),
                   6, "magenta") for call in run.tool_calls if call.round == number]
    return tuple(lines)


def test_name(check: CheckResult, lang: str) -> str:
    return f"TODO {check.todo} · {check.title[lang]}"


def gradescope(grade: Grade, lang: str, show_seed: bool = False) -> dict:
    """Gradescope's results.json: a score per test, tagged with its TODO."""
    tests = []
    for number, check in enumerate(grade.checks, start=1):
        todo = grade.lesson.todo(check.todo)
        output = failure_text(check, grade, lang)
        if not check.passed:
            output += f"\n{say('report_hint', lang)}{todo.hint[lang]}"
        tests.append({
            "name": test_name(check, lang), "number": str(number),
            "score": check.points if check.passed else 0, "max_score": check.points,
            "status": "passed" if check.passed else "failed", "output": output.strip(),
            "tags": [f"TODO {check.todo}", todo.function], "visibility": "visible",
        })
    return {"score": grade.score, "max_score": grade.max_score, "output": score_line(grade, show_seed),
            "visibility": "visible", "tests": tests}


def prairielearn(result: Grade, lang: str, show_seed: bool = False) -> dict:
    """PrairieLearn's results.json (docs/externalGrading.md, "Grading results"): `score` in
    [0, 1]; `message` and `output` shown to the student; `tests`, each with name, description,
    points, max_points, message and output (points and max_points on every test, or the page
    shows none). A file that does not parse is not gradable: no score, its error in
    `format_errors`, no attempt counted against the student (as PrairieLearn's own Python grader
    does for a SyntaxError)."""
    report = report_text(result, lang, None)  # they submit again, on the question's page
    if load_failure(result) is Problem.IMPORT_SYNTAX:
        error = failure_text(result.checks[0], result, lang)
        return {"gradable": False, "message": error.splitlines()[0], "format_errors": [error], "output": report}
    tests = []
    for check in result.checks:
        todo = result.lesson.todo(check.todo)
        failure = failure_text(check, result, lang)
        tests.append({
            "name": test_name(check, lang),
            "description": f"TODO {todo.id} · {todo.title[lang]} ({todo.function})",
            "points": check.points if check.passed else 0, "max_points": check.points,
            "message": f"{failure}\n{say('report_hint', lang)}{todo.hint[lang]}" if failure else "",
            "output": printed_excerpt(check),
        })
    return {"gradable": True, "score": result.score / result.max_score if result.max_score else 0.0,
            "message": score_line(result, show_seed), "output": report, "tests": tests}


def score_line(grade: Grade, show_seed: bool) -> str:
    """`day06: 20/25`, for a platform's results; the seed only when asked for."""
    return f"{grade.lesson.name}: {grade.score}/{grade.max_score}" + (f" (seed {grade.seed})" if show_seed else "")


def junit(grade: Grade, lang: str, show_seed: bool = False) -> str:
    failures = sum(not c.passed for c in grade.checks)
    suites = ET.Element("testsuites", name="reactlings", tests=str(len(grade.checks)),
                        failures=str(failures))
    suite = ET.SubElement(suites, "testsuite", name=grade.lesson.name, tests=str(len(grade.checks)),
                          failures=str(failures), errors="0", skipped="0")
    properties = ET.SubElement(suite, "properties")
    shown = (("seed", grade.seed),) if show_seed else ()
    for name, value in (*shown, ("score", grade.score), ("max_score", grade.max_score)):
        ET.SubElement(properties, "property", name=name, value=str(value))
    for check in grade.checks:
        case = ET.SubElement(suite, "testcase", classname=f"{grade.lesson.name}.TODO {check.todo}",
                             name=test_name(check, lang))
        if not check.passed:
            message = failure_text(check, grade, lang)
            failure = ET.SubElement(case, "failure", message=message.splitlines()[0] if message else "")
            failure.text = message + f"\n{say('report_hint', lang)}{grade.lesson.todo(check.todo).hint[lang]}"
            # XML 1.0 has no place for some characters even after clean(): the lone surrogates
            failure.text = printable(failure.text)
            failure.set("message", printable(failure.get("message")))
    ET.indent(suites)
    return ET.tostring(suites, encoding="unicode", xml_declaration=True) + "\n"
