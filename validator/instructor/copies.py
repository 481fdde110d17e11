"""Submissions that look alike: the same code as another student's (comments, blank lines and
names aside), or the lesson's template handed in unchanged. Flags for a person to look at, never
a grade.
"""
from __future__ import annotations

from validator.instructor.gradebooks import by_name
from validator.instructor.submissions import Entry, shape_of
from validator.lessons import Lesson, say


def look_at(entries: list[Entry], records: dict[str, dict], lesson: Lesson,
            lang: str) -> tuple[dict[str, list[str]], dict[str, list[str]], list[tuple[list[str], str]]]:
    """Reasons to look at submissions by hand, per student's folder: flags (work that may not be
    the student's own: copies of each other or of the reference, the solution markers) and notes
    (an untouched template, which of several files was graded); and the lot as (folders, reason)
    lines for the terminal, where a reason several students share, such as a group of copies,
    shows once. Untouched templates are nobody's copies."""
    template = shape_of(lesson.exercise)
    reference = shape_of(lesson.solution) if lesson.solution.is_file() else None
    flagged: dict[str, list[str]] = {}
    noted: dict[str, list[str]] = {}
    shared: dict[str, list[str]] = {}  # reason -> folders
    copies: dict[str, list[str]] = {}  # shape -> folders
    for entry in sorted(entries, key=lambda e: by_name(records[e.folder])):  # each line's names in that order
        record = records[entry.folder]
        shape = record.get("shape")
        flags = [say("class_flag_reference", lang)] if shape and shape == reference else []
        flags += [say("class_flag_markers", lang)] if record.get("markers") else []
        notes = [say("class_flag_template", lang)] if shape == template and not record.get("score") else []
        # the template's code, yet points: what scores is hidden from the fingerprint (run from a string)
        flags += [say("class_flag_template_scores", lang)] if shape == template and record.get("score") else []
        flags += entry.flags
        notes += entry.notes
        for reasons, kept in ((flags, flagged), (notes, noted)):
            for reason in reasons:
                kept.setdefault(entry.folder, []).append(reason)
                shared.setdefault(reason, []).append(entry.folder)
        if shape and shape != template:
            copies.setdefault(shape, []).append(entry.folder)
    lines = [(folders, reason) for reason, folders in shared.items()]
    for group in (g for g in copies.values() if len(g) > 1):
        for folder in group:
            others = ", ".join(records[f]["student"] for f in group if f != folder)
            flagged.setdefault(folder, []).append(say("class_flag_copy", lang, others=others))
        lines.append((group, say("class_flag_copies", lang)))
    return flagged, noted, sorted(lines, key=lambda line: ([by_name(records[f]) for f in line[0]], line[1]))
