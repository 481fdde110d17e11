"""Every language, everywhere: these tests fail when a learner would meet a missing translation.

Covers the lesson READMEs, validator/messages.yaml, each lesson.yaml (title, TODOs, messages), the
check titles in each checks.py, the message keys the code uses, and one real run of the validator
in each language.
"""
from __future__ import annotations

import ast
import functools
import importlib.util
import os
import re
import string
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:  # the checks modules import validator and mock_llm
    sys.path.insert(0, str(ROOT))

from validator.lessons import LANGS  # noqa: E402  (after the sys.path fix above)

# Importing a checks module applies its `todo` marks, which only the validator registers.
pytestmark = pytest.mark.filterwarnings("ignore::pytest.PytestUnknownMarkWarning")

LESSON_DIRS = sorted(p.parent for p in (ROOT / "lessons").glob("*/lesson.yaml"))
LESSON_IDS = [d.name for d in LESSON_DIRS]
MESSAGES_FILE = ROOT / "validator" / "messages.yaml"
READMES = {lang: "README.md" if lang == "en" else f"README.{lang}.md" for lang in LANGS}
CJK = re.compile(r"[\u3400-\u4dbf\u4e00-\u9fff]")
CODE_BLOCK = re.compile(r"```.*?```", re.DOTALL)
INLINE_CODE = re.compile(r"`[^`\n]*`")

# Keys the runner builds at run time ("import_" + problem, validator/runner.py), so no literal
# in the code names them.
DERIVED_KEYS = {"import_hang", "import_died"}

# Call sites known to leave a placeholder unfilled: (file, key) -> why. Each is an xfail(strict),
# so fixing the code makes the test pass unexpectedly: then delete the entry.
KNOWN_UNFILLED: dict = {}  # (file, key) -> why a message is knowingly left with a placeholder unfilled


def load_yaml(path: Path):
    return yaml.safe_load(path.read_text(encoding="utf-8"))


def lesson_data(folder: Path) -> dict:
    return load_yaml(folder / "lesson.yaml")


def validator_messages() -> dict:
    return load_yaml(MESSAGES_FILE)


def fields(text: str) -> set[tuple[str, str | None, str]]:
    """The {placeholders} of a format string: (field name, conversion, format spec)."""
    return {(name, conversion, spec or "")
            for _, name, spec, conversion in string.Formatter().parse(text) if name is not None}


def field_names(text: str) -> set[str]:
    return {re.split(r"[.\[]", name, maxsplit=1)[0] for name, _, _ in fields(text)}


def prose(markdown: str) -> str:
    """The text of a Markdown file without its code (where English is expected in any language)."""
    return INLINE_CODE.sub("", CODE_BLOCK.sub("", markdown))


def cjk_share(text: str) -> float:
    letters = [c for c in text if c.isalpha()]
    return sum(1 for c in letters if CJK.match(c)) / max(len(letters), 1)


def import_checks(folder: Path, data: dict):
    path = folder / data.get("checks", "checks.py")
    spec = importlib.util.spec_from_file_location(f"_i18n_checks_{folder.name}", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@functools.cache
def check_functions(folder: Path) -> dict:
    """name -> the check function, for every test_* function of the lesson's checks module."""
    module = import_checks(folder, lesson_data(folder))
    return {name: func for name, func in vars(module).items()
            if name.startswith("test") and callable(func)}


def todo_markers(func) -> list:
    return [m for m in getattr(func, "pytestmark", []) if m.name == "todo"]


def check_titles(folder: Path) -> list[dict]:
    return [m.kwargs["title"] for func in check_functions(folder).values()
            for m in todo_markers(func)]


def translation_problems(where: str, entry, placeholders: bool = True) -> list[str]:
    """What is wrong with one {en: ..., zh: ...} entry: missing or empty languages, placeholders."""
    if not isinstance(entry, dict):
        return [f"{where}: expected a mapping of languages, got {entry!r}"]
    problems = [f"{where}: no {lang!r} text" for lang in LANGS
                if not isinstance(entry.get(lang), str) or not entry[lang].strip()]
    if problems or not placeholders:
        return problems
    try:
        specs = {lang: fields(entry[lang]) for lang in LANGS}
    except ValueError as error:
        return [f"{where}: not a valid format string ({error})"]
    first = LANGS[0]
    problems += [f"{where}: placeholders differ: {first} {sorted(specs[first], key=str)} vs "
                 f"{lang} {sorted(specs[lang], key=str)}"
                 for lang in LANGS[1:] if specs[lang] != specs[first]]
    return problems


def test_there_are_lessons():
    assert LESSON_DIRS, "no lessons/*/lesson.yaml found"


# ---------------------------------------------------------------- the lesson READMEs

@pytest.mark.parametrize("folder", LESSON_DIRS, ids=LESSON_IDS)
@pytest.mark.parametrize("lang", list(READMES))
def test_readme_exists_and_is_not_empty(folder, lang):
    path = folder / READMES[lang]
    assert path.is_file(), f"{path.relative_to(ROOT)} is missing"
    assert path.read_text(encoding="utf-8").strip(), f"{path.relative_to(ROOT)} is empty"


@pytest.mark.parametrize("folder", LESSON_DIRS, ids=LESSON_IDS)
def test_readmes_are_in_their_language(folder):
    zh = prose((folder / READMES["zh"]).read_text(encoding="utf-8"))
    en = prose((folder / READMES["en"]).read_text(encoding="utf-8"))
    assert CJK.search(zh), f"{folder.name}/{READMES['zh']} contains no Chinese"
    # Tool names, file names and the like stay English; the sentences must not.
    assert cjk_share(zh) > 0.5, \
        f"{folder.name}/{READMES['zh']}: only {cjk_share(zh):.0%} of its prose is Chinese"
    assert cjk_share(en) < 0.1, \
        f"{folder.name}/{READMES['en']}: {cjk_share(en):.0%} of its prose is Chinese"


@pytest.mark.parametrize("folder", LESSON_DIRS, ids=LESSON_IDS)
def test_the_chinese_readmes_code_comments_are_chinese(folder):
    """A comment that explains, in a code block of README.zh.md, is in Chinese as the prose is; a
    program's output shown as comments (`# {"id": …`, its continuation lines) stays as printed."""
    english = []
    for block in CODE_BLOCK.findall((folder / READMES["zh"]).read_text(encoding="utf-8")):
        for line in block.splitlines()[1:]:
            comment = re.search(r"(?:^|\s)#(\s*)(.*)$", line)
            if not comment or comment.group(1).startswith("  ") or comment.group(2).startswith(("{", "HTTP")):
                continue
            if re.search(r"\b[A-Za-z]+ [a-z]+ [a-z]+\b", comment.group(2)) and not CJK.search(comment.group(2)):
                english.append(line.strip())
    assert not english, f"{folder.name}/{READMES['zh']}: comments still in English: {english}"


@pytest.mark.parametrize("folder", LESSON_DIRS, ids=LESSON_IDS)
def test_readmes_have_the_same_structure(folder):
    def headings(lang):
        text = CODE_BLOCK.sub("", (folder / READMES[lang]).read_text(encoding="utf-8"))
        return [line.split(" ", 1)[0] for line in text.splitlines() if re.match(r"#+ ", line)]
    assert headings("zh") == headings("en"), "the two READMEs have different heading levels/counts"


@pytest.mark.parametrize("folder", LESSON_DIRS, ids=LESSON_IDS)
@pytest.mark.parametrize("lang", list(READMES))
def test_readme_mentions_every_todo(folder, lang):
    text = (folder / READMES[lang]).read_text(encoding="utf-8")
    missing = [f"TODO {t['id']} {t['function']}" for t in lesson_data(folder)["todos"]
               if t["function"] not in text or f"TODO {t['id']}" not in text]
    assert not missing, f"{folder.name}/{READMES[lang]} never mentions: {missing}"


# ---------------------------------------------------------------- messages

def test_validator_messages_have_every_language():
    problems = [p for key, entry in validator_messages().items()
                for p in translation_problems(f"validator/messages.yaml {key}", entry)]
    assert not problems, "\n".join(problems)


@pytest.mark.parametrize("folder", LESSON_DIRS, ids=LESSON_IDS)
def test_lesson_messages_have_every_language(folder):
    messages = lesson_data(folder).get("messages") or {}
    problems = [p for key, entry in messages.items()
                for p in translation_problems(f"{folder.name}/lesson.yaml messages.{key}", entry)]
    assert not problems, "\n".join(problems)


@pytest.mark.parametrize("folder", LESSON_DIRS, ids=LESSON_IDS)
def test_lesson_title_and_todos_have_every_language(folder):
    data = lesson_data(folder)
    where = f"{folder.name}/lesson.yaml"
    problems = translation_problems(f"{where} title", data.get("title"), placeholders=False)
    for todo in data.get("todos", []):
        problems += translation_problems(f"{where} TODO {todo.get('id')} title", todo.get("title"),
                                         placeholders=False)
        levels = todo["hints"] if "hints" in todo else [todo.get("hint")]  # levelled, or one hint
        for level, hint in enumerate(levels, start=1):
            problems += translation_problems(f"{where} TODO {todo.get('id')} hint {level}", hint,
                                             placeholders=False)
    assert not problems, "\n".join(problems)


@pytest.mark.parametrize("folder", LESSON_DIRS, ids=LESSON_IDS)
def test_every_check_has_a_title_in_every_language(folder):
    data = lesson_data(folder)
    todo_ids = {str(t["id"]) for t in data["todos"]}
    checks = check_functions(folder)
    assert checks, f"{folder.name}: no checks found"
    problems = []
    for name, func in checks.items():
        markers = todo_markers(func)
        if len(markers) != 1:
            problems.append(f"{name}: {len(markers)} todo markers, expected one (@check)")
            continue
        marker = markers[0]
        if str(marker.args[0]) not in todo_ids:
            problems.append(f"{name}: TODO {marker.args[0]} is not in lesson.yaml")
        problems += translation_problems(f"{name} title", marker.kwargs.get("title"),
                                         placeholders=False)
    assert not problems, "\n".join(problems)


# ---------------------------------------------------------------- message keys used by the code

def code_files() -> list[tuple[Path, Path | None]]:
    """(source file, its lesson folder or None for the validator)."""
    files = [(path, None) for path in sorted((ROOT / "validator").glob("*.py"))]
    for folder in LESSON_DIRS:
        files.append((folder / lesson_data(folder).get("checks", "checks.py"), folder))
    return files


def _const(node) -> str | None:
    return node.value if isinstance(node, ast.Constant) and isinstance(node.value, str) else None


def _key_consts(node) -> list[str]:
    """The strings a key expression can be: "a", or "a" if ... else "b"."""
    if isinstance(node, ast.IfExp):
        return _key_consts(node.body) + _key_consts(node.orelse)
    return [node.value] if _const(node) is not None else []


def message_uses(path: Path) -> list[tuple[int, str, set[str] | None]]:
    """Every message key the file names literally: (line, key, keyword names given or None).

    Found in `expect(cond, "key", ...)`, `Fail("key", ...)`, `say("key", lang, ...)`,
    `Outcome(problem="key")` (the runner's problems become message keys), and wherever a key is
    handed on: `key = "..."`, `f(..., key="...")`, `def f(..., key="...")`. The keyword names are
    None when they cannot be known (**kwargs, or a key passed on to be used elsewhere).
    """
    uses = []
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"), filename=str(path))):
        if isinstance(node, ast.Assign) and any(getattr(t, "id", None) == "key" for t in node.targets):
            uses += [(node.lineno, key, None) for key in _key_consts(node.value)]
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            args = node.args.posonlyargs + node.args.args
            defaults = dict(zip([a.arg for a in args][len(args) - len(node.args.defaults):],
                                node.args.defaults))
            defaults.update((a.arg, d) for a, d in zip(node.args.kwonlyargs, node.args.kw_defaults) if d)
            if "key" in defaults:
                uses += [(node.lineno, key, None) for key in _key_consts(defaults["key"])]
        if not isinstance(node, ast.Call):
            continue
        for keyword in node.keywords:
            if keyword.arg == "key":
                uses += [(node.lineno, key, None) for key in _key_consts(keyword.value)]
        name = getattr(node.func, "id", None) or getattr(node.func, "attr", None)
        key = None
        if name == "expect" and len(node.args) >= 2:
            key = _const(node.args[1])
        elif name in ("Fail", "say") and node.args:
            key = _const(node.args[0])
        elif name == "Outcome":
            problem = next((k.value for k in node.keywords if k.arg == "problem"), None)
            if problem is not None and _const(problem):
                uses.append((node.lineno, _const(problem), None))
            continue
        if key is not None:
            given = None if any(k.arg is None for k in node.keywords) else {k.arg for k in node.keywords}
            uses.append((node.lineno, key, given))
    return uses


def test_the_key_scan_finds_keys():
    """Guards the scanner itself: if these stop being found, the tests below check nothing."""
    found = {key for path, _ in code_files() for _, key, _ in message_uses(path)}
    expected = {"not_implemented", "unawaited", "budget", "report_score", "import_syntax", "crashed"}
    assert expected <= found, expected - found


def test_every_message_key_used_exists():
    catalog = validator_messages()
    problems = []
    for path, folder in code_files():
        known = set(catalog) | set((lesson_data(folder).get("messages") or {}) if folder else {})
        for line, key, _ in message_uses(path):
            if key not in known:
                problems.append(f"{path.relative_to(ROOT)}:{line}: message key {key!r} is in "
                                f"neither validator/messages.yaml nor the lesson's messages")
    problems += [f"derived key {key!r} is missing from validator/messages.yaml"
                 for key in DERIVED_KEYS if key not in catalog]
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
    messages = dict(validator_messages(), **((lesson_data(folder).get("messages") or {}) if folder else {}))
    entry = messages.get(key)
    if entry is None:
        pytest.skip("unknown key: reported by test_every_message_key_used_exists")
    needed = set().union(*(field_names(entry[lang]) for lang in LANGS if entry.get(lang)))
    if "line" in given:  # say() makes {where} of it: "line 12", or "line 2 of cell 4" in a notebook
        needed.discard("where")
    missing = needed - given
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
    not_implemented = validator_messages()["not_implemented"][lang].split("{", 1)[0]
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
