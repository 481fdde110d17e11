"""The lesson authors' commands: audit (mutation-test a lesson's checks), check-lesson
(everything a lesson must satisfy) and new (a lesson that already grades)."""
from __future__ import annotations

from validator.cli.options import DEFAULT_JOBS, Command, positive
from validator.lessons import lesson_names


def audit_arguments(p) -> None:
    from mock_llm import DEFAULT_SEED
    from validator.authoring.audit import LIMIT
    p.add_argument("lessons", nargs="+", help="lessons such as day06, or all")
    p.add_argument("--limit", type=positive, default=LIMIT,
                   help=f"mutants graded per lesson, sampled the same way every run (default: {LIMIT})")
    p.add_argument("--seed", type=int, default=DEFAULT_SEED, help="the seed the mutants are graded at")
    p.add_argument("--jobs", type=positive, default=DEFAULT_JOBS, help="mutants graded at once")


def run_audit(args, console, lang: str) -> int:
    from validator.authoring.audit import audit_command
    names = lesson_names() if args.lessons == ["all"] else args.lessons
    return audit_command(names, args.seed, args.jobs, args.limit, console)


def check_lesson_arguments(p) -> None:
    p.add_argument("lessons", nargs="*", help="lessons such as day06, or lesson folders (default: every lesson)")
    p.add_argument("--fix", action="store_true", help="first write what is generated from the lessons")
    p.add_argument("--audit", action="store_true",
                   help="also mutation-test the checks (validate.py audit; a minute or more a lesson)")
    p.add_argument("--jobs", type=positive, default=DEFAULT_JOBS, help="mutants graded at once (--audit)")


def run_check_lesson(args, console, lang: str) -> int:
    from validator.authoring.command import check
    return check(args.lessons or lesson_names(), args.fix, args.audit, args.jobs)


def new_arguments(p) -> None:
    p.add_argument("lesson", help="the new lesson's name, such as day13 (made in lessons/), or a new folder's path")
    p.add_argument("--protocol", required=True, metavar="NAME",
                   help="how its model talks: text, decisions, json, chat or text_chat (README: the mock)")


def run_new(args, console, lang: str) -> int:
    from validator.authoring.command import new
    return new(args.lesson, args.protocol)


COMMANDS = [
    Command("audit", audit_arguments, run_audit, log=True),
    Command("check-lesson", check_lesson_arguments, run_check_lesson, log=True),
    Command("new", new_arguments, run_new, log=True),
]
