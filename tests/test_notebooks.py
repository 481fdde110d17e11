"""Notebooks: a notebook is graded exactly as the same code in a .py (validator/grading/notebooks.py),
from the command line, from inside a running notebook (reactlings.check, a real Jupyter kernel),
and as the release writes one per lesson (validator/instructor/lesson_notebooks.py)."""
from __future__ import annotations

import io
import re
import subprocess
import sys
from pathlib import Path

import nbformat
import pytest
from nbformat import v4
from rich.console import Console

from validator.authoring.corpus import read_header
from validator.grading import notebooks
from validator.grading.grade import grade
from validator.grading.notebooks import Cell, Program, from_history, read_notebook
from validator.grading.report import gradescope, print_report
from validator.grading.runner import start_submission
from validator.instructor.lesson_notebooks import code_cells, lesson_notebook, without_main
from validator.instructor.platforms import learners_readme
from validator.lessons import lesson_names, load_lesson

ROOT = Path(__file__).resolve().parent.parent
CORPUS = ROOT / "tests" / "submissions"
SOLUTION = (ROOT / "solutions" / "day06.py").read_text(encoding="utf-8")


def notebook_of(cells: list, path: Path, tags: dict[int, list] | None = None) -> Path:
    """A notebook at `path`: a Markdown cell, then `cells` as code cells (tags: by index in cells)."""
    book = v4.new_notebook(cells=[v4.new_markdown_cell("# my work")])
    for index, source in enumerate(cells):
        book.cells.append(v4.new_code_cell(source, metadata={"tags": (tags or {}).get(index, [])}))
    nbformat.write(book, path)
    return path


def program_of(*cells: str, tags: dict[int, list] | None = None, tmp: Path) -> Program:
    return read_notebook(notebook_of(list(cells), tmp / "work.ipynb", tags))


def run(*args):
    return subprocess.run([sys.executable, "validate.py", *map(str, args)], cwd=ROOT, capture_output=True,
                          text=True, timeout=300)


# ---------------------------------------------------------------- the conversion

def test_code_cells_in_order_make_the_program_and_each_line_knows_its_cell(tmp_path):
    program = program_of("import math\n", "def area(r):\n    return math.pi * r * r", tmp=tmp_path)
    assert program.source == "import math\ndef area(r):\n    return math.pi * r * r\n"
    # cell 1 is the Markdown one: the code cells are 2 and 3, numbered as the notebook shows them
    assert program.origins == [(Cell(2), 1), (Cell(3), 1), (Cell(3), 2)]
    assert program.where(3, "en") == "line 2 of cell 3"
    assert program.where(3, "zh") == "第 3 个单元格的第 2 行"
    assert program.left_out == []


def test_magics_shell_lines_and_help_become_pass_and_are_said(tmp_path):
    program = program_of("!pip install -q rich\n%matplotlib inline\nx = 1\nfiles = !ls\nlen?",
                         "def f():\n    %time g()\n    return 2", "%%time\ny = f()", tmp=tmp_path)
    assert program.source == "pass\npass\nx = 1\npass\npass\ndef f():\n    pass\n    return 2\n"
    assert [(cell.number, code) for cell, code in program.left_out] == [
        (2, "!pip install -q rich"), (2, "%matplotlib inline"), (2, "files = !ls"), (2, "len?"),
        (3, "%time g()"), (4, "%%time")]
    compile(program.source, "work.py", "exec")  # every other line keeps its meaning and number


def test_a_percent_or_bang_inside_a_statement_is_python(tmp_path):
    cell = 'PROMPT = """\n%s is the question\n!important\n"""\nx = (7\n% 3)\n'
    program = program_of(cell, tmp=tmp_path)
    assert program.source == cell and program.left_out == []


def test_cells_tagged_or_marked_to_skip_and_the_graders_own_are_left_out_unsaid(tmp_path):
    program = program_of("a = 1", "b = 2", "# reactlings: skip\nc = 3", "import reactlings\nreactlings.check('day06')",
                         "%load_ext reactlings\n%reactlings day06", "from reactlings import check as grade_me",
                         "grade_me('day06')", "d = 4",
                         tags={1: ["reactlings-skip"]}, tmp=tmp_path)
    assert program.source == "a = 1\nd = 4\n"
    assert program.left_out == []


def test_a_cell_that_awaits_at_top_level_is_left_out_and_said(tmp_path):
    program = program_of("async def f():\n    return 1", "await f()", "r = 2", tmp=tmp_path)
    assert program.source == "async def f():\n    return 1\nr = 2\n"
    assert program.left_out == [(Cell(3), "await f()")]


def test_a_cell_run_again_repeats_no_future_import(tmp_path):
    """Jupyter compiles cells apart; a file takes `from __future__` only at its start."""
    first = '"""My work."""\nfrom __future__ import annotations\nx: int = 1\n'
    program = from_history(["", first, "y = 2", first])
    assert program.source == first + "y = 2\n" + first.replace("from __future__ import annotations", "pass")
    assert [cell for cell, _ in program.origins][-1] == Cell(3, executed=True)
    compile(program.source, "work.py", "exec")


def test_a_traceback_cites_the_notebooks_cell_and_line(tmp_path):
    program = program_of("x = 1\n", "def f():\n    return 1 / 0\n", tmp=tmp_path)
    graded = Path("/tmp/reactlings-notebook-x/work.py")
    text = f'  File "{graded}", line 3, in f\n    return 1 / 0\n  File "{graded}", line 99, in g'
    assert program.cite(text, graded) == ('  File "work.ipynb", cell 3, line 2, in f\n    return 1 / 0\n'
                                          f'  File "{graded}", line 99, in g')  # no such line: as it was


@pytest.mark.parametrize("content, problem", [
    ("not json at all", "does not appear to be JSON"),
    ('{"cells": [], "metadata": {}, "nbformat": 4, "nbformat_minor": 5, "extra": 1}', "extra"),
    ('{"cells": 3, "metadata": {}, "nbformat": 4, "nbformat_minor": 5}', "cells must be array"),
    ('{"nbformat": 3, "nbformat_minor": 0, "metadata": {}, "worksheets": [{"cells": 1}]}', "must be array"),
    ("[1, 2]", "a notebook is a JSON object"),
    # nesting deeper than Python's recursion limit, hidden in metadata Jupyter never shows: once a
    # RecursionError, a traceback and no result (a red team's find); 900 levels broke nbformat alone
    ('{"cells": [], "metadata": ' + '{"a": ' * 100_000 + "1" + "}" * 100_000 + ', "nbformat": 4, "nbformat_minor": 5}',
     "nested more than 64 levels deep"),
    ('{"cells": [], "metadata": ' + '{"a": ' * 900 + "1" + "}" * 900 + ', "nbformat": 4, "nbformat_minor": 5}',
     "nested more than 64 levels deep"),
])
def test_a_file_that_is_no_notebook_is_a_clear_error_in_both_languages(tmp_path, content, problem):
    path = tmp_path / "work.ipynb"
    path.write_text(content, encoding="utf-8")
    for lang, said in (("en", "is not a notebook Jupyter can open"), ("zh", "不是 Jupyter 能打开的 notebook")):
        result = run("day06", "--file", path, "--lang", lang)
        assert result.returncode == 2 and said in result.stderr and problem in result.stderr, result.stderr
        assert "Traceback" not in result.stderr


# ---------------------------------------------------------------- graded as the .py

def report(result) -> str:
    # whole lines: a citation of a cell is longer than one of a line, and would wrap elsewhere
    console = Console(file=io.StringIO(), width=100, highlight=False, color_system=None, soft_wrap=True)
    print_report(result, "en", "validate.py", console=console)
    return console.file.getvalue()


def graded_notebook(lesson, path: Path):
    with notebooks.python_file(path) as (graded, notebook):
        result = grade(lesson, graded, 0, start_submission(lesson, graded, 0, notebook.file))
        result.notebook = notebook
    return result


def as_notebook(source: str, path: Path) -> tuple[Path, list[int]]:
    """The file's code as a notebook, cut before each top-level definition (Markdown first); the
    first line of each code cell in the file, for the citations the report must make of them."""
    cells = code_cells(source)
    assert "".join(cells) == source  # the notebook holds exactly the file's code
    starts = [sum(cell.count("\n") for cell in cells[:index]) + 1 for index in range(len(cells))]
    return notebook_of(cells, path), starts


def in_cells(text: str, starts: list[int], name: str) -> str:
    """A .py's report as the notebook's must read: each cited line as its cell's (the Markdown
    cell is cell 1, so code cell k is cell k + 2)."""
    def place(line: int) -> tuple[int, int]:
        index = max(i for i, start in enumerate(starts) if start <= line)
        return index + 2, line - starts[index] + 1

    def traceback_line(match):
        cell, line = place(int(match.group(1)))
        return f'File "{name}.ipynb", cell {cell}, line {line}'

    def message_line(match):
        cell, line = place(int(match.group(1)))
        return f"on line {line} of cell {cell}"
    text = re.sub(rf'File "{re.escape(name)}\.py", line (\d+)', traceback_line, text)
    return re.sub(r"on line (\d+)", message_line, text)


def holdable(path: Path) -> bool:
    """A file a notebook can hold: UTF-8 text (a notebook is JSON) without its own encoding line."""
    try:
        text = path.read_bytes().decode("utf-8")
    except UnicodeDecodeError:
        return False
    return not re.search(r"^#.*coding[:=]", "\n".join(text.splitlines()[:2]), re.MULTILINE)


def corpus(sample: bool) -> list:
    files = [p for p in sorted(CORPUS.glob("*/*.py")) if holdable(p)]
    if sample:  # a good file, a syntax error, a traceback, one that reads a file beside it at load
        names = {"day06/good_regex.py", "day06/bad_syntax_error.py", "day06/bad_unknown_tool_keyerror.py",
                 "day10/good_prices_read_at_import.py"}
        files = [p for p in files if f"{p.parent.name}/{p.name}" in names]
    return [pytest.param(p, id=f"{p.parent.name}/{p.name}") for p in files]


def same_grade_as_the_py(path: Path) -> None:
    """The file and a notebook of its code beside it (so its code's __file__ is the file's own, as a
    day10 file that reads the lesson's prices from there needs) get the same report."""
    lesson = load_lesson(path.parent.name)
    source = path.read_text(encoding="utf-8")
    notebook, starts = as_notebook(source, path.with_suffix(".ipynb"))
    try:
        as_py, as_ipynb = grade(lesson, path), graded_notebook(lesson, notebook)
    finally:
        notebook.unlink()
    py_tests, notebook_tests = gradescope(as_py, "en")["tests"], gradescope(as_ipynb, "en")["tests"]
    assert [(t["name"], t["score"]) for t in notebook_tests] == [(t["name"], t["score"]) for t in py_tests]
    if "racy" in read_header(path):  # its own threads race: what it printed differs from run to run
        return
    expected = in_cells(report(as_py), starts, path.stem).replace(
        f"file: {Path(path).relative_to(ROOT)}", "file: FILE")
    got = re.sub(r"file: \S+", "file: FILE", report(as_ipynb))
    assert got == expected


@pytest.mark.parametrize("path", corpus(sample=True))
def test_a_notebook_gets_the_report_of_the_same_code_as_a_py(path, monkeypatch):
    monkeypatch.chdir(ROOT)
    same_grade_as_the_py(path)


@pytest.mark.slow
@pytest.mark.parametrize("path", corpus(sample=False))
def test_every_corpus_file_as_a_notebook_gets_the_report_of_the_py(path, monkeypatch):
    monkeypatch.chdir(ROOT)
    same_grade_as_the_py(path)


def test_a_syntax_error_is_said_with_its_cell_and_a_pip_cell_is_left_out(tmp_path):
    path = notebook_of(["!pip install -q reactlings", "def f()\n    return 1"], tmp_path / "work.ipynb")
    result = run("day06", "--file", path)
    assert result.returncode == 1
    said = " ".join(result.stdout.split())  # as one line: the report wraps at 80 columns
    assert "your file has a syntax error on line 1 of cell 3" in said
    assert "left out, as only a notebook runs them: cell 2 (!pip install -q reactlings)" in said
    zh = "".join(run("day06", "--file", path, "--lang", "zh").stdout.split())
    assert "你的文件第3个单元格的第1行有语法错误" in zh and "第2个单元格（!pipinstall-qreactlings）" in zh


@pytest.mark.slow
def test_an_endless_loop_in_a_cell_is_stopped_and_cited(tmp_path):
    cells = code_cells(without_main((ROOT / "lessons" / "day06" / "day06.py").read_text(encoding="utf-8")))
    path = notebook_of([*cells, "n = 0\nwhile True:\n    n += 1"], tmp_path / "work.ipynb")
    result = run("day06", "--file", path)
    assert result.returncode == 1
    assert "never finished loading: an infinite loop or hang at module level" in result.stdout
    assert f'File "work.ipynb", cell {len(cells) + 2}, line 2, in <module>' in result.stdout


# ---------------------------------------------------------------- the release's notebooks

def release_notebook(name: str):
    lesson = load_lesson(name)
    readme = learners_readme((lesson.folder / "README.md").read_text(encoding="utf-8"))
    return lesson, lesson_notebook(lesson, readme, "https://github.com/example/course")


@pytest.mark.slow
@pytest.mark.parametrize("name", lesson_names())
def test_a_lessons_notebook_grades_as_its_template_and_with_the_solution_in_full(name, tmp_path, monkeypatch):
    monkeypatch.chdir(ROOT)
    lesson, book = release_notebook(name)
    path = tmp_path / f"{name}.ipynb"
    nbformat.write(book, path)
    template = grade(lesson, lesson.exercise)
    untouched = graded_notebook(lesson, path)
    assert [(c.name, c.passed) for c in untouched.checks] == [(c.name, c.passed) for c in template.checks]
    assert untouched.score == template.score == 0
    nbformat.write(solved(lesson, book), path)
    result = graded_notebook(lesson, path)
    assert result.score == result.max_score, report(result)


def solved(lesson, book):
    """The lesson's notebook with the learner's work done: each exercise cell as the solution has
    it (the template is the solution with its TODOs' code taken out, so the two files' top-level
    definitions match one to one)."""
    solution = code_cells(without_main(lesson.solution.read_text(encoding="utf-8")))
    exercise = [cell for cell in book.cells if cell.cell_type == "code" and not cell.metadata.get("tags")]
    assert len(exercise) == len(solution)
    for cell, code in zip(exercise, solution):
        cell.source = code
    return book


def test_a_lessons_notebook_teaches_each_todo_above_its_code():
    lesson, book = release_notebook("day06")
    sources = [cell.source for cell in book.cells]
    assert book.cells[1].metadata["tags"] == ["reactlings-skip"] and "git clone" in sources[1]
    assert "https://github.com/example/course" in sources[1]
    assert sources[-1].endswith('reactlings.check("day06")') and book.cells[-1].metadata["tags"] == ["reactlings-skip"]
    for todo in lesson.todos:
        code = next(i for i, s in enumerate(sources) if book.cells[i].cell_type == "code"
                    and re.search(rf"^(async )?def {todo.function}\(", s, re.M))
        assert book.cells[code - 1].cell_type == "markdown" and f"`{todo.function}`" in sources[code - 1]
    assert not any("__main__" in s for s in sources)  # a terminal's try-out: a notebook would run it at once
    nbformat.validate(book)


def test_release_writes_the_notebooks_and_colab_badges(tmp_path):
    out = tmp_path / "course"
    assert run("release", "--out", out, "--notebooks").returncode == 2  # where from, it must be told
    result = run("release", "--out", out, "--notebooks", "--repo", "https://github.com/example/course")
    assert result.returncode == 0, result.stderr
    assert sorted(p.stem for p in (out / "notebooks").glob("*.ipynb")) == lesson_names()
    readme = (out / "README.md").read_text(encoding="utf-8")
    assert ("https://colab.research.google.com/github/example/course/blob/main/notebooks/day06.ipynb"
            in readme)
    assert "<!-- notebooks -->" not in readme
    assert (out / "reactlings" / "__init__.py").is_file()


# ---------------------------------------------------------------- inside a real Jupyter kernel

def executed(cells) -> list[str]:
    """Run the cells (code, or a whole notebook) in a fresh Jupyter kernel started in the kit (so
    `reactlings` is this one); the text of each code cell's outputs."""
    nbclient = pytest.importorskip("nbclient", reason="the test extra: pip install -e '.[test]'")
    book = cells if isinstance(cells, nbformat.NotebookNode) else \
        v4.new_notebook(cells=[v4.new_code_cell(source) for source in cells])
    nbclient.NotebookClient(book, timeout=240, kernel_name="python3",
                            resources={"metadata": {"path": str(ROOT)}}).execute()
    return ["".join(out.get("text", "") or out.get("data", {}).get("text/plain", "") for out in cell.outputs)
            for cell in book.cells if cell.cell_type == "code"]


@pytest.mark.slow
def test_check_in_a_kernel_grades_the_cells_that_ran():
    solved = code_cells(without_main(SOLUTION))
    outputs = executed([*solved, "import reactlings\nreactlings.check('day06')"])
    assert "26/26 · every check passes" in outputs[-1] and "file: this notebook" in outputs[-1]


@pytest.mark.slow
def test_the_magic_in_a_kernel_shows_the_failing_todo_with_its_cell():
    buggy = code_cells(without_main((CORPUS / "day06" / "bad_unknown_tool_keyerror.py").read_text(encoding="utf-8")))
    outputs = executed(["%load_ext reactlings", *buggy, "%reactlings day06"])
    assert "first to fix: TODO 1.3" in outputs[-1]
    assert re.search(r'File "this notebook", In \[\d+\], line 3, in execute_tool', outputs[-1]), outputs[-1]


@pytest.mark.slow
def test_a_lessons_notebook_run_as_a_learner_runs_it_grades_itself():
    """Run all, as given (its setup cell finds the course installed: no clone), then with the work done."""
    lesson, book = release_notebook("day06")
    untouched = executed(book)[-1]
    assert "0/26 · first to fix: TODO 1.2" in untouched and "not implemented yet (TODO 1.2)" in untouched
    assert "26/26 · every check passes" in executed(solved(lesson, book))[-1]
