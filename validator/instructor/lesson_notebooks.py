"""A lesson as a Jupyter notebook, for `validate.py release --notebooks`: the lesson's README as
Markdown cells, its exercise file as code cells (one per top-level definition, each TODO's under
the README's section on it), a first cell that installs the course and a last one that grades.

Graded by `validate.py dayNN --file dayNN.ipynb` or by its own last cell, the notebook is the
exercise file: its code cells, joined, are the template's code (its `if __name__ == "__main__":`
part aside, which a notebook runs as soon as it is reached: a try-out for a terminal).

The setup cell clones the course and installs it editable (`pip install -e`), not
`pip install git+URL`: the lessons are files of the course's repository, which an installed
package would not hold.
"""
from __future__ import annotations

import ast
import re

from validator.grading.notebooks import SKIP_TAG
from validator.lessons import Lesson

COLAB = "https://colab.research.google.com/github/{repo}/blob/{branch}/notebooks/{name}.ipynb"
BADGE = "[![Open in Colab](https://colab.research.google.com/assets/colab-badge.svg)]({url})"
BRANCH = "main"  # the branch of the course's repository that Colab opens

# Where the course is cloned in a kernel without it (Colab), next to the notebook.
SETUP = '''# Setup, run first: the course and its grader ({repo}). The grading leaves this cell out.
import os
import sys

try:
    import reactlings
except ImportError:  # Colab, or a Jupyter without the course: clone it next to this notebook
    if not os.path.isdir("reactlings-course"):
        !git clone --quiet --depth 1 {repo} reactlings-course
    %pip install --quiet -e reactlings-course
    sys.path.insert(0, os.path.abspath("reactlings-course"))  # a running kernel sees new installs only so
    import reactlings

# The exercise finds the lesson's files from where your copy would be in the course: workspace/
__file__ = os.path.join(os.path.dirname(os.path.dirname(reactlings.__file__)), "workspace", "{exercise}")'''

HOW = """> **In this notebook**: run the setup cell below first. The code cells are the exercise: fill in
> each TODO and run its cell; the last cell grades every cell you have run, as
> `python validate.py {name}` grades the file. Cells that only a notebook runs (`!pip`, `%magics`)
> or that start with `# reactlings: skip` are left out of the grading."""

CHECK = '''# Grade the cells you have run (In [...]), with the course's grader: run this cell after yours.
import reactlings
reactlings.check("{name}")'''


def code_cells(source: str) -> list[str]:
    """A Python file cut before each top-level definition (a def or a class, its decorators and
    the comments right above it): the cells that, joined, are the file again."""
    lines = re.findall(r"[^\n]*\n|[^\n]+$", source)  # cut at newlines only, as Python counts lines
    try:
        heads = [min([node.lineno] + [d.lineno for d in node.decorator_list]) - 1 for node in ast.parse(source).body
                 if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef))]
    except SyntaxError:  # a learner's file that does not parse: its definitions by their first words
        heads = [n for n, line in enumerate(lines) if re.match(r"(async def|def|class|@)\b", line)
                 and not (n and lines[n - 1].startswith("@"))]
    starts = []
    for start in heads:
        while start > 0 and (lines[start - 1].startswith("#") or not lines[start - 1].strip()):
            start -= 1  # the comments above it, and the blank lines among them
        while start < len(lines) and not lines[start].strip():
            start += 1  # but not the blank lines right after the code before
        starts.append(start)
    bounds = [0, *[s for s in starts if s > 0], len(lines)]
    return ["".join(lines[a:b]) for a, b in zip(bounds, bounds[1:]) if a < b]


def sections(readme: str) -> list[str]:
    """Markdown cut before each heading (`#`, `##`, `###` lines outside code blocks)."""
    parts, fenced = [[]], False
    for line in readme.splitlines(keepends=True):
        if line.startswith("```"):
            fenced = not fenced
        if not fenced and re.match(r"#{1,3} ", line) and any(text.strip() for text in parts[-1]):
            parts.append([])
        parts[-1].append(line)
    return ["".join(part).strip("\n") for part in parts if "".join(part).strip()]


def without_main(source: str) -> str:
    """The file without its `if __name__ == "__main__":` part."""
    for node in ast.parse(source).body:
        if isinstance(node, ast.If) and "__main__" in ast.unparse(node.test):
            lines = source.splitlines(keepends=True)
            return "".join(lines[:node.lineno - 1]).rstrip("\n") + "\n"
    return source


def lesson_notebook(lesson: Lesson, readme: str, repo: str):
    """The lesson's notebook (an nbformat NotebookNode). `readme`: the lesson's README as learners
    read it; `repo`: the git URL of the course, which the setup cell clones where it is missing."""
    import nbformat.v4 as v4

    code = code_cells(without_main(lesson.exercise.read_text(encoding="utf-8")))
    texts = sections(readme)
    functions = {todo.function for todo in lesson.todos}

    def about(text: str) -> str | None:  # the TODO function a README section's heading names
        heading = text.splitlines()[0]
        return next((f for f in functions if heading.startswith("#") and f"`{f}`" in heading), None)

    todo_sections = [i for i, text in enumerate(texts) if about(text)]
    first, last = (todo_sections[0], todo_sections[-1]) if todo_sections else (len(texts), len(texts) - 1)
    cells = [v4.new_markdown_cell(texts[0] + "\n\n" + HOW.format(name=lesson.name)),
             v4.new_code_cell(SETUP.format(repo=repo, exercise=lesson.exercise.name), metadata={"tags": [SKIP_TAG]})]
    cells += [v4.new_markdown_cell(text) for text in texts[1:first]]
    explained: dict[str, list[str]] = {}  # function -> the README's sections on it, and those before them
    waiting = []
    for text in texts[first:last + 1]:
        waiting.append(text)
        if about(text):
            explained.setdefault(about(text), []).extend(waiting)
            waiting = []
    for chunk in code:
        defined = {node.name for node in ast.parse(chunk).body if hasattr(node, "name")}
        for function in sorted(defined & set(explained)):
            cells += [v4.new_markdown_cell(text) for text in explained.pop(function)]
        cells.append(v4.new_code_cell(chunk.rstrip("\n")))
    cells += [v4.new_markdown_cell(text) for rest in explained.values() for text in rest]
    cells += [v4.new_markdown_cell(text) for text in waiting + texts[last + 1:]]
    cells.append(v4.new_code_cell(CHECK.format(name=lesson.name), metadata={"tags": [SKIP_TAG]}))
    notebook = v4.new_notebook(cells=cells)
    notebook.metadata.update(kernelspec={"name": "python3", "display_name": "Python 3", "language": "python"},
                             language_info={"name": "python"})
    return notebook


def colab_link(repo: str, name: str) -> str | None:
    """The Colab badge of lesson `name`'s notebook, for a course on GitHub; None elsewhere."""
    found = re.match(r"https://github\.com/([\w.-]+/[\w.-]+?)(?:\.git)?/?$", repo)
    return BADGE.format(url=COLAB.format(repo=found.group(1), branch=BRANCH, name=name)) if found else None
