"""Grade a notebook from inside it:

    import reactlings
    reactlings.check("day06")

or, as a magic: `%load_ext reactlings`, then `%reactlings day06` (`--seed 7`, `--lang zh`).

What is graded is the code of the cells run in this kernel, as typed, in the order they ran:
IPython's history (`In`), cell In [N] as Jupyter shows it. That is what the notebook's functions
are now, and it is there wherever a kernel runs: Colab and VS Code give a kernel no path to its
notebook, and a notebook's file may be saved out of step with what ran. It is graded as
`validate.py LESSON --file work.ipynb` grades a notebook (validator/grading/notebooks.py): written to a
.py and run in the jailed child, never in this kernel.
"""
from __future__ import annotations

import argparse
import io
import shlex

from mock_llm import DEFAULT_SEED
from validator.grading import notebooks
from validator.lessons import LessonError, default_lang, load_lesson, said, say

__all__ = ["check", "load_ipython_extension"]


def check(lesson: str, seed: int = DEFAULT_SEED, lang: str | None = None) -> None:
    """Grade the cells run in this kernel against `lesson` (such as "day06"); the report is the
    cell's output."""
    from IPython import get_ipython
    from rich.console import Console

    shell = get_ipython()
    if shell is None:
        raise RuntimeError("reactlings.check grades the cells of a notebook: call it in one "
                           "(a file: python validate.py LESSON --file PATH)")
    lang = lang or default_lang()
    # the report recorded, then shown at once as the cell's output: HTML in a notebook, text in a terminal
    console = Console(highlight=False, record=True, file=io.StringIO(), width=100, force_jupyter=False)
    program = notebooks.from_history(list(shell.history_manager.input_hist_raw), shell.user_ns.get("__file__"))
    try:
        chosen = load_lesson(lesson)
    except LessonError as error:
        console.print(said(error, lang), style="red", markup=False)
        return shown(console)
    if not program.source.strip():
        console.print(say("notebook_no_code", lang), style="red", markup=False)
        return shown(console)
    from validator.grading.grade import grade
    from validator.grading.report import print_report
    from validator.grading.runner import start_submission

    with notebooks.written(program, chosen.exercise.stem) as graded:
        result = grade(chosen, graded, seed, start_submission(chosen, graded, seed, program.file))
        result.notebook = program
    print_report(result, lang, f"reactlings.check({lesson!r})", console=console)
    shown(console)


def shown(console) -> None:
    """What `console` recorded, as one output of the cell: coloured HTML, and the plain text."""
    from IPython.display import display

    display({"text/plain": console.export_text(), "text/html": console.export_html(inline_styles=True)}, raw=True)


def load_ipython_extension(shell) -> None:
    """`%load_ext reactlings`: the line magic `%reactlings LESSON [--seed N] [--lang en|zh]`."""
    parser = argparse.ArgumentParser(prog="%reactlings", add_help=False, exit_on_error=False)
    parser.add_argument("lesson")
    parser.add_argument("--seed", type=int, default=DEFAULT_SEED)
    parser.add_argument("--lang", choices=("en", "zh"))

    def reactlings(line: str) -> None:
        try:
            args = parser.parse_args(shlex.split(line))
        except (argparse.ArgumentError, SystemExit):  # argparse exits on a missing argument anyway
            print(f"usage: {parser.format_usage().removeprefix('usage: ').strip()}")
            return
        check(args.lesson, args.seed, args.lang)

    shell.register_magic_function(reactlings, "line", "reactlings")
