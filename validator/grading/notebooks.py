"""Notebooks: a Jupyter notebook's code, graded exactly as the same code in a .py file.

The code cells, in order, make one Python file, which is graded as any other. Left out is what
only a notebook can run: IPython magics (`%time …`, a `%%capture` cell), shell lines
(`!pip install …`), help (`len?`), a cell with a top-level `await`; and, said nowhere, the cells
the learner or the course leaves out on purpose: tagged `reactlings-skip` or starting with the
comment `# reactlings: skip` (Colab can't tag cells), and the cells that call the grader
(`import reactlings`, `reactlings.check(…)`). A left-out line becomes `pass` at its indentation,
so every other line keeps its meaning and its number in its cell: a report cites "cell 4, line 2".
What is left runs as a .py runs: a cell that tries the agent out, or loops, is module-level code.
"""
from __future__ import annotations

import ast
import io
import json
import re
import tempfile
import tokenize
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path

from validator.child.wire import loads
from validator.lessons import LessonError, say

SUFFIX = ".ipynb"
SKIP_TAG = "reactlings-skip"
SKIP_COMMENT = "# reactlings: skip"
GRADER = "reactlings"  # the package a cell imports to grade the notebook from inside it

# A line IPython reads as no Python: a magic or a shell command (maybe assigned: `files = !ls`),
# or help (`?len`, `len?`, `len??`). Only where a statement starts: `% 7` inside a bracket or a
# string is Python.
NOTEBOOK_ONLY = re.compile(r"\s*(?:[\w.]+(?:\s*,\s*[\w.]+)*\s*=\s*)?[!%]|\s*\?|\s*[\w.]+\?\??\s*$")
GRADER_MAGIC = re.compile(rf"%(?:load_ext\s+)?{GRADER}\b")
# (?!\s\s), (?!(?<=\s)\s): the names never start or end between two spaces, which changes no match
# and keeps a line of spaces from being split every way
FUTURE = re.compile(r"from\s+__future__\s+import\s+(?!\s\s)([\w\s,()]+?)(?!(?<=\s)\s)\s*(?:#.*)?$")


@dataclass(frozen=True)
class Cell:
    """A cell as the learner finds it: its number among the notebook's cells, Markdown ones too
    ("cell 4"), or, for the cells run in this kernel, the execution count Jupyter shows ("In [7]")."""
    number: int
    executed: bool = False

    def said(self, lang: str) -> str:
        return say("notebook_in" if self.executed else "notebook_cell", lang, number=self.number)


@dataclass
class Program:
    """The Python a notebook's code cells make, and where each of its lines came from."""
    name: str  # the notebook as a report names it
    path: Path | None = None  # its file; None for the cells run in this kernel
    file: str | None = None  # the code's __file__: the .py it would be beside the notebook, or the kernel's
    source: str = ""
    origins: list[tuple[Cell, int]] = field(default_factory=list)  # line N of source: (its cell, its line there)
    left_out: list[tuple[Cell, str]] = field(default_factory=list)  # notebook-only code: its cell, its first line
    grader_names: set[str] = field(default_factory=lambda: {GRADER})  # the names the notebook has for the grader

    def place(self, line: object) -> tuple[Cell, int] | None:
        if isinstance(line, int) and 1 <= line <= len(self.origins):
            return self.origins[line - 1]
        return None

    def where(self, line: object, lang: str) -> str | None:
        """A line of the program as the learner finds it in the notebook ("line 2 of cell 4")."""
        found = self.place(line)
        return found and say("notebook_where", lang, cell=found[0].said(lang), line=found[1])

    def cite(self, text: str, graded: Path) -> str:
        """A traceback of the graded file, `File "…/work.py", line 12`, as one of the notebook's,
        `File "work.ipynb", cell 4, line 2`."""
        def notebook_line(match: re.Match) -> str:
            found = self.place(int(match.group(1)))
            return f'File "{self.name}", {found[0].said("en")}, line {found[1]}' if found else match.group()
        return re.sub(rf'File "{re.escape(str(graded))}", line (\d+)', notebook_line, text)

    def add(self, cell: Cell, code: str, tags: list | tuple = ()) -> None:
        """A cell's code, appended if a .py could hold it; what only a notebook runs, left out."""
        lines = re.sub(r"\r\n?", "\n", code).split("\n")  # Python's own line breaks, no others
        if lines[-1] == "":
            lines.pop()
        first = next((line.strip() for line in lines if line.strip()), "")
        if not first or SKIP_TAG in tags or first.startswith(SKIP_COMMENT):
            return
        if first.startswith("%%"):  # a cell magic: the whole cell is the magic's
            self._leave_out(cell, first)
            return
        magics = []  # the lines only a notebook runs
        for number, line in enumerate(lines):
            if NOTEBOOK_ONLY.match(line) and not _continues(lines[:number]):
                magics.append(line.strip())
                lines[number] = line[:len(line) - len(line.lstrip())] + "pass"  # its indentation kept
        kept = "\n".join(lines) + "\n"
        if self._calls_grader(kept) or any(GRADER_MAGIC.match(line) for line in magics):
            return  # the grader's cell (%load_ext reactlings, %reactlings day06 too)
        if _awaits_at_top(kept):
            self._leave_out(cell, first)
            return
        for line in magics:
            self._leave_out(cell, line)
        start = len(self.origins)
        self.source += kept
        self.origins += [(cell, number) for number in range(1, len(lines) + 1)]
        self._enabled_futures(start)

    def _calls_grader(self, code: str) -> bool:
        """Whether the cell imports the grader or uses a name it has for it (`reactlings.check`, or
        `check` after `from reactlings import check`): it grades the notebook, and the graded
        child has no grader to run. The names it binds to the grader's are remembered."""
        try:
            tree = ast.parse(code)
        except (SyntaxError, ValueError, RecursionError, MemoryError):
            return False
        found = False
        for node in ast.walk(tree):
            if isinstance(node, (ast.Import, ast.ImportFrom)):
                module = getattr(node, "module", None) or ""
                for alias in node.names:
                    if GRADER in (module.split(".")[0], alias.name.split(".")[0]):
                        found = True
                        self.grader_names.add((alias.asname or alias.name).split(".")[0])
            found = found or isinstance(node, ast.Name) and node.id in self.grader_names
        return found

    def _leave_out(self, cell: Cell, code: str) -> None:
        self.left_out.append((cell, code if len(code) <= 60 else code[:57] + "…"))

    def _enabled_futures(self, start: int) -> None:
        """Jupyter compiles each cell apart, so a cell run again may repeat `from __future__ import
        annotations` after other code, which a file refuses: the repetition, which changes nothing
        (the feature is on already), becomes `pass`."""
        lines = re.findall(r"[^\n]*\n", self.source)  # as origins counts them
        earlier = {name for line in lines[:start] for name in _futures(line)}
        for number in range(start, len(lines)):
            names = _futures(lines[number])
            if names and names <= earlier:
                lines[number] = "pass\n"
        self.source = "".join(lines)


def _futures(line: str) -> set[str]:
    match = FUTURE.match(line)
    return {name.strip() for name in match.group(1).strip("()").split(",")} if match else set()


def _continues(before: list[str]) -> bool:
    """Whether a line after `before` continues their last statement: inside a bracket or a string,
    or after a backslash."""
    try:
        for _ in tokenize.generate_tokens(io.StringIO("\n".join(before) + "\n").readline):
            pass
    except tokenize.TokenError:  # "EOF in multi-line string/statement"
        return True
    except SyntaxError:  # a bad indent or character: not Python the line could continue
        return False
    return False




def _awaits_at_top(code: str) -> bool:
    """Whether the cell awaits outside any function, as Jupyter allows and a .py file does not."""
    try:
        compile(code, "<cell>", "exec", dont_inherit=True)
        return False
    except (SyntaxError, ValueError):
        pass
    try:
        compile(code, "<cell>", "exec", flags=ast.PyCF_ALLOW_TOP_LEVEL_AWAIT, dont_inherit=True)
        return True
    except (SyntaxError, ValueError):  # a syntax error: graded as a .py's, said with its cell
        return False


def is_notebook(path: Path) -> bool:
    return Path(path).suffix.lower() == SUFFIX


NESTING = 64  # levels of arrays and objects a notebook may nest (Jupyter's own are a few deep)


def read_notebook(path: Path) -> Program:
    """The program of the notebook at `path`; a LessonError if it is none Jupyter could open."""
    import nbformat  # only for notebooks: grading a .py does without it

    try:  # checked against the schema of its own format version, as saved, then read as version 4
        text = Path(path).read_text(encoding="utf-8")
        try:
            data = loads(text, depth=NESTING)  # bounded: nbformat's readers recurse a level a bracket
        except json.JSONDecodeError:  # no JSON at all: nbformat's reader says so in its words
            data = nbformat.reader.parse_json(text)
        if not isinstance(data, dict):
            raise ValueError("a notebook is a JSON object, with its cells")
        schema = nbformat.validator.get_validator(*nbformat.reader.get_version(data))
        problem = next(iter(schema.iter_errors(data)), None) if schema else None
        if problem is not None:
            raise ValueError(problem.message)
        notebook = nbformat.reads(text, as_version=4)
    except (ValueError, KeyError, TypeError, AttributeError) as error:  # not UTF-8, not JSON, no notebook's shape
        raise LessonError("notebook_invalid", path=path, problem=str(error).splitlines()[0][:200]) from None
    program = Program(Path(path).name, Path(path), str(Path(path).resolve().with_suffix(".py")))
    for number, cell in enumerate(notebook.cells, start=1):
        if cell.cell_type == "code":
            program.add(Cell(number), cell.source, cell.get("metadata", {}).get("tags", ()))
    return program


def from_history(inputs: list[str], file: object = None) -> Program:
    """The program of the cells run in this kernel, in the order they ran, each as typed: IPython's
    history (`In`), where input N is the cell shown as In [N]. `file`: the kernel's __file__, if it
    has one (a lesson notebook's setup cell gives it one), for the code to see as its own."""
    program = Program("this notebook", file=file if isinstance(file, str) else None)
    for number, code in enumerate(inputs):
        program.add(Cell(number, executed=True), code or "")
    return program


@contextmanager
def written(program: Program, stem: str) -> Iterator[Path]:
    """The program as `stem`.py in a folder of its own, removed afterwards."""
    with tempfile.TemporaryDirectory(prefix="reactlings-notebook-") as folder:
        path = Path(folder) / f"{stem}.py"
        path.write_text(program.source, encoding="utf-8")
        yield path


@contextmanager
def python_file(path: Path) -> Iterator[tuple[Path, Program | None]]:
    """The .py file to grade for `path`, and the notebook's program if it is a notebook (written
    to a temporary .py for the grading)."""
    if not is_notebook(path):
        yield path, None
        return
    program = read_notebook(path)
    with written(program, Path(path).stem) as graded:
        yield graded, program
