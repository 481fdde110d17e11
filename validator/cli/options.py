"""What the commands share: the Command each one is, the options several take (the seed, the
isolation they require, the --html page), the seed read as an instructor keeps it secret, and
the console and error line every command prints to."""
from __future__ import annotations

import argparse
import os
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Callable

from mock_llm import DEFAULT_SEED
from validator.console import stderr
from validator.isolation import jail
from validator.lessons import LANGS, LessonError, default_lang, say

if TYPE_CHECKING:  # rich is imported when a console is made: a one-shot grading imports it late
    from rich.console import Console

# A secret seed below this can be found by trying them all: from the numbers a tool gives a
# student's code (the tables are drawn from the seed), in hours on one machine.
GUESSABLE = 2 ** 64
# Gradings at once (a class's submissions, an audit's mutants): a couple more than the cores keep
# them busy while some wait out a time limit.
DEFAULT_JOBS = (os.cpu_count() or 1) + 2


@dataclass(frozen=True)
class Command:
    """One `validate.py NAME`: the arguments it takes and the handler that runs it."""
    name: str
    arguments: Callable[[argparse.ArgumentParser], None]
    run: Callable[[argparse.Namespace, Console, str], int]  # (args, console, lang) -> exit status
    log: bool = False  # an instructor's or an author's: piped, its lines stay whole, for grep


def terminal(log: bool = False) -> Console:
    """The console a command prints to. A learner's report piped to a file or `less` wraps as on
    a terminal: at $COLUMNS, else 80. An instructor's log (grade, release, …) stays whole lines
    there, for grep."""
    from rich.console import Console

    console = Console(highlight=False)
    console.soft_wrap = not console.is_terminal and log
    return console


def usage_error(message: str, lang: str) -> int:
    """One line on stderr, no traceback; exit status 2."""
    stderr().print(f"{say('error_prefix', lang)}{message}", markup=False)
    return 2


def positive(text: str) -> int:
    """argparse's type for counts: a whole number, 1 or more."""
    try:
        number = int(text)
    except ValueError:
        number = 0
    if number < 1:
        raise argparse.ArgumentTypeError(f"must be a whole number, 1 or more (not {text!r})")
    return number


def add_page_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--html", nargs="?", const="", default=None, metavar="PATH", type=str,
                        help="also write the graded run as a page to open in a browser: each failed check's "
                             "rounds, prompt by prompt (default PATH: workspace/traces/LESSON.html)")
    parser.add_argument("--open", action="store_true", help="open the --html page in your browser")


def page_asked(args) -> str | None:
    """--html's PATH ("" for its default place), also when only --open was given; None: no page."""
    return "" if args.open and args.html is None else args.html


def add_seed_arguments(parser: argparse.ArgumentParser, required: bool = False) -> None:
    """--seed or --seed-file, one of them; read_seed also takes $REACTLINGS_SEED, so a required
    seed is checked there, not by argparse (which knows nothing of the environment)."""
    secret = parser.add_mutually_exclusive_group()
    default = "this, --seed-file or $REACTLINGS_SEED is required" if required else \
        f"default: $REACTLINGS_SEED, else {DEFAULT_SEED}, the lesson's own"
    secret.add_argument("--seed", type=int, default=None, help=f"draw other numbers and cities ({default})")
    secret.add_argument("--seed-file", type=Path, metavar="FILE",
                        help="read the seed from FILE, so it never shows on a command line (a secret: each "
                             "submission is graded at numbers drawn from it and the file's own code)")
    parser.set_defaults(seed_required=required)


def add_unisolated_argument(parser, otherwise: str) -> None:
    """The instructor's opt-out of isolation, for the commands that grade untrusted code by default
    only jailed (grade, gradescope, prairielearn)."""
    parser.add_argument("--allow-unisolated", action="store_true",
                        help=f"grade even where the sandbox can't isolate submissions; {otherwise}")


def add_lang_argument(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--lang", choices=LANGS, default=None,
                        help="language of messages, reports and feedback (default: from the locale)")


def isolation_notice(required: bool, lang: str, refusal: str = "isolation_required") -> None:
    """Where the sandbox can't isolate submissions: one line on stderr, or (required) an error,
    the message `refusal`."""
    jail.required = required
    reason = jail.unavailable_reason()
    if reason and required:
        raise LessonError(refusal, reason=reason)
    note = reason or jail.level_note()
    if note:
        stderr().print(say("isolation_warning", lang, note=note), style="yellow", markup=False)


def read_seed(args) -> int:
    """The seed: --seed, else --seed-file, else $REACTLINGS_SEED, else the lessons' own (0) unless
    the command needs one (seed_required). An instructor's secret seed comes from a file or the
    environment, never a command line the graded code could read; a seed file that holds no seed
    is an error, never the public seed, and so is $REACTLINGS_SEED set to nothing (a CI secret
    that was never added)."""
    if args.seed is not None:
        return args.seed
    text, source = os.environ.get("REACTLINGS_SEED", ""), "REACTLINGS_SEED"
    if args.seed_file is not None:
        source = str(args.seed_file)
        text = seed_file_text(args.seed_file)
    elif not text.strip():
        if "REACTLINGS_SEED" in os.environ:
            raise LessonError("seed_variable_empty")
        if args.seed_required:
            raise LessonError("seed_needed")
        return DEFAULT_SEED
    try:
        seed = int(text.strip())
    except ValueError:
        raise LessonError("bad_seed", source=source, problem=f"not a whole number: {text.strip()[:40]!r}") from None
    if abs(seed) < GUESSABLE:
        stderr().print(say("seed_guessable", args.lang or default_lang(), source=source), markup=False)
    return seed


def seed_file_text(path: Path) -> str:
    """A seed file's text: an error if it can't be read, holds nothing, or (isolated by user only)
    a submission could read it too."""
    try:
        text = path.read_bytes().decode("utf-8-sig")  # a BOM, as Windows editors write
    except OSError as error:
        raise LessonError("bad_seed", source=str(path), problem=error.strerror or str(error)) from None
    except UnicodeDecodeError:
        raise LessonError("seed_file_not_text", path=str(path)) from None
    if not text.strip():
        raise LessonError("seed_file_empty", path=str(path))
    if jail.open_to_all(str(path)) and jail.level() == "user":
        raise LessonError("seed_file_open", path=str(path))
    return text


def seed_is_secret(args) -> bool:
    """Whether the seed came from --seed-file or $REACTLINGS_SEED, where an instructor keeps the
    secret one: a report shows it only when asked (--show-seed). --seed N is the learner's own."""
    return args.seed is None and (args.seed_file is not None or bool(os.environ.get("REACTLINGS_SEED", "").strip()))
