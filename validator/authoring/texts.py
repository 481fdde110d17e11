"""The authoring rules about text: every text a learner reads exists in English and Chinese, every
message key a lesson's checks name exists, with its {placeholders} filled in, and each README names
every TODO with its function. The kit's tests (tests/test_i18n.py) call these same functions.
"""
from __future__ import annotations

import ast
import importlib.util
import re
import string
import warnings
from pathlib import Path

from validator.files import read_yaml
from validator.lessons import LANGS, catalog

READMES = {lang: "README.md" if lang == "en" else f"README.{lang}.md" for lang in LANGS}


def fields(text: str) -> set[tuple[str, str | None, str]]:
    """The {placeholders} of a format string: (field name, conversion, format spec)."""
    return {(name, conversion, spec or "")
            for _, name, spec, conversion in string.Formatter().parse(text) if name is not None}


def field_names(text: str) -> set[str]:
    return {re.split(r"[.\[]", name, maxsplit=1)[0] for name, _, _ in fields(text)}


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
    return [f"{where}: placeholders differ: {first} {sorted(specs[first], key=str)} vs "
            f"{lang} {sorted(specs[lang], key=str)}"
            for lang in LANGS[1:] if specs[lang] != specs[first]]


def lesson_data(folder: Path) -> dict:
    return read_yaml(folder / "lesson.yaml")


def lesson_text_problems(folder: Path) -> list[str]:
    """The lesson.yaml's title, TODO titles, hints and messages, each in every language."""
    data, where = lesson_data(folder), f"{folder.name}/lesson.yaml"
    problems = translation_problems(f"{where} title", data.get("title"), placeholders=False)
    for todo in data.get("todos", []):
        problems += translation_problems(f"{where} TODO {todo.get('id')} title", todo.get("title"),
                                         placeholders=False)
        levels = todo["hints"] if "hints" in todo else [todo.get("hint")]  # levelled, or one hint
        for level, hint in enumerate(levels, start=1):
            problems += translation_problems(f"{where} TODO {todo.get('id')} hint {level}", hint,
                                             placeholders=False)
    for key, entry in (data.get("messages") or {}).items():
        problems += translation_problems(f"{where} messages.{key}", entry)
    return problems


# ---------------------------------------------------------------- the checks' titles

def check_functions(folder: Path) -> dict:
    """name -> the check function, for every test_* function of the lesson's checks module."""
    path = folder / lesson_data(folder).get("checks", "checks.py")
    spec = importlib.util.spec_from_file_location(f"_authoring_checks_{folder.name}", path)
    module = importlib.util.module_from_spec(spec)
    with warnings.catch_warnings():  # its `todo` marks: only the grader registers them
        warnings.simplefilter("ignore")
        spec.loader.exec_module(module)
    return {name: func for name, func in vars(module).items() if name.startswith("test") and callable(func)}


def todo_markers(func) -> list:
    return [m for m in getattr(func, "pytestmark", []) if m.name == "todo"]


def check_title_problems(folder: Path, checks: dict) -> list[str]:
    """Each check has one @check, of a TODO lesson.yaml has, titled in every language."""
    todo_ids = {str(t["id"]) for t in lesson_data(folder)["todos"]}
    problems = [] if checks else [f"{folder.name}: no checks found (functions named test_*)"]
    for name, func in checks.items():
        markers = todo_markers(func)
        if len(markers) != 1:
            problems.append(f"{name}: {len(markers)} todo markers, expected one (@check)")
            continue
        if str(markers[0].args[0]) not in todo_ids:
            problems.append(f"{name}: TODO {markers[0].args[0]} is not in lesson.yaml")
        problems += translation_problems(f"{name} title", markers[0].kwargs.get("title"), placeholders=False)
    return problems


# ---------------------------------------------------------------- message keys the code names

def _const(node) -> str | None:
    return node.value if isinstance(node, ast.Constant) and isinstance(node.value, str) else None


def _key_consts(node) -> list[str]:
    """The strings a key expression can be: "a", or "a" if ... else "b"."""
    if isinstance(node, ast.IfExp):
        return _key_consts(node.body) + _key_consts(node.orelse)
    return [node.value] if _const(node) is not None else []


def _handed_on(node) -> list[str]:
    """Keys handed on to be used elsewhere: `key = "..."`, `def f(..., key="...")`, `f(key="...")`."""
    if isinstance(node, ast.Assign) and any(getattr(t, "id", None) == "key" for t in node.targets):
        return _key_consts(node.value)
    if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
        args = node.args.posonlyargs + node.args.args
        defaults = dict(zip([a.arg for a in args][len(args) - len(node.args.defaults):], node.args.defaults))
        defaults.update((a.arg, d) for a, d in zip(node.args.kwonlyargs, node.args.kw_defaults) if d)
        return _key_consts(defaults["key"]) if "key" in defaults else []
    if isinstance(node, ast.Call):
        return [key for keyword in node.keywords if keyword.arg == "key" for key in _key_consts(keyword.value)]
    return []


def _called(node: ast.Call) -> str | None:
    return getattr(node.func, "id", None) or getattr(node.func, "attr", None)


def _named(node: ast.Call) -> str | None:
    """The key `expect(cond, "key")`, `Fail("key")` or `say("key", lang)` names."""
    name = _called(node)
    if name == "expect" and len(node.args) >= 2:
        return _const(node.args[1])
    if name in ("Fail", "say") and node.args:
        return _const(node.args[0])
    return None


def message_uses(path: Path) -> list[tuple[int, str, set[str] | None]]:
    """Every message key the file names literally: (line, key, keyword names given or None).

    Found in `expect(cond, "key", ...)`, `Fail("key", ...)`, `say("key", lang, ...)`, and wherever a
    key is handed on (the runner's problems, message keys too, are one table: validator/outcomes.py,
    whose every member tests/test_outcomes.py finds in messages.yaml): `key = "..."`, `f(..., key="...")`, `def f(..., key="...")`. The keyword names are
    None when they cannot be known (**kwargs, or a key passed on to be used elsewhere).
    """
    uses = []
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"), filename=str(path))):
        uses += [(node.lineno, key, None) for key in _handed_on(node)]
        if not isinstance(node, ast.Call):
            continue
        key = _named(node)
        if key is not None:
            given = None if any(k.arg is None for k in node.keywords) else {k.arg for k in node.keywords}
            uses.append((node.lineno, key, given))
    return uses


def messages_for(folder: Path | None) -> dict:
    """The messages a file can name: the validator's, and its lesson's (folder) over them."""
    return dict(catalog(), **((lesson_data(folder).get("messages") or {}) if folder else {}))


def unfilled(key: str, given: set[str], messages: dict) -> set[str]:
    """The {placeholders} of message `key`, in any language, that a call giving `given` leaves empty."""
    entry = messages[key]
    needed = set().union(*(field_names(entry[lang]) for lang in LANGS if entry.get(lang))) - given
    return needed - {"where"} if "line" in given else needed  # say() makes {where} of a line (notebooks)


def message_key_problems(folder: Path) -> list[str]:
    """Each key the lesson's checks name exists (lesson.yaml or validator/messages.yaml), and each
    call fills in every placeholder of its message."""
    path = folder / lesson_data(folder).get("checks", "checks.py")
    messages, problems = messages_for(folder), []
    for line, key, given in message_uses(path):
        if key not in messages:
            problems.append(f"{path.name}:{line}: message key {key!r} is in neither the lesson's messages "
                            f"nor validator/messages.yaml")
        elif given is not None and unfilled(key, given, messages):
            problems.append(f"{path.name}:{line}: {key}: no value given for {sorted(unfilled(key, given, messages))}")
    return problems


# ---------------------------------------------------------------- the READMEs

CJK = re.compile(r"[\u3400-\u4dbf\u4e00-\u9fff]")
CODE_BLOCK = re.compile(r"```.*?```", re.DOTALL)
INLINE_CODE = re.compile(r"`[^`\n]*`")


def readme(folder: Path, lang: str) -> str:
    """The README in `lang`, "" when it is missing."""
    path = folder / READMES[lang]
    return path.read_text(encoding="utf-8") if path.is_file() else ""


def prose(markdown: str) -> str:
    """The text of a Markdown file without its code (where English is expected in any language)."""
    return INLINE_CODE.sub("", CODE_BLOCK.sub("", markdown))


def cjk_share(text: str) -> float:
    letters = [c for c in text if c.isalpha()]
    return sum(1 for c in letters if CJK.match(c)) / max(len(letters), 1)


def readme_missing(folder: Path, lang: str) -> list[str]:
    return [] if readme(folder, lang).strip() else [f"{folder.name}/{READMES[lang]} is missing or empty"]


def language_problems(folder: Path) -> list[str]:
    """Each README in its language: tool names, file names and code stay English, sentences do not."""
    zh, en = (cjk_share(prose(readme(folder, lang))) for lang in ("zh", "en"))
    return ([f"{folder.name}/{READMES['zh']}: only {zh:.0%} of its prose is Chinese"] if zh <= 0.5 else []) + \
        ([f"{folder.name}/{READMES['en']}: {en:.0%} of its prose is Chinese"] if en >= 0.1 else [])


def english_comments(folder: Path) -> list[str]:
    """A comment that explains, in a code block of README.zh.md, is in Chinese as the prose is; a
    program's output shown as comments (`# {"id": …`, its continuation lines) stays as printed."""
    english = []
    for block in CODE_BLOCK.findall(readme(folder, "zh")):
        for line in block.splitlines()[1:]:
            comment = re.search(r"(?:^|\s)#(\s*)(.*)$", line)
            if not comment or comment.group(1).startswith("  ") or comment.group(2).startswith(("{", "HTTP")):
                continue
            if re.search(r"\b[A-Za-z]+ [a-z]+ [a-z]+\b", comment.group(2)) and not CJK.search(comment.group(2)):
                english.append(line.strip())
    return [f"{folder.name}/{READMES['zh']}: comments still in English: {english}"] if english else []


def heading_problems(folder: Path) -> list[str]:
    def headings(lang):
        return [line.split(" ", 1)[0] for line in CODE_BLOCK.sub("", readme(folder, lang)).splitlines()
                if re.match(r"#+ ", line)]
    return [] if headings("zh") == headings("en") else [
        f"{folder.name}: the two READMEs have different heading levels or counts"]


def readme_todo_problems(folder: Path, lang: str) -> list[str]:
    """The README in `lang` names every TODO ("TODO 1.2") and its function."""
    text = readme(folder, lang)
    missing = [f"TODO {t['id']} {t['function']}" for t in lesson_data(folder)["todos"]
               if t["function"] not in text or f"TODO {t['id']}" not in text]
    return [f"{folder.name}/{READMES[lang]} never mentions {', '.join(missing)}"] if missing else []
