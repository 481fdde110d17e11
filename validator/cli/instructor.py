"""The instructors' commands: a class graded (grade, merge, override), and the course handed out
where they teach (release, gradescope, prairielearn, github-classroom, shard-recipe). Each
imports what it runs only when it runs."""
from __future__ import annotations

import os
from pathlib import Path

from validator.cli.options import (
    DEFAULT_JOBS,
    Command,
    add_seed_arguments,
    add_unisolated_argument,
    isolation_notice,
    positive,
    read_seed,
    seed_is_secret,
)
from validator.files import write_atomically
from validator.lessons import LessonError, lesson_names, load_lesson, say


def grade_arguments(p) -> None:
    p.add_argument("lesson", help="the lesson to grade, such as day06")
    p.add_argument("submissions", type=Path, help="a folder: one .py, folder or .zip per student")
    p.add_argument("--out", type=Path, required=True, metavar="GRADES", help="where the gradebooks go")
    p.add_argument("--jobs", type=positive, default=None,
                   help="submissions graded at once (default: two more than the CPUs, and up to twice that "
                        "while the CPUs sit idle, as when the checks wait on the students' code)")
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


def run_grade(args, console, lang: str) -> int:
    from validator.instructor.classroom import grade_class
    from validator.instructor.submissions import check_folders
    seed = read_seed(args)
    shard = None
    if args.shard is not None:
        from validator.instructor.shards import parse_shard
        shard = parse_shard(args.shard, dict(os.environ))
    check_folders(args.submissions, args.out)  # what was asked for first, then whether this machine may
    isolation_notice(not args.allow_unisolated, lang, refusal="class_unisolated")
    return grade_class(load_lesson(args.lesson), args.submissions, args.out, seed, args.jobs or DEFAULT_JOBS, lang,
                       console, reseed=args.reseed, shard=shard, most_jobs=args.jobs or 2 * DEFAULT_JOBS,
                       secret=seed_is_secret(args))


def merge_arguments(p) -> None:
    p.add_argument("out", type=Path, metavar="GRADES", help="where the class's gradebooks go")
    p.add_argument("shards", type=Path, nargs="+", metavar="SHARD_FOLDER",
                   help="every shard's --out folder (grade --shard K/N), each once")


def run_merge(args, console, lang: str) -> int:
    from validator.instructor.shards import merge
    return merge(args.out, args.shards, console, lang)


def override_arguments(p) -> None:
    p.add_argument("grades", type=Path, metavar="GRADES", help="the --out folder of a class graded with grade")
    p.add_argument("student", metavar="STUDENT", help="the student's name, as in grades.csv")
    p.add_argument("target", metavar="TARGET", help="a TODO (TODO 2.1) or a check, by its name in grades.json")
    p.add_argument("points", nargs="?", metavar="POINTS", help="the TODO's or the check's new points, 0 to what it is worth")
    p.add_argument("--comment", default="", help="why: shown to the student in feedback.txt and results.json")
    p.add_argument("--remove", action="store_true", help="take the override out: the autograder's grade comes back")


def run_override(args, console, lang: str) -> int:
    from validator.instructor.overrides import override_command
    return override_command(args.grades, args.student, args.target, args.points, args.comment, args.remove,
                            console, lang)


def shard_recipe_arguments(p) -> None:
    from validator.instructor.recipes import ENGINES
    p.add_argument("engine", choices=ENGINES, help="where the shards run")
    p.add_argument("--lesson", required=True, help="the lesson to grade, such as day06")
    p.add_argument("--shards", type=positive, default=4, help="how many shards (default: 4)")
    p.add_argument("--cpus", type=positive, default=4,
                   help="CPUs of each shard, where the engine asks for them (default: 4)")
    p.add_argument("--out", type=Path, metavar="FILE", help="write the file here (default: print it)")


def run_shard_recipe(args, console, lang: str) -> int:
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


def release_arguments(p) -> None:
    p.add_argument("--out", type=Path, required=True, metavar="DIR", help="a new folder, outside the kit")
    p.add_argument("--notebooks", action="store_true",
                   help="also write notebooks/dayNN.ipynb per lesson (Jupyter, Colab), installing the course "
                        "from --repo")
    p.add_argument("--repo", metavar="URL", help="the git URL learners get the course from "
                                                  "(https://github.com/OWNER/NAME: Colab badges too)")


def run_release(args, console, lang: str) -> int:
    from validator.instructor.platforms import release
    if args.notebooks and not args.repo:
        raise LessonError("notebooks_need_repo")
    console.print(say("released", lang, path=release(args.out, args.repo if args.notebooks else None)), markup=False)
    return 0


def gradescope_arguments(p) -> None:
    p.add_argument("lesson", help="the lesson to grade, such as day06")
    p.add_argument("--out", type=Path, required=True, metavar="FILE.zip", help="the autograder to upload")
    add_seed_arguments(p, required=True)
    add_unisolated_argument(p, "by default such a run scores 0 with the reason (an unjailed submission "
                               "could read the seed)")


def run_gradescope(args, console, lang: str) -> int:
    from validator.instructor.platforms import gradescope_bundle
    bundle = gradescope_bundle(load_lesson(args.lesson), args.out, read_seed(args), lang,
                               isolated=not args.allow_unisolated)
    console.print(say("bundled", lang, path=bundle), markup=False)
    return 0


def prairielearn_arguments(p) -> None:
    p.add_argument("lessons", nargs="+", help="the lessons to make questions of, such as day06")
    p.add_argument("--out", type=Path, required=True, metavar="DIR",
                   help="a new folder: questions/, serverFilesCourse/ to copy into your course")
    p.add_argument("--image", required=True, metavar="NAME",
                   help="the grading image you push to Docker Hub, built from DIR/reactlings-image/Dockerfile")
    p.add_argument("--timeout", type=positive, metavar="SECONDS",
                   help="a grading job's limit (default: enough for a file that hangs in every check; at most 600)")
    add_seed_arguments(p, required=True)
    add_unisolated_argument(p, "by default such a submission is not graded, with the reason (an unjailed "
                               "submission could read the seed)")


def run_prairielearn(args, console, lang: str) -> int:
    from validator.instructor.prairielearn import MAX_TIMEOUT, export
    if args.timeout and args.timeout > MAX_TIMEOUT:
        raise LessonError("pl_timeout_too_long", seconds=args.timeout, most=MAX_TIMEOUT)
    out = export([load_lesson(n) for n in args.lessons], args.out, read_seed(args), lang, args.image,
                 isolated=not args.allow_unisolated, timeout=args.timeout)
    console.print(say("pl_exported", lang, path=out), markup=False)
    return 0


def github_classroom_arguments(p) -> None:
    p.add_argument("lessons", nargs="*", help="default: every lesson")
    p.add_argument("--out", type=Path, required=True, metavar="FILE.yml",
                   help="the workflow to commit as .github/workflows/classroom.yml")


def run_github_classroom(args, console, lang: str) -> int:
    from validator.grading.grade import grade
    from validator.instructor.platforms import check_output_file, github_workflow
    check_output_file(args.out, (".yml", ".yaml"))  # before grading every lesson for its points
    chosen = [load_lesson(n) for n in (args.lessons or lesson_names())]
    points = {lesson.name: grade(lesson, lesson.exercise).max_score for lesson in chosen}
    write_atomically(args.out, github_workflow(chosen, points))
    console.print(say("workflow_written", lang, path=args.out), markup=False)
    return 0


COMMANDS = [
    Command("grade", grade_arguments, run_grade, log=True),
    Command("override", override_arguments, run_override, log=True),
    Command("merge", merge_arguments, run_merge, log=True),
    Command("shard-recipe", shard_recipe_arguments, run_shard_recipe, log=True),
    Command("release", release_arguments, run_release, log=True),
    Command("gradescope", gradescope_arguments, run_gradescope, log=True),
    Command("prairielearn", prairielearn_arguments, run_prairielearn, log=True),
    Command("github-classroom", github_classroom_arguments, run_github_classroom, log=True),
]
