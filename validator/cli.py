"""The command line: `python validate.py LESSON` grades your file; `python validate.py list` shows
every lesson with your score. Exit status: 0 all checks pass, 1 some fail, 2 bad usage."""
from __future__ import annotations

import argparse
import os
import shlex
import sys
from pathlib import Path

from rich.console import Console
from rich.table import Table

from mock_llm import DEFAULT_SEED, ScenarioError

from .grading import grade
from .live import run_live
from .lessons import LANGS, LessonError, default_lang, lesson_names, load_lesson, said, say
from .report import print_report, write_results


def parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(
        prog="validate.py", description="Grade a reactlings lesson: runs your code against the mock LLM.",
        epilog="examples: python validate.py day06 · python validate.py day06 --trace · "
               "python validate.py list")
    p.add_argument("lesson", help="a lesson such as day06, or `list` to see every lesson and your score")
    which = p.add_mutually_exclusive_group()
    which.add_argument("--solution", action="store_true", help="grade the reference solution instead")
    which.add_argument("--file", type=Path, metavar="PATH", help="grade this file instead of the lesson's")
    secret = p.add_mutually_exclusive_group()
    secret.add_argument("--seed", type=int, default=None,
                        help=f"draw other numbers and cities (default {DEFAULT_SEED}: the lesson's own; "
                             "or $REACTLINGS_SEED)")
    secret.add_argument("--seed-file", type=Path, metavar="FILE",
                        help="read the seed from FILE, so it never shows on a command line")
    p.add_argument("--show-seed", action="store_true", help="name the seed in --format output")
    p.add_argument("--trace", action="store_true", help="show every prompt, model reply and tool call")
    p.add_argument("--lang", choices=LANGS, default=None, help="report language (default: from the locale)")
    p.add_argument("--format", choices=("text", "gradescope", "junit"), default="text",
                   help="text report (default), Gradescope results.json, or JUnit XML")
    p.add_argument("--output", type=Path, metavar="FILE", help="write --format output here (default: stdout)")
    live_by_default = os.environ.get("REACTLINGS_LIVE", "") not in ("", "0")
    p.add_argument("--live", action="store_true", default=live_by_default,
                   help="run your agent against a real OpenAI-compatible endpoint (OPENAI_BASE_URL, "
                        "OPENAI_API_KEY); shows the transcript, grades nothing. Also: REACTLINGS_LIVE=1")
    p.add_argument("--model", help="model name for --live (default: $REACTLINGS_MODEL or gpt-4o-mini)")
    return p


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    args = parser().parse_args(argv)
    lang = args.lang or default_lang()
    console = Console(highlight=False, soft_wrap=True)
    try:
        seed = read_seed(args)
        if args.lesson == "list":
            return list_lessons(console, lang, seed)
        lesson = load_lesson(args.lesson)
        path = lesson.solution if args.solution else (args.file or lesson.exercise)
        if not Path(path).is_file():
            raise LessonError("no_such_file", path=path)
        if args.live:
            return run_live(lesson, path, args.model, lang, console)
        result = grade(lesson, path, seed)
    except (LessonError, ScenarioError) as error:
        return usage_error(error, lang)
    if args.format != "text" and args.output is None:
        write_results(result, args.format, None, lang, args.show_seed)
    else:
        print_report(result, lang, "python validate.py " + shlex.join(argv), args.trace, console)
        if args.format != "text":
            try:
                write_results(result, args.format, args.output, lang, args.show_seed)
            except OSError as error:
                return usage_error(error, lang)
    return 0 if result.score == result.max_score else 1


def read_seed(args) -> int:
    """The seed: --seed, else --seed-file, else $REACTLINGS_SEED, else the lessons' own (0). An
    instructor's secret seed comes from a file or the environment, never a command line the
    graded code could read."""
    if args.seed is not None:
        return args.seed
    text, source = os.environ.get("REACTLINGS_SEED", ""), "REACTLINGS_SEED"
    if args.seed_file is not None:
        source = str(args.seed_file)
        try:
            text = args.seed_file.read_text(encoding="utf-8")
        except OSError as error:
            raise LessonError("bad_seed", source=source, problem=error.strerror or str(error)) from None
    if not text.strip():
        return DEFAULT_SEED
    try:
        return int(text.strip())
    except ValueError:
        raise LessonError("bad_seed", source=source, problem=f"not a whole number: {text.strip()[:40]!r}") from None


def usage_error(error: Exception, lang: str) -> int:
    """One line on stderr, no traceback; exit status 2."""
    console = Console(stderr=True, highlight=False, soft_wrap=True)
    console.print(f"{say('error_prefix', lang)}{said(error, lang)}", markup=False)
    return 2


def list_lessons(console: Console, lang: str, seed: int) -> int:
    table = Table(box=None, pad_edge=False)
    for column in ("list_lesson", "list_title", "list_score"):
        table.add_column(say(column, lang))
    for name in lesson_names():
        try:
            lesson = load_lesson(name)
            result = grade(lesson, lesson.exercise, seed)
            score = f"{result.score}/{result.max_score}"
            style = "green" if result.score == result.max_score else None
        except (LessonError, ScenarioError) as error:
            lesson, score, style = None, say("list_broken", lang, error=said(error, lang)), "red"
        table.add_row(name, lesson.title[lang] if lesson else "?", score, style=style)
    console.print(table)
    return 0
