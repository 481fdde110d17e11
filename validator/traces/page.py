"""`validate.py dayNN --html [PATH]`: the graded run as one page to open in a browser.

The checks by TODO, each passed or failed; under a failed check, each agent run it made as a
timeline of rounds (rounds.py): the prompt with what is new in it marked and what it repeats folded,
the model's reply with the part the loop must not act on struck through, the tool calls and the
result that went back, and the failure beside the round where it went wrong. One file, no script,
nothing fetched: it opens from the file system. Written after grading, from the Grade alone: the
score never depends on it. The seed is left out (an instructor's may be secret), and request
headers (an API key) are never read. Learner text is escaped, each block cut at MAX_BLOCK and the
whole page's at MAX_PAGE_TEXT, so a submission that prints or sends megabytes gives a page of a
few megabytes at most.
"""
from __future__ import annotations

import html
from itertools import groupby
from pathlib import Path

from validator.grading.grade import CheckResult, Grade
from validator.grading.report import clean, failure_text, first_failures, run_lines
from validator.lessons import say
from validator.traces.rounds import FedBack, Message, Round, rounds

MAX_BLOCK = 4000  # characters of one block of learner text: a prompt, a reply, their printing
MAX_PAGE_TEXT = 600_000  # characters of learner text on the whole page, as escaped

STYLE = """body{font-family:system-ui,sans-serif;margin:1.5em auto;max-width:72em;color:#222;padding:0 1em}
h1{font-size:1.4em;margin-bottom:.2em}.meta{color:#555;margin-top:0}
section.todo{border-top:1px solid #ddd;margin-top:1em}
h2{font-size:1.1em}.ok{color:#1a7f37}.bad{color:#c62828}
.check{margin:.3em 0 .3em 1em}.check>summary{cursor:pointer}
aside{align-self:start}
.failure,.wrong{background:#fdecea;border-left:4px solid #c62828;padding:.4em .7em;white-space:pre-wrap;margin:.4em 0}
.hint{background:#fff8e1;border-left:4px solid #e0a800;padding:.4em .7em}
.printed{background:#f6f6f6;padding:.4em .7em}
.run{margin:.8em 0 .8em 1em}.run h3{font-size:1em;color:#0b5c8a;margin:.2em 0}
ol.rounds{list-style:none;padding:0;margin:0;border-left:3px solid #9cc3dd}
li.round{display:grid;grid-template-columns:minmax(0,1fr) 20em;gap:1em;padding:.3em 0 .6em .8em}
li.round.went-wrong{border-left:3px solid #c62828;margin-left:-3px}
@media (max-width:60em){li.round{grid-template-columns:minmax(0,1fr)}}
h4{margin:.2em 0;font-size:.95em}
.label{font-size:.85em;color:#555;margin-top:.4em}
pre{white-space:pre-wrap;overflow-wrap:anywhere;background:#f7f9fb;border:1px solid #e3e8ee;padding:.4em .6em;
margin:.2em 0;font-size:.85em}
.new{background:#e6f4ea}del{color:#a33;background:#fbeaea}
.message{display:block}.role{font-weight:bold;color:#555}
details.folded>summary{color:#555;font-size:.85em;cursor:pointer}
.call{font-family:ui-monospace,monospace;font-size:.85em}
.real{color:#1a7f37}.fake{color:#c62828;font-weight:bold}.own{color:#8a6d00}
.tokens{font-size:.8em;color:#777}.cut{font-style:italic;color:#777}"""


class Page:
    """The page being written: its parts, and how much learner text it may still hold."""

    def __init__(self, grade: Grade, lang: str):
        self.grade, self.lang = grade, lang
        self.left = MAX_PAGE_TEXT
        self.parts: list[str] = []

    def say(self, key: str, **params) -> str:
        return html.escape(say(key, self.lang, **params))

    def text(self, text: str, marked: set | None = None) -> str:
        """Learner text, escaped: at most MAX_BLOCK characters of it, and what was left out said;
        the lines in `marked` highlighted as new."""
        text = clean(text, None)
        kept = text[:min(MAX_BLOCK, max(self.left, 0))]
        if marked:
            shown = "\n".join(f'<span class="new">{html.escape(line)}</span>' if line in marked
                              else html.escape(line) for line in kept.split("\n"))
        else:
            shown = html.escape(kept)
        self.left -= len(shown)
        if len(kept) < len(text):
            shown += f'<span class="cut"> … {self.say("page_cut_block", count=len(text) - len(kept))}</span>'
        return shown

    @property
    def full(self) -> bool:
        return self.left <= 0


def trace_page(grade: Grade, lang: str) -> str:
    """The whole page, the same bytes for the same grade."""
    page = Page(grade, lang)
    lesson = grade.lesson
    same = first_failures(grade)
    runs_shown: dict = {}  # each run shown, by its lines: the title of the check it was shown under
    body = []
    for todo_id, checks in groupby(grade.checks, key=lambda c: c.todo):
        checks = list(checks)
        todo = lesson.todo(todo_id)
        got, total = grade.todo_score(todo_id)
        body.append(f'<section class="todo"><h2>TODO {html.escape(todo_id)} · {html.escape(todo.title[lang])} '
                    f'<code>{html.escape(todo.function)}</code> '
                    f'<span class="{"ok" if got == total else "bad"}">{got}/{total}</span></h2>')
        body += [_check(page, check, same, runs_shown) for check in checks]
        if got < total:
            body.append(f'<p class="hint">{page.say("report_hint")}{html.escape(todo.hint[lang])}</p>')
        body.append("</section>")
    title = say("page_title", lang, name=lesson.name)
    return f"""<!DOCTYPE html>
<html lang="{lang}"><head><meta charset="utf-8"><title>{html.escape(title)}</title>
<style>{STYLE}</style></head>
<body><h1>{html.escape(lesson.name)} · {html.escape(lesson.title[lang])}</h1>
<p class="meta">{page.say("report_score")}<b>{grade.score}/{grade.max_score}</b> · {page.say("report_file")}{
    html.escape(clean(grade.notebook.name if grade.notebook else grade.path.name, None))}</p>
<p class="meta">{page.say("page_legend")}</p>
{"".join(body)}
</body></html>
"""


def _check(page: Page, check: CheckResult, same: dict, runs_shown: dict) -> str:
    lang = page.lang
    title = html.escape(check.title[lang])
    if check.passed:
        return f'<div class="check"><span class="ok">✓</span> {title}</div>'
    parts = [f'<details class="check" id="{html.escape(check.name)}" open><summary><span class="bad">✗</span> {title}</summary>']
    if check.name in same:
        parts.append(f'<p class="meta">{page.say("same_cause", title=same[check.name].title[lang])}</p></details>')
        return "".join(parts)
    failure = page.text(failure_text(check, page.grade, lang))
    parts.append(f'<div class="failure">{failure}</div>')
    if check.printed.strip():
        parts.append(f'<div class="label">{page.say("report_output")}</div>'
                     f'<pre class="printed">{page.text(check.printed.rstrip())}</pre>')
    if not check.runs:
        parts.append(f'<p class="meta">{page.say("page_no_runs")}</p>')
    for index, run in enumerate(check.runs):
        key = run_lines(run, "en")
        if key in runs_shown:
            parts.append(f'<div class="run"><h3>{_scenario(run)}</h3><p class="meta">'
                         f'{page.say("report_trace_same_run", title=runs_shown[key])}</p></div>')
            continue
        runs_shown[key] = check.title[lang]
        # the check stopped at its last run: the failure goes beside that run's round that went wrong
        parts.append(_run(page, run, f"{check.name}-{index + 1}",
                          failure if index == len(check.runs) - 1 else None))
    parts.append("</details>")
    return "".join(parts)


def _scenario(run) -> str:
    return html.escape(clean(f"{run.scenario.name}: {run.scenario.question}", None))


def _run(page: Page, run, anchor: str, failure: str | None) -> str:
    """A run's rounds, each with an id (anchor-rN) to link to."""
    found = rounds(run, page.lang)
    wrong = next((r.number for r in found if r.notes), found[-1].number if found else None)
    parts = [f'<div class="run"><h3>{_scenario(run)}</h3><ol class="rounds">']
    for at, round_ in enumerate(found):
        if page.full:
            parts.append(f'<li class="cut">{page.say("page_budget_spent", count=len(found) - at)}</li>')
            break
        parts.append(_round(page, round_, f"{anchor}-r{round_.number}", failure if round_.number == wrong else None))
    parts.append("</ol>")
    if isinstance(run.answer, str) and run.outcome is not None and not run.outcome.problem:
        parts.append(f'<div class="label">{page.say("page_answer")}</div><pre>{page.text(run.answer)}</pre>')
    parts.append("</div>")
    return "".join(parts)


def _round(page: Page, round_: Round, anchor: str, failure: str | None) -> str:
    say_ = page.say
    main = [f'<h4>{say_("report_trace_round", round=round_.number)}</h4>',
            f'<div class="label">{say_("report_trace_prompt")}</div>']
    if round_.messages is not None:
        main.append(_folded(page, say_("page_folded_messages", count=len(round_.earlier_messages)),
                            "".join(_message(page, m) for m in round_.earlier_messages)))
        new = "".join(_message(page, m, new=bool(round_.earlier_messages)) for m in round_.messages)
        main.append(f"<pre>{new}{page.text(round_.sent) if round_.sent else ''}</pre>")
    else:
        main.append(_folded(page, say_("page_folded", lines=round_.earlier.count("\n") + 1),
                            page.text(round_.earlier) if round_.earlier else ""))
        sent = page.text(round_.sent, round_.changed)
        main.append(f'<pre>{f"<span class=new>{sent}</span>" if round_.earlier else sent}</pre>')
    main.append(f'<div class="label">{say_("report_trace_reply")}</div>')
    struck = round_.made_up or round_.cut  # made-up text starts a line of its own; a cut goes on the line
    struck = f"{chr(10) if round_.made_up else ''}<del>{page.text(struck)}</del>" if struck else ""
    main.append(f"<pre>{page.text(round_.reply)}{struck}</pre>")
    if round_.made_up or round_.cut:
        main.append(f'<div class="label">{say_("page_made_up" if round_.made_up else "page_cut")}</div>')
    if round_.asked:
        main.append(f'<div class="call">{say_("page_asked")}{page.text(", ".join(round_.asked))}</div>')
    for call in round_.calls:
        main.append(f'<div class="call">{say_("report_trace_tool")}'
                    f'{page.text(f"{call.name}({call.input!r}) → {call.output!r}")}</div>')
    main += [_fed_back(page, fed) for fed in round_.fed_back]
    if round_.tokens:
        main.append(f'<div class="tokens">{say_("page_tokens", prompt=round_.tokens[0], completion=round_.tokens[1])}</div>')
    aside = ""
    if failure is not None:
        notes = "".join(f"<li>{html.escape(note)}</li>" for note in round_.notes)
        aside = f'<aside class="wrong"><b>{say_("page_went_wrong")}</b>\n{failure}' \
                + (f"<ul>{notes}</ul>" if notes else "") + "</aside>"
    elif round_.notes:
        aside = "<aside>" + "".join(f'<p class="fake">{html.escape(note)}</p>' for note in round_.notes) + "</aside>"
    mark = " went-wrong" if failure is not None else ""
    return f'<li class="round{mark}" id="{html.escape(anchor)}"><div>{"".join(main)}</div>{aside}</li>'


def _folded(page: Page, summary: str, inner: str) -> str:
    if not inner:
        return ""
    return f'<details class="folded"><summary>{summary}</summary><pre>{inner}</pre></details>'


def _message(page: Page, message: Message, new: bool = False) -> str:
    lines = [f'<span class="role">{page.text(message.role)}</span>'
             + (f" ← {page.text(message.answers)}" if message.answers else "")
             + (f": {page.text(message.text)}" if message.text else "")]
    lines += [f"  → {page.text(call)}" for call in message.calls]
    return f'<span class="message{" new" if new else ""}">{"<br>".join(lines)}</span>'


def _fed_back(page: Page, fed: FedBack) -> str:
    if fed.real is None:
        key, style = "page_fed_back_own", "own"
    elif not fed.text:
        key, style = "page_fed_back_none", "fake"
    else:
        key, style = ("page_fed_back_real", "real") if fed.real else ("page_fed_back_made_up", "fake")
    text = f"<pre>{page.text(fed.text)}</pre>" if fed.text else ""
    answers = f' <span class="call">{page.say("page_for_call")}{page.text(fed.answers)}</span>' if fed.answers else ""
    return f'<div class="label {style}">{page.say(key)}{answers}</div>{text}'


def write_page(grade: Grade, lang: str, path: Path) -> Path:
    """Write the page at `path` (its folder made); the path written."""
    from validator.files import write_atomically
    path.parent.mkdir(parents=True, exist_ok=True)
    write_atomically(path, trace_page(grade, lang))
    return path
