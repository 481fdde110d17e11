"""The kit's folders, and its files read and written whole: one home for both.

The mock uses this module too (its scenarios.yaml files), and nothing else of validator but the
child's wire, so it imports only PyYAML."""
from __future__ import annotations

import os
from pathlib import Path

import yaml

ROOT = Path(__file__).resolve().parent.parent
LESSONS_DIR = ROOT / "lessons"
SOLUTIONS_DIR = ROOT / "solutions"


def read_yaml(path: Path):
    """A YAML file's data, with libyaml's fast safe loader when PyYAML was built with it."""
    return yaml.load(path.read_text(encoding="utf-8"), Loader=getattr(yaml, "CSafeLoader", yaml.SafeLoader))


def write_atomically(path: Path, text: str | bytes) -> None:
    """Write the whole text (UTF-8) or bytes beside `path`, then rename it into place: a reader (or
    a run stopped half-way) never sees half a file."""
    partial = path.with_name(f".{path.name}.{os.getpid()}.partial")
    try:
        partial.write_bytes(text) if isinstance(text, bytes) else partial.write_text(text, encoding="utf-8")
        os.replace(partial, path)
    except OSError as error:  # named by the file asked for, not the temporary one
        raise OSError(error.errno, error.strerror, str(path)) from None
    finally:
        if partial.parent.is_dir():
            partial.unlink(missing_ok=True)
