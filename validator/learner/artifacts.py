"""What a grading writes besides its report: the results a platform reads (Gradescope,
PrairieLearn, JUnit), the trace page (--html) and OpenTelemetry traces (--otel). A file that can't
be written is said on stderr, and the grade stands.
"""
from __future__ import annotations

import importlib
import importlib.machinery
import json
import sys
from pathlib import Path

from validator.console import shown_path, stderr
from validator.files import write_atomically
from validator.learner import workspace
from validator.lessons import LessonError, say


def write_results(grade, fmt: str, output: Path | None, lang: str, show_seed: bool = False) -> None:
    """Write the gradescope, prairielearn or junit results to `output`, or to stdout when it is None."""
    from validator.grading.report import gradescope, junit, prairielearn
    if fmt == "junit":
        text = junit(grade, lang, show_seed)
    else:
        shaped = prairielearn if fmt == "prairielearn" else gradescope
        text = json.dumps(shaped(grade, lang, show_seed), ensure_ascii=False, indent=2) + "\n"
    if output is None:
        sys.stdout.write(text)
    else:
        write_atomically(output, text)


def page_path(given: str | None, lesson, graded: Path, option: str = "--html") -> Path | None:
    """Where --html writes the page: PATH, else workspace/traces/LESSON.html; None without --html.
    Never a Python file or a notebook, so never the learner's code (nor is --otel's or --output's
    file: `option`)."""
    if given is None:
        return None
    path = Path(given) if given else workspace.trace_page(lesson)
    if path.suffix.lower() in (*importlib.machinery.SOURCE_SUFFIXES, ".pyc", ".ipynb") or (
            path.exists() and path.resolve() == Path(graded).resolve()):
        raise LessonError("page_not_python", option=option, path=given)
    return path


def write_trace_page(result, lang: str, path: Path, open_it: bool) -> None:
    """--html: the page; opened in the browser with open_it."""
    from validator.traces.page import write_page
    if written_aside(lambda: write_page(result, lang, path), path, lang, "page_written") and open_it:
        import webbrowser
        webbrowser.open(path.resolve().as_uri())


def write_otel_file(result, lang: str, path: Path) -> None:
    """--otel PATH: the run as OTLP traces, in a file."""
    write_otel = otel_part("otel", "write_otel", lang)
    if write_otel:
        written_aside(lambda: write_otel(result, lang, path), path, lang, "otel_written")


def send_otel(result, lang: str) -> None:
    """--otel: the run as OTLP traces, sent where the OTEL_EXPORTER_OTLP_* variables say."""
    send = otel_part("otel_send", "send", lang)
    if send:
        message, fields = send(result, lang)
        stderr().print(say(message, lang, **fields), markup=False)


def otel_part(module: str, name: str, lang: str):
    """validator.traces.MODULE.NAME; None, said, where a package it needs is missing (a kit installed
    before --otel came, or before it could send)."""
    try:
        return getattr(importlib.import_module(f"validator.traces.{module}"), name)
    except ImportError as error:
        stderr().print(say("otel_missing", lang, name=error.name), markup=False)
        return None


def written_aside(write, path: Path, lang: str, done: str) -> bool:
    """write(), then the message `done` on stderr with where it went; whether it was written. A file
    that can't be written is said there too, and the grade stands."""
    try:
        write()
    except OSError as error:
        stderr().print(say("page_not_written", lang, problem=error.strerror or str(error), path=path), markup=False)
        return False
    stderr().print(say(done, lang, path=shown_path(path)), markup=False)
    return True
