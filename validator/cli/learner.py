"""The learner's commands besides grading: list, next, hint, reset, watch."""
from __future__ import annotations

from validator.cli.options import Command, add_page_arguments, page_asked
from validator.learner.progress import hint, list_lessons, next_lesson, reset
from validator.lessons import load_lesson


def lesson_argument(parser) -> None:
    parser.add_argument("lesson", help="a lesson such as day06")


def reset_arguments(parser) -> None:
    lesson_argument(parser)
    parser.add_argument("--yes", action="store_true", help="do not ask for confirmation")


def watch_arguments(parser) -> None:
    parser.add_argument("lesson", nargs="?", help="default: the first lesson not passed yet")
    add_page_arguments(parser)


def run_watch(args, console, lang: str) -> int:
    from validator.learner.watch import watch  # only here: it needs watchfiles and a terminal
    return watch(args.lesson, console, lang, page=page_asked(args), open_page=args.open)


COMMANDS = [
    Command("list", lambda parser: None, lambda args, console, lang: list_lessons(console, lang)),
    Command("next", lambda parser: None, lambda args, console, lang: next_lesson(console, lang)),
    Command("hint", lesson_argument, lambda args, console, lang: hint(load_lesson(args.lesson), console, lang)),
    Command("reset", reset_arguments,
            lambda args, console, lang: reset(load_lesson(args.lesson), console, lang, args.yes)),
    Command("watch", watch_arguments, run_watch),
]
