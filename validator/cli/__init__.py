"""The command line. One thing per command:

    python validate.py day06            grade your copy of the day06 exercise (made on first use)
    python validate.py list             every lesson, your best score, the course's progress
    python validate.py next             the first lesson not passed yet, and how to start it
    python validate.py hint day06       the next hint for the first TODO that fails
    python validate.py reset day06      start day06 again, its progress too (your file is kept in workspace/backups/)
    python validate.py watch [day06]    grade on every save
    python validate.py day06 --trace    also show every prompt, reply and tool run
    python validate.py grade day06 SUBMISSIONS --out GRADES     grade a whole class (instructors)
    python validate.py grade ... --shard K/N                     grade shard K of N of the class, on one of N machines
    python validate.py merge GRADES SHARD_FOLDERS...             the shards' gradebooks, as one run writes them
    python validate.py shard-recipe github|kubernetes|slurm      a ready file that grades a class in shards there
    python validate.py override GRADES STUDENT TARGET POINTS    overrule the grader: a TODO's or a check's points
    python validate.py release --out DIR                         the learners' copy of the course
    python validate.py release --out DIR --notebooks --repo URL  … with a notebook per lesson (Jupyter, Colab)
    python validate.py gradescope day06 --out autograder.zip     a Gradescope autograder
    python validate.py prairielearn day06 --out DIR --image NAME  a PrairieLearn question
    python validate.py github-classroom --out classroom.yml      a GitHub Classroom workflow
    python validate.py audit day06 (or all)                      mutation-test a lesson's checks (authors)
    python validate.py check-lesson day06 [--fix] [--audit]      everything a lesson must satisfy (authors)
    python validate.py new day13 --protocol chat                 a new lesson that already grades (authors)

Exit status: 0 all checks pass, 1 some fail, 2 bad usage, 130 stopped by Ctrl-C.

Each command is a Command (options.py): the arguments it takes and its handler, in learner.py,
instructor.py or authors.py; lesson.py grades one file, the command without a name.
"""
from __future__ import annotations

import argparse
import signal
import sys

from mock_llm import ScenarioError
from validator.cli import authors, instructor, learner, lesson
from validator.cli.options import add_lang_argument, terminal, usage_error
from validator.console import stderr
from validator.lessons import LessonError, default_lang, said, say

COMMANDS = {command.name: command for command in (*learner.COMMANDS, *instructor.COMMANDS, *authors.COMMANDS)}
# Every command, as this module's docstring lists them (`validate.py COMMAND --help` for each one's options).
COMMANDS_HELP = "commands (each with --help):\n" + __doc__.split("\n\n")[1] + "\n\n" + __doc__.split("\n\n")[2]


def command_parser(name: str) -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog=f"validate.py {name}")
    COMMANDS[name].arguments(parser)
    add_lang_argument(parser)
    return parser


def main(argv: list[str] | None = None, interrupted: list | None = None) -> int:
    """`interrupted`: validate.py's record of a Ctrl-C while the kit was loading (held till now)."""
    argv = sys.argv[1:] if argv is None else argv
    command = COMMANDS.get(argv[0]) if argv else None
    args = command_parser(command.name).parse_args(argv[1:]) if command else lesson.parser(COMMANDS_HELP).parse_args(argv)
    lang = args.lang or default_lang()
    try:
        if interrupted is not None:
            signal.signal(signal.SIGINT, signal.default_int_handler)
            if interrupted:
                raise KeyboardInterrupt
        if command is None:
            return lesson.run(args, argv, lang)
        return command.run(args, terminal(command.log), lang)
    except KeyboardInterrupt:  # Ctrl-C: one line, the shell's status for it (`grade` says what it saved)
        stderr().print(say("stopped", lang), markup=False)
        return 130
    except (LessonError, ScenarioError) as error:
        return usage_error(said(error, lang), lang)
    except OSError as error:  # a folder that can't be made, a file that can't be written or read
        return usage_error(say("os_error", lang, problem=error.strerror or str(error), path=error.filename or ""),
                           lang)
