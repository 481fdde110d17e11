"""`python validate.py new dayNN --protocol NAME`: a new lesson that already grades.

One tool (km_to_miles), two scenarios (convert, endless), one TODO (1.1, the agent loop) and the
four checks that kill every mutant of its solution (`validate.py audit`), in the protocol asked
for: lesson.yaml, scenarios.yaml, tools.py, checks.py, README.md, README.zh.md, the reference
solution (solutions/dayNN.py, or solution.py in a lesson folder outside the kit's lessons/) and the
exercise file made from it. `check-lesson` passes on it at once, but for the
corpus (README: "Adding a lesson"); the author then makes it their lesson.
"""
from __future__ import annotations

import re
from pathlib import Path
from string import Template

from mock_llm import protocol
from validator.authoring.templates import stale
from validator.files import LESSONS_DIR, SOLUTIONS_DIR
from validator.lessons import LessonError, load_lesson

from . import course
from .scaffolds import FILES, HISTORY, SOLUTIONS

NAME = re.compile(r"day\d\d(?:_[a-z0-9]+)*")  # sorts into the course; a Python module name too


def new_lesson(given: str, protocol_name: str) -> list[Path]:
    """Write the lesson (a name, made in lessons/; or the path of a new folder): the files written."""
    folder = LESSONS_DIR / given if "/" not in given and "\\" not in given else Path(given)
    folder = folder.resolve()
    if not NAME.fullmatch(folder.name):
        raise LessonError(f"{folder.name!r} is not a lesson name: dayNN, two digits, then optionally _words "
                          f"in lower case (day13, day13_memory); the names' order is the course's")
    protocol(protocol_name)  # an unknown name: the error lists the known ones
    if folder.exists():
        raise LessonError(f"{folder} exists already: `new` never writes over an author's files")
    in_kit = folder.parent == LESSONS_DIR.resolve()
    solution = SOLUTIONS_DIR / f"{folder.name}.py" if in_kit else folder / "solution.py"
    if solution.exists():
        raise LessonError(f"{solution} exists already: `new` never writes over an author's files")
    fill = _filler(folder.name, protocol_name, in_kit)
    folder.mkdir(parents=True)
    for name, text in FILES.items():
        (folder / name).write_text(fill(text), encoding="utf-8")
    solution.write_text(fill(SOLUTIONS[protocol_name]), encoding="utf-8")
    lesson = load_lesson(str(folder))
    lesson.exercise.write_text(stale(lesson), encoding="utf-8")
    written = [folder / name for name in FILES] + [solution, lesson.exercise] + course.fix_course(folder)
    return list(dict.fromkeys(written))


def _filler(name: str, protocol_name: str, in_kit: bool):
    text_protocol = protocol_name in ("text", "text_chat")
    values = {
        "name": name, "protocol": protocol_name,
        "solution_line": "" if in_kit else "solution: solution.py      # the reference solution, beside the lesson\n",
        "model_function": {"decisions": "llm", "json": "llm", "text": "llm_call"}.get(protocol_name, ""),
    }
    # the text protocols' tools take the Action Input's text; the others their arguments by name
    call = ('{tool: km_to_miles, input: "{KM}", thought: "I convert {KM} km to miles."}' if text_protocol else
            '{tool: km_to_miles, args: {km: "{KM}"}, thought: "I convert {KM} km to miles."}')
    # the endless task asks for {n} km, the call count: the text mock finds a repeated call's
    # Observation in the prompt and reads on, so each call must differ
    values.update(call=call.replace("KM", "km"), endless_call=call.replace("KM", "n"))
    history = HISTORY[protocol_name]
    values.update(history_en=history["en"], history_zh=history["zh"], history=history["body"],
                  helper=history.get("helper", ""), history_message=history["message"],
                  imports=", ".join(sorted(["check", "expect", "expect_own_fallback", "registry_arg", "shown",
                                            *history.get("imports", [])])))
    values["model_line"] = (f"model_function: {values['model_function']}   # the exercise's function that calls the "
                            f"model: graded runs answer it\n") if values["model_function"] else ""
    return lambda text: Template(text).substitute(values)

