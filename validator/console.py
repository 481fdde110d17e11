"""Where a command's notes and errors go, and paths as the learner would type them."""
from __future__ import annotations

import os
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:  # rich is imported when a note is said: a one-shot grading starts without it
    from rich.console import Console


def stderr() -> Console:
    """For notes and errors: whole lines (a log, a grep), never mixed into a report on stdout."""
    from rich.console import Console

    return Console(stderr=True, highlight=False, soft_wrap=True)


def shown_path(path: Path) -> str:
    """Relative to here, as the learner would type it; whole where it can't be (another drive on Windows)."""
    try:
        return os.path.relpath(path)
    except ValueError:
        return str(path)
