"""`python validate.py day06`: grade one file of a lesson (the learner's copy, the solution, a
handed-in file or folder) and report, or run it --live against a real model.

The learner's child starts before pytest, rich and the report are imported (a good part of the
grader's start-up): the child loads their file meanwhile. So those are imported where used."""
from __future__ import annotations

import argparse
import importlib.machinery
import os
import shlex
from pathlib import Path

from validator.cli.options import (
    add_page_arguments,
    add_seed_arguments,
    isolation_notice,
    page_asked,
    read_seed,
    seed_is_secret,
    terminal,
    usage_error,
)
from validator.console import kit_command, shown_path, stderr
from validator.files import SOLUTIONS_DIR
from validator.grading import notebooks
from validator.grading.runner import start_submission, submission_seed
from validator.learner import workspace
from validator.learner.artifacts import page_path, send_otel, write_otel_file, write_results, write_trace_page
from validator.learner.progress import after_pass, my_copy
from validator.lessons import LANGS, LessonError, load_lesson, say


def parser(commands_help: str) -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(
        prog="validate.py", description="Grade a reactlings lesson: runs your code against the mock LLM.",
        formatter_class=argparse.RawDescriptionHelpFormatter, epilog=commands_help)
    p.add_argument("lesson", nargs="?", help="a lesson such as day06 (or the path of a lesson folder)")
    which = p.add_mutually_exclusive_group()
    which.add_argument("--solution", action="store_true",  # not offered where there are none (a release)
                       help="grade the reference solution instead" if SOLUTIONS_DIR.is_dir() else argparse.SUPPRESS)
    which.add_argument("--file", type=Path, metavar="PATH", help="grade this file instead of your copy")
    which.add_argument("--submission", type=Path, metavar="FOLDER",
                       help="grade the lesson's exercise file found in FOLDER, a handed-in folder or repository "
                            "(a copy outside lessons/, edited, the shallowest: as `grade` chooses)")
    add_seed_arguments(p)
    p.add_argument("--show-seed", action="store_true",
                   help="name the seed in --format output, and in the report when it came from --seed-file or "
                        "$REACTLINGS_SEED (a secret: never shown otherwise)")
    p.add_argument("--require-isolation", action="store_true",
                   help="refuse to grade where the sandbox can't isolate the submission (Linux namespaces)")
    p.add_argument("--trace", nargs="?", const="", default=None, metavar="WHICH",
                   help="show every prompt, model reply and tool call; WHICH keeps only the checks whose title "
                        "or TODO (TODO 4.1), or the scenarios whose name or question, contains it (any case)")
    add_page_arguments(p)
    p.add_argument("--otel", nargs="?", const="", default=None, metavar="PATH", type=str,
                   help="also write the graded run as OpenTelemetry traces (OTLP protobuf, GenAI semantic "
                        "conventions) for Jaeger, Phoenix, Langfuse or a collector; without PATH, send them "
                        "to the OTLP/HTTP endpoint $OTEL_EXPORTER_OTLP_ENDPOINT names (default: "
                        "http://localhost:4318)")
    p.add_argument("--quiet", action="store_true", help="print only the score line")
    p.add_argument("--lang", choices=LANGS, default=None, help="report language (default: from the locale)")
    p.add_argument("--format", choices=("text", "gradescope", "prairielearn", "junit"), default="text",
                   help="text report (default), Gradescope's or PrairieLearn's results.json, or JUnit XML")
    p.add_argument("--output", type=Path, metavar="FILE", help="write --format output here (default: stdout)")
    live_by_default = os.environ.get("REACTLINGS_LIVE", "") not in ("", "0")
    p.add_argument("--live", action="store_true", default=live_by_default,
                   help="run your agent against a real OpenAI-compatible endpoint (OPENAI_BASE_URL, "
                        "OPENAI_API_KEY); shows the transcript, grades nothing. Also: REACTLINGS_LIVE=1")
    p.add_argument("--model", help="model name for --live (default: $REACTLINGS_MODEL, else $OPENAI_MODEL, else gpt-4o-mini)")
    return p


def run(args, argv: list[str], lang: str) -> int:
    """Grade the file asked for (its console is made once the learner's child has started)."""
    if not args.lesson:
        terminal().print(say("no_lesson_given", lang, command=kit_command()), markup=False)
        return 2
    seed = read_seed(args)
    lesson = load_lesson(args.lesson)
    path, shown = graded_file(args, lesson, lang)
    if path is None:
        return 2
    # someone else's code: say what the sandbox can't enforce
    if args.file or args.submission or args.require_isolation:
        isolation_notice(args.require_isolation, lang)
    page = page_path(page_asked(args), lesson, path)  # a bad PATH is said before the grading, not after
    page_path(args.otel or None, lesson, path, "--otel")  # nor is a trace file ever the code
    if args.output:  # nor the results; their folder made now (as --html's is): one that can't be is said before
        page_path(str(args.output), lesson, path, "--output")
        args.output.parent.mkdir(parents=True, exist_ok=True)
    with notebooks.python_file(path) as (graded, notebook):  # a notebook: its code cells as a .py
        if args.live:
            from validator.learner.live import run_live  # only here: a one-shot grading does without its imports
            return run_live(lesson, graded, args.model, lang, terminal())
        if seed_is_secret(args):  # an instructor's: each submission at numbers of its own (submission_seed)
            seed = submission_seed(seed, graded.read_bytes())
        started = start_submission(lesson, graded, seed, notebook and notebook.file)
        from validator.grading.grade import grade
        console = terminal()
        result = grade(lesson, graded, seed, started)
        result.notebook = notebook
        if shown is not None:
            from validator.instructor.workers import name_as_submitted
            name_as_submitted(result, shown)
        mine = not (args.solution or args.file or args.submission)  # the learner's own copy: keep their progress
        return reported(result, args, argv, lang, console, page, mine)


def graded_file(args, lesson, lang: str) -> tuple[Path | None, str | None]:
    """The file to grade, and a handed-in file's name in its folder for the report (not where the
    grader found the folder); (None, None) when a folder holds no file to grade, said."""
    shown = None
    if args.solution:
        if not lesson.solution.is_file():  # the learners' copy of the course has no solutions/
            raise LessonError("no_solution_here", path=shown_path(lesson.solution), name=lesson.name)
        path = lesson.solution
    elif args.file:
        path = args.file
    elif args.submission:
        from validator.instructor.submissions import exercise_file, must_be_folder, printable_name
        must_be_folder(args.submission)  # as `grade` would grade in this folder
        path, note = exercise_file(args.submission, lesson, lang)
        if path is None:
            usage_error(note, lang)
            return None, None
        shown = printable_name(path.relative_to(args.submission).as_posix())
        # which file, for whoever reads the grader's output (the note: chosen among several)
        stderr().print(note or say("submission_file", lang, path=shown), markup=False)
    else:
        path = my_copy(lesson, lang)
    if not Path(path).is_file():
        raise LessonError("not_a_file" if Path(path).is_dir() else "no_such_file", path=path)
    suffix = Path(path).resolve().suffix
    if suffix not in importlib.machinery.SOURCE_SUFFIXES and not notebooks.is_notebook(path):  # what Python imports
        raise LessonError("not_python_file", path=path)
    return path, shown


def reported(result, args, argv: list[str], lang: str, console, page: Path | None, mine: bool) -> int:
    """A grading's report and the files it writes besides (while a notebook's graded .py is still
    there: its hash is the run's version); its exit status."""
    from validator.grading.report import print_report
    lesson = result.lesson
    if page is not None:
        write_trace_page(result, lang, page, args.open)
    if args.otel:
        write_otel_file(result, lang, Path(args.otel))
    if mine:
        workspace.record_score(lesson.name, result.score, result.max_score)
    if args.format != "text" and args.output is None:
        write_results(result, args.format, None, lang, args.show_seed)
    else:
        print_report(result, lang, f"{kit_command()} {shlex.join(argv)}", args.trace, console,
                     quiet=args.quiet, show_seed=args.show_seed or not seed_is_secret(args))
        if result.score == result.max_score and mine and not args.quiet:
            after_pass(lesson, console, lang)
        if args.format != "text":
            write_results(result, args.format, args.output, lang, args.show_seed)
    if args.otel == "":  # sent once the report is out: a slow or absent receiver never holds the grade back
        send_otel(result, lang)
    return 0 if result.score == result.max_score else 1
