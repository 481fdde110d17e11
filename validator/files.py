"""The kit's folders, and its files read and written whole: one home for both.

The mock uses this module too (its scenarios.yaml files), and nothing else of validator but the
child's wire, so it imports only PyYAML."""
from __future__ import annotations

import os
import pickle
from pathlib import Path

import yaml

ROOT = Path(__file__).resolve().parent.parent
LESSONS_DIR = ROOT / "lessons"
SOLUTIONS_DIR = ROOT / "solutions"


_parsed: dict[str, tuple[str, bytes]] = {}  # path -> its text last read, and that text's data, pickled


class _Loader(getattr(yaml, "CSafeLoader", yaml.SafeLoader)):
    """The safe loader (libyaml's, fast, where PyYAML has it) that refuses a key written twice in one
    mapping: YAML keeps the last, so a lesson's second message of the same key silently replaced the
    first, and the learner read the wrong one."""

    def construct_mapping(self, node, deep=False):
        seen = set()
        for key_node, _ in node.value:
            key = self.construct_object(key_node, deep=deep)
            try:
                twice = key in seen
                seen.add(key)
            except TypeError:  # a key that can't be one (a list): the constructor says so
                continue
            if twice:
                raise yaml.constructor.ConstructorError("in a mapping", node.start_mark,
                                                        f"the key {key!r} is written twice", key_node.start_mark)
        return super().construct_mapping(node, deep)


def read_yaml(path: Path):
    """A YAML file's data, with libyaml's fast safe loader when PyYAML was built with it (_Loader). The same
    text read again (a class run's worker loads the lesson's scenarios for every student) is not
    parsed again: its data is a fresh copy of what the first parse made."""
    text = Path(path).read_text(encoding="utf-8")
    last = _parsed.get(str(path))
    if last is None or last[0] != text:
        last = _parsed[str(path)] = text, pickle.dumps(
            yaml.load(text, Loader=_Loader))
    return pickle.loads(last[1])


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
