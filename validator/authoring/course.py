"""What the order of the lessons decides, generated rather than kept by hand: each lesson README's
navigation line (the lessons before and after it) and the root README's course table (a row per
lesson, from its lesson.yaml `course:`). `validate.py check-lesson --fix` writes both.

The course is the lesson folders beside each other (lessons/, or any folder of lessons), in the
order of their names; only the kit's own lessons/ has the root README's table.
"""
from __future__ import annotations

import re
from pathlib import Path

from validator.files import LESSONS_DIR, ROOT, read_yaml
from validator.lessons import LANGS

from .texts import READMES, lesson_data

NAVIGATION = "<!-- lesson navigation -->"  # the line above each README's navigation line
COURSE_LINK = {"en": "the course", "zh": "课程总览"}
TABLE_HEAD = "| lesson | what you write | protocol | audit |\n|---|---|---|---|\n"  # the table runs to its last | line
PROTOCOL_SHOWN = {"text_chat": "text over chat"}  # the table's words for a protocol, where not its name
FIX = "python validate.py check-lesson --fix"


def course_of(folder: Path) -> list[Path]:
    """The lessons of the course `folder` belongs to, in order: its sibling lesson folders."""
    return sorted(p.parent for p in folder.parent.glob("*/lesson.yaml"))


def kit_lessons() -> list[Path]:
    return sorted(p.parent for p in LESSONS_DIR.glob("*/lesson.yaml"))


def in_kit(folder: Path) -> bool:
    return folder.parent.resolve() == LESSONS_DIR.resolve()


def navigation_line(folder: Path, lang: str) -> str:
    """← the lesson before · the course · the lesson after →, each link to the README in `lang`."""
    names = [p.name for p in course_of(folder)]
    at, readme = names.index(folder.name), READMES[lang]
    links = [f"[{COURSE_LINK[lang]}](../../README.md)"]
    if at > 0:
        links.insert(0, f"← [{names[at - 1]}](../{names[at - 1]}/{readme})")
    if at + 1 < len(names):
        links.append(f"[{names[at + 1]}](../{names[at + 1]}/{readme}) →")
    return " · ".join(links)


def with_navigation(text: str, line: str) -> str:
    """The README's text with `line` under its navigation marker (both added at the end if it has none)."""
    lines = text.splitlines(keepends=True)
    marker = next((n for n, old in enumerate(lines) if old.rstrip("\n") == NAVIGATION), None)
    if marker is None:
        return text.rstrip("\n") + f"\n\n{NAVIGATION}\n{line}\n"
    lines[marker:marker + 2] = [NAVIGATION + "\n", line + "\n"]
    return "".join(lines)


def navigation_problems(folder: Path, lang: str) -> list[str]:
    path = folder / READMES[lang]
    if not path.is_file():
        return [f"{folder.name}/{READMES[lang]} is missing"]
    text = path.read_text(encoding="utf-8")
    if with_navigation(text, navigation_line(folder, lang)) != text:
        return [f"{folder.name}/{READMES[lang]}: its navigation line is not `{navigation_line(folder, lang)}`"]
    return []


# ---------------------------------------------------------------- the root README's course table

def table_row(folder: Path) -> str:
    data = lesson_data(folder)
    course = data.get("course") or {}
    protocol = str(read_yaml(folder / "scenarios.yaml").get("protocol", ""))
    shown = course.get("protocol", PROTOCOL_SHOWN.get(protocol, protocol))
    return f"| {folder.name} | {course.get('writes', data['title']['en'])} | {shown} | {audit_cell(course)} |"


def audit_cell(course: dict) -> str:
    """"97.5 % (78/80)" from lesson.yaml's `audit: 78/80` (what check-lesson --audit --fix wrote)."""
    found = re.fullmatch(r"(\d+)/(\d+)", str(course.get("audit", "")))
    if not found or not int(found[2]):
        return "not measured"
    killed, counted = int(found[1]), int(found[2])
    return f"{100 * killed / counted:.1f} % ({killed}/{counted})"


def course_table() -> str:
    return TABLE_HEAD + "".join(table_row(folder) + "\n" for folder in kit_lessons())


def with_table(text: str) -> str:
    """The root README with its course table generated: the lines from its head to the last `|` line."""
    start = text.find(TABLE_HEAD)
    if start < 0:
        raise ValueError(f"README.md has no course table starting `{TABLE_HEAD.splitlines()[0]}`")
    end = start + len(TABLE_HEAD)
    while text.startswith("|", end):
        end = text.index("\n", end) + 1 if "\n" in text[end:] else len(text)
    return text[:start] + course_table() + text[end:]


def table_problems() -> list[str]:
    text = (ROOT / "README.md").read_text(encoding="utf-8")
    try:
        wanted = with_table(text)
    except ValueError as error:
        return [str(error)]
    if wanted == text:
        return []
    rows = set(wanted.splitlines()) - set(text.splitlines())
    return ["README.md's course table is not the one the lessons' lesson.yaml give; rows that should read: "
            + "; ".join(sorted(line for line in rows if line.startswith("|")))]


def fix_course(folder: Path) -> list[Path]:
    """Write the navigation lines of every lesson of `folder`'s course, and the root README's
    table when it is the kit's: the files changed."""
    written = []
    for lesson in course_of(folder):
        for lang in LANGS:
            path = lesson / READMES[lang]
            if path.is_file():
                text = path.read_text(encoding="utf-8")
                written += _written(path, text, with_navigation(text, navigation_line(lesson, lang)))
    if in_kit(folder):
        readme = ROOT / "README.md"
        text = readme.read_text(encoding="utf-8")
        written += _written(readme, text, with_table(text))
    return written


def _written(path: Path, old: str, new: str) -> list[Path]:
    if new == old:
        return []
    path.write_text(new, encoding="utf-8")
    return [path]
