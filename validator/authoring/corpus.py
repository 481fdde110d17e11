"""A lesson's corpus, tests/submissions/dayNN/: learners' files the kit's tests grade
(tests/test_corpus.py). good_*.py get full marks (`# expect: full`); each bad_*.py declares the
TODOs it loses (`# expect-lose: 1.1`) and why (`# why: …`), and may name the seed it is graded
with (`# seed: N`: a cheat that only a secret seed catches, as an instructor grades). lesson.yaml's
`corpus: {good, bad}` says how many of each the lesson must have at least.
"""
from __future__ import annotations

from pathlib import Path

from validator.files import ROOT

CORPUS = ROOT / "tests" / "submissions"
KEYS = ("expect", "expect-lose", "expect-keep", "expect-message", "why", "style", "known-gap", "python", "seed",
        "racy")


def read_header(path: Path) -> dict[str, str]:
    """The `# key: value` lines at the top of a file, as {key: value}."""
    header: dict[str, str] = {}
    for line in path.read_text(encoding="utf-8-sig").splitlines():  # a file may start with a BOM
        if not line.startswith("#"):
            break
        key, colon, value = line.lstrip("#").partition(":")
        if colon and key.strip() in KEYS:
            key = key.strip()
            header[key] = f"{header.get(key, '')} {value.strip()}".strip()
    return header


def declaration_problems(path: Path, todo_ids: list[str]) -> list[str]:
    """What the file's header lacks: good_ files expect full marks, bad_ ones name the TODOs they
    lose (of the lesson's) and say why."""
    header, problems = read_header(path), []
    if path.name.startswith("good_"):
        if header.get("expect") != "full" or "expect-lose" in header:
            problems.append("a good_ file declares `# expect: full`, and no `# expect-lose:`")
    else:
        if "expect" in header or not header.get("expect-lose"):
            problems.append("a bad_ file declares the TODOs it loses, `# expect-lose: 4.1`, not `# expect:`")
        if not header.get("why"):
            problems.append("a bad_ file says why in one sentence: `# why: ...`")
    for key in ("expect-lose", "expect-keep"):
        unknown = set(header.get(key, "").split()) - set(todo_ids)
        if unknown:
            problems.append(f"{key} names TODOs the lesson does not have: {sorted(unknown)}")
    if not header.get("seed", "0").isdigit():
        problems.append(f"`# seed:` is a whole number, not {header['seed']!r}")
    both = set(header.get("expect-lose", "").split()) & set(header.get("expect-keep", "").split())
    return problems + ([f"TODOs both lost and kept: {sorted(both)}"] if both else [])


def corpus_problems(name: str, minimum: dict, todo_ids: list[str]) -> list[str]:
    """tests/submissions/NAME holds at least `minimum` good_*.py and bad_*.py, no other .py, each
    declaring what it expects."""
    files = sorted((CORPUS / name).glob("*.py"))
    good = [p for p in files if p.name.startswith("good_")]
    bad = [p for p in files if p.name.startswith("bad_")]
    problems = [f"only {len(found)} {kind}_*.py of the {minimum[kind]} lesson.yaml asks for"
                for kind, found in (("good", good), ("bad", bad)) if len(found) < minimum[kind]]
    problems += [f"{p.name} is named neither good_*.py nor bad_*.py" for p in files if p not in good + bad]
    return problems + [f"{p.name}: {problem}" for p in good + bad for problem in declaration_problems(p, todo_ids)]
