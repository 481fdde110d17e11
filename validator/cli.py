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
"""
from __future__ import annotations

import argparse
import importlib.machinery
import os
import shlex
import sys
from pathlib import Path
from typing import TYPE_CHECKING

from mock_llm import DEFAULT_SEED, ScenarioError
from validator.console import shown_path, stderr
from validator.files import SOLUTIONS_DIR, write_atomically
from validator.grading import notebooks
from validator.grading.runner import start_submission
from validator.isolation import jail
from validator.learner import workspace
from validator.learner.artifacts import page_path, send_otel, write_otel_file, write_results, write_trace_page
from validator.learner.progress import after_pass, hint, list_lessons, my_copy, next_lesson, reset
from validator.lessons import LANGS, LessonError, default_lang, lesson_names, load_lesson, said, say

# Grading a lesson starts the learner's child before importing pytest, rich and the report (a good
# part of the grader's start-up): the child loads their file meanwhile. So those are imported where
# they are used.
if TYPE_CHECKING:
    from rich.console import Console

INSTRUCTORS = ("grade", "override", "merge", "shard-recipe", "release", "gradescope", "prairielearn",
               "github-classroom", "audit")  # whole lines, for grep
COMMANDS = ("list", "next", "hint", "reset", "watch", *INSTRUCTORS)


# Every command, as this module's docstring lists them (`validate.py COMMAND --help` for each one's options).
COMMANDS_HELP = "commands (each with --help):\n" + __doc__.split("\n\n")[1] + "\n\n" + __doc__.split("\n\n")[2]


def grade_parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(
        prog="validate.py", description="Grade a reactlings lesson: runs your code against the mock LLM.",
        formatter_class=argparse.RawDescriptionHelpFormatter, epilog=COMMANDS_HELP)
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
    p.add_argument("--quiet", action="store_true", help="print only the score line")
    p.add_argument("--lang", choices=LANGS, default=None, help="report language (default: from the locale)")
    p.add_argument("--format", choices=("text", "gradescope", "prairielearn", "junit"), default="text",
                   help="text report (default), Gradescope's or PrairieLearn's results.json, or JUnit XML")
    p.add_argument("--output", type=Path, metavar="FILE", help="write --format output here (default: stdout)")
    live_by_default = os.environ.get("REACTLINGS_LIVE", "") not in ("", "0")
    p.add_argument("--live", action="store_true", default=live_by_default,
                   help="run your agent against a real OpenAI-compatible endpoint (OPENAI_BASE_URL, "
                        "OPENAI_API_KEY); shows the transcript, grades nothing. Also: REACTLINGS_LIVE=1")
    p.add_argument("--model", help="model name for --live (default: $REACTLINGS_MODEL or gpt-4o-mini)")
    return p


def add_page_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--html", nargs="?", const="", default=None, metavar="PATH", type=str,
                        help="also write the graded run as a page to open in a browser: each failed check's "
                             "rounds, prompt by prompt (default PATH: workspace/traces/LESSON.html)")
    parser.add_argument("--open", action="store_true", help="open the --html page in your browser")
    if parser.prog == "validate.py":  # one grading, not watch
        parser.add_argument("--otel", nargs="?", const="", default=None, metavar="PATH", type=str,
                            help="also write the graded run as OpenTelemetry traces (OTLP protobuf, GenAI semantic "
                                 "conventions) for Jaeger, Phoenix, Langfuse or a collector; without PATH, send them "
                                 "to the OTLP/HTTP endpoint $OTEL_EXPORTER_OTLP_ENDPOINT names (default: "
                                 "http://localhost:4318)")


def add_seed_arguments(parser: argparse.ArgumentParser, required: bool = False) -> None:
    """--seed or --seed-file, one of them; read_seed also takes $REACTLINGS_SEED, so a required
    seed is checked there, not by argparse (which knows nothing of the environment)."""
    secret = parser.add_mutually_exclusive_group()
    default = "this, --seed-file or $REACTLINGS_SEED is required" if required else \
        f"default: $REACTLINGS_SEED, else {DEFAULT_SEED}, the lesson's own"
    secret.add_argument("--seed", type=int, default=None, help=f"draw other numbers and cities ({default})")
    secret.add_argument("--seed-file", type=Path, metavar="FILE",
                        help="read the seed from FILE, so it never shows on a command line")
    parser.set_defaults(seed_required=required)


def add_unisolated_argument(parser, otherwise: str) -> None:
    """The instructor's opt-out of isolation, for the commands that grade untrusted code by default
    only jailed (grade, gradescope)."""
    parser.add_argument("--allow-unisolated", action="store_true",
                        help=f"grade even where the sandbox can't isolate submissions; {otherwise}")


def positive(text: str) -> int:
    """argparse's type for counts: a whole number, 1 or more."""
    try:
        number = int(text)
    except ValueError:
        number = 0
    if number < 1:
        raise argparse.ArgumentTypeError(f"must be a whole number, 1 or more (not {text!r})")
    return number


def command_parser(command: str) -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog=f"validate.py {command}")
    if command in ("hint", "reset"):
        p.add_argument("lesson", help="a lesson such as day06")
    if command == "watch":
        p.add_argument("lesson", nargs="?", help="default: the first lesson not passed yet")
        add_page_arguments(p)
    if command == "reset":
        p.add_argument("--yes", action="store_true", help="do not ask for confirmation")
    outs = {"release": ("DIR", "a new folder, outside the kit"),
            "gradescope": ("FILE.zip", "the autograder to upload"),
            "prairielearn": ("DIR", "a new folder: questions/, serverFilesCourse/ to copy into your course"),
            "github-classroom": ("FILE.yml", "the workflow to commit as .github/workflows/classroom.yml")}
    if command in outs:
        p.add_argument("--out", type=Path, required=True, metavar=outs[command][0], help=outs[command][1])
    if command == "release":
        p.add_argument("--notebooks", action="store_true",
                       help="also write notebooks/dayNN.ipynb per lesson (Jupyter, Colab), installing the course "
                            "from --repo")
        p.add_argument("--repo", metavar="URL", help="the git URL learners get the course from "
                                                      "(https://github.com/OWNER/NAME: Colab badges too)")
    if command == "github-classroom":
        p.add_argument("lessons", nargs="*", help="default: every lesson")
    if command == "gradescope":
        p.add_argument("lesson", help="the lesson to grade, such as day06")
        add_seed_arguments(p, required=True)
        add_unisolated_argument(p, "by default such a run scores 0 with the reason (an unjailed submission "
                                   "could read the seed)")
    if command == "prairielearn":
        p.add_argument("lessons", nargs="+", help="the lessons to make questions of, such as day06")
        p.add_argument("--image", required=True, metavar="NAME",
                       help="the grading image you push to Docker Hub, built from DIR/reactlings-image/Dockerfile")
        p.add_argument("--timeout", type=positive, metavar="SECONDS",
                       help="a grading job's limit (default: enough for a file that hangs in every check; at most 600)")
        add_seed_arguments(p, required=True)
        add_unisolated_argument(p, "by default such a submission is not graded, with the reason (an unjailed "
                                   "submission could read the seed)")
    if command == "grade":
        p.add_argument("lesson", help="the lesson to grade, such as day06")
        p.add_argument("submissions", type=Path, help="a folder: one .py, folder or .zip per student")
        p.add_argument("--out", type=Path, required=True, metavar="GRADES", help="where the gradebooks go")
        # a submission that hangs waits out its time limit without working: a couple of workers
        # more than cores keep the cores busy meanwhile
        p.add_argument("--jobs", type=positive, default=(os.cpu_count() or 1) + 2,
                       help="submissions graded at once (default: two more than the CPUs)")
        add_seed_arguments(p)
        p.add_argument("--reseed", action="store_true",
                       help="regrade everyone in GRADES with this seed, though it was graded with another")
        isolation = p.add_mutually_exclusive_group()
        add_unisolated_argument(isolation, "by default it refuses to (an unjailed student could read the seed "
                                           "and rewrite other students' results)")
        isolation.add_argument("--require-isolation", action="store_true",
                               help="refuse to grade where the sandbox can't isolate submissions: the default, "
                                    "named for scripts written when it was not")
        p.add_argument("--shard", metavar="K/N",
                       help="grade only shard K of N (1 to N) of the class into GRADES, for `merge`; auto: from a "
                            "Slurm array's variables, auto/N: from a Kubernetes Indexed Job's JOB_COMPLETION_INDEX")
    if command == "merge":
        p.add_argument("out", type=Path, metavar="GRADES", help="where the class's gradebooks go")
        p.add_argument("shards", type=Path, nargs="+", metavar="SHARD_FOLDER",
                       help="every shard's --out folder (grade --shard K/N), each once")
    if command == "shard-recipe":
        from validator.instructor.recipes import ENGINES
        p.add_argument("engine", choices=ENGINES, help="where the shards run")
        p.add_argument("--lesson", required=True, help="the lesson to grade, such as day06")
        p.add_argument("--shards", type=positive, default=4, help="how many shards (default: 4)")
        p.add_argument("--cpus", type=positive, default=4,
                       help="CPUs of each shard, where the engine asks for them (default: 4)")
        p.add_argument("--out", type=Path, metavar="FILE", help="write the file here (default: print it)")
    if command == "override":
        p.add_argument("grades", type=Path, metavar="GRADES", help="the --out folder of a class graded with grade")
        p.add_argument("student", metavar="STUDENT", help="the student's name, as in grades.csv")
        p.add_argument("target", metavar="TARGET", help="a TODO (TODO 2.1) or a check, by its name in grades.json")
        p.add_argument("points", nargs="?", metavar="POINTS", help="the TODO's or the check's new points, 0 to what it is worth")
        p.add_argument("--comment", default="", help="why: shown to the student in feedback.txt and results.json")
        p.add_argument("--remove", action="store_true", help="take the override out: the autograder's grade comes back")
    if command == "audit":
        from validator.authoring.audit import LIMIT
        p.add_argument("lessons", nargs="+", help="lessons such as day06, or all")
        p.add_argument("--limit", type=positive, default=LIMIT,
                       help=f"mutants graded per lesson, sampled the same way every run (default: {LIMIT})")
        p.add_argument("--seed", type=int, default=DEFAULT_SEED, help="the seed the mutants are graded at")
        p.add_argument("--jobs", type=positive, default=(os.cpu_count() or 1) + 2, help="mutants graded at once")
    p.add_argument("--lang", choices=LANGS, default=None,
                   help="language of messages, reports and feedback (default: from the locale)")
    return p


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    if argv and argv[0] in ("check-lesson", "new"):  # the authors' commands: a parser of their own
        from validator.authoring.command import main as authoring_main
        return authoring_main(argv)
    if argv and argv[0] in COMMANDS:
        args = command_parser(argv[0]).parse_args(argv[1:])
        args.command = argv[0]
    else:
        args = grade_parser().parse_args(argv)
        args.command = "lesson"
    lang = args.lang or default_lang()
    if getattr(args, "open", False) and args.html is None:  # --open alone: the page at its default place
        args.html = ""
    try:
        if args.command == "lesson":  # its console is made once the learner's child has started
            return grade_command(args, argv, lang)
        console = terminal(args.command)
        if args.command == "list":
            return list_lessons(console, lang)
        if args.command == "next":
            return next_lesson(console, lang)
        if args.command == "hint":
            return hint(load_lesson(args.lesson), console, lang)
        if args.command == "reset":
            return reset(load_lesson(args.lesson), console, lang, args.yes)
        if args.command == "release":
            from validator.instructor.platforms import release
            if args.notebooks and not args.repo:
                raise LessonError("notebooks_need_repo")
            console.print(say("released", lang, path=release(args.out, args.repo if args.notebooks else None)),
                          markup=False)
            return 0
        if args.command == "gradescope":
            from validator.instructor.platforms import gradescope_bundle
            bundle = gradescope_bundle(load_lesson(args.lesson), args.out, read_seed(args), lang,
                                       isolated=not args.allow_unisolated)
            console.print(say("bundled", lang, path=bundle), markup=False)
            return 0
        if args.command == "prairielearn":
            from validator.instructor.prairielearn import MAX_TIMEOUT, export
            if args.timeout and args.timeout > MAX_TIMEOUT:
                raise LessonError("pl_timeout_too_long", seconds=args.timeout, most=MAX_TIMEOUT)
            out = export([load_lesson(n) for n in args.lessons], args.out, read_seed(args), lang, args.image,
                         isolated=not args.allow_unisolated, timeout=args.timeout)
            console.print(say("pl_exported", lang, path=out), markup=False)
            return 0
        if args.command == "github-classroom":
            from validator.instructor.platforms import check_output_file, github_workflow
            check_output_file(args.out, (".yml", ".yaml"))  # before grading every lesson for its points
            from validator.grading.grade import grade
            chosen = [load_lesson(n) for n in (args.lessons or lesson_names())]
            points = {lesson.name: grade(lesson, lesson.exercise).max_score for lesson in chosen}
            write_atomically(args.out, github_workflow(chosen, points))
            console.print(say("workflow_written", lang, path=args.out), markup=False)
            return 0
        if args.command == "grade":
            from validator.instructor.classroom import grade_class
            from validator.instructor.submissions import check_folders
            seed = read_seed(args)
            shard = None
            if args.shard is not None:
                from validator.instructor.shards import parse_shard
                shard = parse_shard(args.shard, dict(os.environ))
            check_folders(args.submissions, args.out)  # what was asked for first, then whether this machine may
            isolation_notice(not args.allow_unisolated, lang, refusal="class_unisolated")
            return grade_class(load_lesson(args.lesson), args.submissions, args.out, seed, args.jobs, lang, console,
                               reseed=args.reseed, shard=shard)
        if args.command == "merge":
            from validator.instructor.shards import merge
            return merge(args.out, args.shards, console, lang)
        if args.command == "shard-recipe":
            return shard_recipe(args, console, lang)
        if args.command == "override":
            from validator.instructor.overrides import override_command
            return override_command(args.grades, args.student, args.target, args.points, args.comment, args.remove,
                                    console, lang)
        if args.command == "audit":
            from validator.authoring.audit import audit_command
            names = lesson_names() if args.lessons == ["all"] else args.lessons
            return audit_command(names, args.seed, args.jobs, args.limit, console)
        from validator.learner.watch import watch  # only here: it needs watchfiles and a terminal
        return watch(args.lesson, console, lang, page=args.html, open_page=args.open)
    except KeyboardInterrupt:  # Ctrl-C: one line, the shell's status for it (`grade` says what it saved)
        stderr().print(say("stopped", lang), markup=False)
        return 130
    except (LessonError, ScenarioError) as error:
        return usage_error(said(error, lang), lang)
    except OSError as error:  # a folder that can't be made, a file that can't be written or read
        return usage_error(say("os_error", lang, problem=error.strerror or str(error), path=error.filename or ""),
                           lang)


def shard_recipe(args, console: Console, lang: str) -> int:
    """The engine's file, printed or written to --out."""
    from validator.instructor.platforms import check_output_file
    from validator.instructor.recipes import SUFFIXES, recipe
    if args.out is not None:
        check_output_file(args.out, SUFFIXES[args.engine])
    text = recipe(args.engine, load_lesson(args.lesson), args.shards, args.cpus)
    if args.out is None:
        console.out(text, end="", highlight=False)
        return 0
    write_atomically(args.out, text)
    console.print(say("recipe_written", lang, engine=args.engine, path=args.out), markup=False)
    return 0


def terminal(command: str) -> Console:
    """The console a command prints to. A learner's report piped to a file or `less` wraps as on
    a terminal: at $COLUMNS, else 80. An instructor's log (grade, release, …) stays whole lines
    there, for grep."""
    from rich.console import Console

    console = Console(highlight=False)
    console.soft_wrap = not console.is_terminal and command in INSTRUCTORS
    return console


def grade_command(args, argv: list[str], lang: str) -> int:
    if not args.lesson:
        terminal(args.command).print(say("no_lesson_given", lang), markup=False)
        return 2
    seed = read_seed(args)
    lesson = load_lesson(args.lesson)
    mine = not (args.solution or args.file or args.submission)  # the learner's own copy: keep their progress
    shown = None  # a handed-in file's name in its folder, for the report (not where the grader found the folder)
    if args.solution:
        if not lesson.solution.is_file():  # the learners' copy of the course has no solutions/
            raise LessonError("no_solution_here", path=shown_path(lesson.solution), name=lesson.name)
        path = lesson.solution
    elif args.file:
        path = args.file
    elif args.submission:
        from validator.instructor.submissions import (  # as `grade` would grade in this folder
            exercise_file,
            must_be_folder,
            printable_name,
        )
        must_be_folder(args.submission)
        path, note = exercise_file(args.submission, lesson, lang)
        if path is None:
            return usage_error(note, lang)
        shown = printable_name(path.relative_to(args.submission).as_posix())
        # which file, for whoever reads the grader's output (the note: chosen among several)
        stderr().print(note or say("submission_file", lang, path=shown), markup=False)
    else:
        path = my_copy(lesson, lang)
    if not Path(path).is_file():
        raise LessonError("no_such_file", path=path)
    suffix = Path(path).resolve().suffix
    if suffix not in importlib.machinery.SOURCE_SUFFIXES and not notebooks.is_notebook(path):  # what Python imports
        raise LessonError("not_python_file", path=path)
    # someone else's code: say what the sandbox can't enforce
    if args.file or args.submission or args.require_isolation:
        isolation_notice(args.require_isolation, lang)
    page = page_path(args.html, lesson, path)  # a bad PATH is said before the grading, not after
    page_path(args.otel or None, lesson, path, "--otel")  # nor is a trace file ever the code
    with notebooks.python_file(path) as (graded, notebook):  # a notebook: its code cells as a .py
        if args.live:
            from validator.learner.live import run_live  # only here: a one-shot grading does without its imports
            return run_live(lesson, graded, args.model, lang, terminal(args.command))
        started = start_submission(lesson, graded, seed, notebook and notebook.file)
        from validator.grading.grade import grade
        console = terminal(args.command)
        result = grade(lesson, graded, seed, started)
        result.notebook = notebook
        if shown is not None:
            from validator.instructor.workers import name_as_submitted
            name_as_submitted(result, shown)
        return reported(result, args, argv, lang, console, page, mine)


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
        print_report(result, lang, "python validate.py " + shlex.join(argv), args.trace, console,
                     quiet=args.quiet, show_seed=args.show_seed or not seed_is_secret(args))
        if result.score == result.max_score and mine and not args.quiet:
            after_pass(lesson, console, lang)
        if args.format != "text":
            write_results(result, args.format, args.output, lang, args.show_seed)
    if args.otel == "":  # sent once the report is out: a slow or absent receiver never holds the grade back
        send_otel(result, lang)
    return 0 if result.score == result.max_score else 1


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
    is an error, never the public seed."""
    if args.seed is not None:
        return args.seed
    text, source = os.environ.get("REACTLINGS_SEED", ""), "REACTLINGS_SEED"
    if args.seed_file is not None:
        source = str(args.seed_file)
        try:
            text = args.seed_file.read_bytes().decode("utf-8-sig")  # a BOM, as Windows editors write
        except OSError as error:
            raise LessonError("bad_seed", source=source, problem=error.strerror or str(error)) from None
        except UnicodeDecodeError:
            raise LessonError("seed_file_not_text", path=source) from None
        if not text.strip():
            raise LessonError("seed_file_empty", path=source)
        if jail.open_to_all(source) and jail.level() == "user":  # a submission could read it
            raise LessonError("seed_file_open", path=source)
    elif not text.strip():
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


def seed_is_secret(args) -> bool:
    """Whether the seed came from --seed-file or $REACTLINGS_SEED, where an instructor keeps the
    secret one: a report shows it only when asked (--show-seed). --seed N is the learner's own."""
    return args.seed is None and (args.seed_file is not None or bool(os.environ.get("REACTLINGS_SEED", "").strip()))


# A secret seed below this can be found by trying them all: from the numbers a tool gives a
# student's code (the tables are drawn from the seed), in hours on one machine.
GUESSABLE = 2 ** 64


def usage_error(message: str, lang: str) -> int:
    """One line on stderr, no traceback; exit status 2."""
    stderr().print(f"{say('error_prefix', lang)}{message}", markup=False)
    return 2


# ---------------------------------------------------------------- progress: list, next


# ---------------------------------------------------------------- hint, reset


