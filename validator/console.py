"""Where a command's notes and errors go, and paths as the learner would type them."""
from __future__ import annotations

import os
import shlex
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:  # rich is imported when a note is said: a one-shot grading starts without it
    from rich.console import Console


def stderr() -> Console:
    """For notes and errors: whole lines (a log, a grep), never mixed into a report on stdout."""
    from rich.console import Console

    return Console(stderr=True, highlight=False, soft_wrap=True)


def kit_command() -> str:
    """`python validate.py` as the learner types it here: in another folder, the path to the kit's
    script (what the kit tells a learner to run next must run where they are)."""
    from validator.files import ROOT
    return "python " + shlex.quote(shown_path(ROOT / "validate.py"))


def shown_path(path: Path) -> str:
    """Relative to here, as the learner would type it; whole where it can't be (another drive on Windows)."""
    try:
        return os.path.relpath(path)
    except ValueError:
        return str(path)
