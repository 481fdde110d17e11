"""Every language, everywhere: these tests fail when a learner would meet a missing translation.

Covers the lesson READMEs, validator/messages.yaml, each lesson.yaml (title, TODOs, messages), the
check titles in each checks.py, the message keys the code uses, and one real run of the validator
in each language.
"""
from __future__ import annotations

import functools
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:  # the checks modules import validator and mock_llm
    sys.path.insert(0, str(ROOT))

from validator.authoring import texts  # noqa: E402  (after the sys.path fix above)
from validator.authoring.texts import CJK, READMES, lesson_data, message_uses, todo_markers  # noqa: E402
from validator.lessons import LANGS, catalog  # noqa: E402

# Importing a checks module applies its `todo` marks, which only the validator registers.
pytestmark = pytest.mark.filterwarnings("ignore::pytest.PytestUnknownMarkWarning")

LESSON_DIRS = sorted(p.parent for p in (ROOT / "lessons").glob("*/lesson.yaml"))
LESSON_IDS = [d.name for d in LESSON_DIRS]

# Call sites known to leave a placeholder unfilled: (file, key) -> why. Each is an xfail(strict),
# so fixing the code makes the test pass unexpectedly: then delete the entry.
KNOWN_UNFILLED: dict = {}  # (file, key) -> why a message is knowingly left with a placeholder unfilled


@functools.cache
def check_functions(folder: Path) -> dict:
    return texts.check_functions(folder)


def check_titles(folder: Path) -> list[dict]:
    return [m.kwargs["title"] for func in check_functions(folder).values()
            for m in todo_markers(func)]


def test_there_are_lessons():
    assert LESSON_DIRS, "no lessons/*/lesson.yaml found"


# ---------------------------------------------------------------- the lesson READMEs

@pytest.mark.parametrize("folder", LESSON_DIRS, ids=LESSON_IDS)
@pytest.mark.parametrize("lang", list(READMES))
def test_readme_exists_and_is_not_empty(folder, lang):
    assert not texts.readme_missing(folder, lang)


@pytest.mark.parametrize("folder", LESSON_DIRS, ids=LESSON_IDS)
def test_readmes_are_in_their_language(folder):
    assert CJK.search(texts.readme(folder, "zh")), f"{folder.name}/{READMES['zh']} contains no Chinese"
    problems = texts.language_problems(folder)
    assert not problems, "\n".join(problems)


@pytest.mark.parametrize("folder", LESSON_DIRS, ids=LESSON_IDS)
def test_the_chinese_readmes_code_comments_are_chinese(folder):
    problems = texts.english_comments(folder)
    assert not problems, "\n".join(problems)


@pytest.mark.parametrize("folder", LESSON_DIRS, ids=LESSON_IDS)
def test_readmes_have_the_same_structure(folder):
    problems = texts.heading_problems(folder)
    assert not problems, "\n".join(problems)


@pytest.mark.parametrize("folder", LESSON_DIRS, ids=LESSON_IDS)
@pytest.mark.parametrize("lang", list(READMES))
def test_readme_mentions_every_todo(folder, lang):
    problems = texts.readme_todo_problems(folder, lang)
    assert not problems, "\n".join(problems)


# ---------------------------------------------------------------- messages

def test_validator_messages_have_every_language():
    problems = [p for key, entry in catalog().items()
                for p in texts.translation_problems(f"validator/messages.yaml {key}", entry)]
    assert not problems, "\n".join(problems)


@pytest.mark.parametrize("folder", LESSON_DIRS, ids=LESSON_IDS)
def test_lesson_title_todos_and_messages_have_every_language(folder):
    problems = texts.lesson_text_problems(folder)
    assert not problems, "\n".join(problems)


@pytest.mark.parametrize("folder", LESSON_DIRS, ids=LESSON_IDS)
def test_every_check_has_a_title_in_every_language(folder):
    problems = texts.check_title_problems(folder, check_functions(folder))
    assert not problems, "\n".join(problems)


# ---------------------------------------------------------------- message keys used by the code

def code_files() -> list[tuple[Path, Path | None]]:
    """(source file, its lesson folder or None for the validator)."""
    files = [(path, None) for path in sorted((ROOT / "validator").rglob("*.py"))]
    for folder in LESSON_DIRS:
        files.append((folder / lesson_data(folder).get("checks", "checks.py"), folder))
    return files


def test_the_key_scan_finds_keys():
    """Guards the scanner itself: if these stop being found, the tests below check nothing."""
    found = {key for path, _ in code_files() for _, key, _ in message_uses(path)}
    expected = {"not_implemented", "unawaited", "budget", "report_score", "api_rejected", "crashed"}
    assert expected <= found, expected - found


def test_every_message_key_used_exists():
    problems = []
    for path, folder in code_files():
        known = texts.messages_for(folder)
        for line, key, _ in message_uses(path):
            if key not in known:
                problems.append(f"{path.relative_to(ROOT)}:{line}: message key {key!r} is in "
                                f"neither validator/messages.yaml nor the lesson's messages")
    assert not problems, "\n".join(problems)


def _placeholder_cases():
    cases = []
    for path, folder in code_files():
        rel = path.relative_to(ROOT).as_posix()
        for line, key, given in message_uses(path):
            if given is None:
                continue
            marks = ()
            if (rel, key) in KNOWN_UNFILLED:
                marks = pytest.mark.xfail(reason=KNOWN_UNFILLED[(rel, key)], strict=True)
            cases.append(pytest.param(path, folder, key, given, id=f"{rel}:{line}:{key}",
                                      marks=marks))
    return cases


@pytest.mark.parametrize("path, folder, key, given", _placeholder_cases())
def test_every_placeholder_is_filled(path, folder, key, given):
    """A call that names a message must pass every {placeholder} it has, in every language."""
    messages = texts.messages_for(folder)
    if key not in messages:
        pytest.skip("unknown key: reported by test_every_message_key_used_exists")
    missing = texts.unfilled(key, given, messages)
    assert not missing, f"{key}: no value given for {sorted(missing)}"


# ---------------------------------------------------------------- a real run, in each language

@pytest.mark.parametrize("folder", LESSON_DIRS, ids=LESSON_IDS)
@pytest.mark.parametrize("lang", LANGS)
def test_validator_report_speaks_the_language(folder, lang):
    """Grade the untouched template: every check fails with "not implemented", all in `lang`."""
    data = lesson_data(folder)
    env = dict(os.environ, PYTHONIOENCODING="utf-8", COLUMNS="200", NO_COLOR="1")
    run = subprocess.run([sys.executable, "validate.py", folder.name, "--lang", lang],
                         cwd=ROOT, capture_output=True, text=True, encoding="utf-8", env=env,
                         timeout=300)
    out = run.stdout
    assert run.returncode == 1, f"exit status {run.returncode}\n{out}\n{run.stderr}"
    others = [other for other in LANGS if other != lang]

    assert data["title"][lang] in out
    assert not any(data["title"].get(other) and data["title"][other] in out for other in others)
    not_implemented = catalog()["not_implemented"][lang].split("{", 1)[0]
    assert not_implemented in out
    if lang == "zh":
        assert "还没有实现" in out
        assert CJK.search(data["title"]["zh"])

    titles = check_titles(folder)
    assert titles
    missing = [t[lang] for t in titles if t[lang] not in out]
    assert not missing, f"check titles missing from the {lang} report: {missing}"
    foreign = [t[other] for t in titles for other in others if t.get(other) and t[other] in out]
    assert not foreign, f"check titles in another language in the {lang} report: {foreign}"
    for todo in data["todos"]:
        assert todo["title"][lang] in out
        assert not any(todo["title"].get(other) and todo["title"][other] in out
                       for other in others), todo["title"]
    leftovers = re.findall(r"\{[A-Za-z_]\w*(?:![rsa])?\}", out)
    assert not leftovers, f"unfilled placeholders in the report: {leftovers}"


@pytest.mark.parametrize("got, expected, says", [
    ("20", 20, "was 20, but load_config gave timeout='20'"),  # a str and a number: repr() tells them apart
    (20.0, 20, "was 20, but load_config gave timeout=20.0"),
    (25, 20, "was 20, but load_config gave timeout=25"),  # values that read apart stay as they are
])
def test_two_values_that_differ_never_read_alike_in_a_message(monkeypatch, got, expected, says):
    """No message says "X, but X": two parameters that differ, but would be written the same, are
    written with repr(), in every message of every lesson (lessons.say formats them all)."""
    from validator import lessons
    monkeypatch.setattr(lessons, "_catalog", {"timeout": {
        "en": "OPENAI_TIMEOUT was {expected}, but load_config gave timeout={got}",
        "zh": "OPENAI_TIMEOUT 是 {expected}，load_config 却给出 timeout={got}"}})
    assert says in lessons.say("timeout", "en", None, got=got, expected=expected)
    assert says.split("but load_config gave ")[1] in lessons.say("timeout", "zh", None, got=got, expected=expected)
