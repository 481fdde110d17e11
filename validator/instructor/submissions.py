"""A class's submissions, found and vetted: one per student, read as the grader may read them.

SUBMISSIONS holds one `.py` file per student, or one folder or `.zip` per student with the lesson's
exercise file inside; the student's name is the file's or folder's name. FOLDER (the student's
folder under GRADES/students) is that name, or, when it is no safe file name or is another
student's but for case, the name made safe plus a hash of it. Each file is graded where it lies
(a zip's once unpacked in a temporary folder), and every output names it by its path in
SUBMISSIONS (`alice.py`, `erin/work/day06.py`, `zed.zip:day06.py`), never by where it was read.
"""
from __future__ import annotations

import hashlib
import io
import keyword
import os
import re
import stat
import tokenize
import unicodedata
import zipfile
import zlib
from collections import Counter
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path

from validator.grading.report import clean
from validator.grading.runner import read_source
from validator.lessons import Lesson, LessonError, say

FILE_LIMIT = 1024 * 1024  # bytes of a file to grade: an exercise is far smaller, and every run reads it


ZIP_LIMIT = 5 * 1024 * 1024  # bytes the candidate files of a student's zip may unpack to
ZIP_FILE_LIMIT = 32 * 1024 * 1024  # bytes of a zip: reading its list of files costs per file, on every run
DEPTH_LIMIT = 20  # folders deep a handed-in file may lie; deeper ones are not looked at, as Python's
# own walk of a tree and removal of one recurse a level a folder (a tree 1,000 deep stopped a run)
CANDIDATE_LIMIT = 100  # files that may be the exercise: more means no one of them is (and each costs)


SKIPPED = ("__MACOSX", "__pycache__")  # folders that hold no one's work, as hidden ones (.git, .venv)


GRADEBOOK = {"grades.csv", "grades.json", "summary.html", "students", "overrides.csv"}  # what --out holds


@dataclass
class Entry:
    """One student's submission as found: the file to grade, or why there is none."""
    student: str  # the name, printable (undecodable bytes as \\xff); one of several under a name: the file's (distinct_name)
    folder: str  # theirs under students/ (folder_names)
    shown: str = ""  # the file graded, as SUBMISSIONS names it
    path: Path | None = None  # the private copy graded (staging/FOLDER/day06.py), as the jailed child sees it
    digest: str = ""  # of its bytes, for the key
    source: bytes | None = None  # its bytes, until the copy is written (stage): only a student graded needs one
    problem: str = ""  # why there is nothing to grade: missing, unreadable, a link, bad zip
    flags: list[str] = field(default_factory=list)  # reasons to look at it: a clash of names, a hard link
    notes: list[str] = field(default_factory=list)  # what was chosen: which of several files
    inode: tuple[int, int] | None = None  # (device, inode) of the file read: hard links are one file
    reader_name: str = ""  # the name as a reader takes it (same_name): which shard grades it (shards.py)
    handed_in_as: str = ""  # the name as handed in, printable: "alice" for alice.py, though a clash renamed it

    def names(self) -> dict:
        """Who a record is: the fields by which overrides find it (overrides.Class) and outputs name it."""
        return {"student": self.student, "folder": self.folder, "file": self.shown, "handed_in_as": self.handed_in_as}


class Refused(Exception):
    """A file the grader won't read, and why (a message for the instructor)."""


def check_folders(submissions: Path, out: Path) -> None:
    """Refuse, before anything is written, submissions that are no folder and an --out that would
    mix gradebooks with submissions: the submissions folder itself, or a place inside a student's
    submission. A sub-folder of SUBMISSIONS that is new or holds only gradebooks is fine (no student)."""
    must_be_folder(submissions)
    folder, target = submissions.resolve(), out.resolve()
    inside = target == folder or folder in target.parents
    if inside and (target.parent != folder or holds_more_than_gradebooks(target)):
        raise LessonError("class_out_inside", out=out, submissions=submissions)


def must_be_folder(path: Path) -> None:
    if not path.is_dir():
        raise LessonError("not_a_folder" if path.exists() else "no_such_folder", path=path)


def holds_more_than_gradebooks(target: Path) -> bool:
    if not target.exists():
        return False
    return not target.is_dir() or any(p.name not in GRADEBOOK and not p.name.startswith(".") for p in target.iterdir())


def find_submissions(submissions: Path, lesson: Lesson, staging: Path, out: Path,
                     lang: str) -> tuple[list[Entry], list[str]]:
    """Each student's submission, its file read, to be copied into a private folder of its own in
    `staging` (staging/FOLDER, by stage), and the names of the entries that are no submission
    (ignored). Each entry is one student's: several under one name (bob.py and bob.zip, Ann and
    ann) are each graded, under their file's name, and flagged; two that are one file on disk
    (hard links) are flagged."""
    found: dict[str, str] = {}  # file name in SUBMISSIONS -> student name
    ignored = []
    gradebooks = out.resolve()
    for item in sorted(submissions.iterdir()):
        if not item.is_symlink() and item.resolve() == gradebooks:  # kept among them in a folder of their own
            continue
        name = student_name(item)
        if name is None:
            ignored.append(printable_name(item.name))
        else:
            found[item.name] = name
    under_name = clashes(found)
    folders = folder_names(found)
    entries = []
    for file, name in found.items():
        files = under_name[file]
        clash = len(files) > 1
        # in a clash, the file's name, and a folder's with a "/": never the name alone, which a folder
        # of that name would otherwise take from alice.py, with the overrides written for "alice"
        student = distinct_name(file) + ("/" if file == name else "") if clash else printable_name(name)
        flags = [say("class_flag_clash", lang, files=", ".join(map(distinct_name, files)))] if clash else []
        entry = _entry(submissions / file, student, folders[file], flags, submissions, lesson,
                       staging / folders[file], lang)
        entry.reader_name = min(same_name(found[f]) for f in files)  # one for the files of a clash: one shard
        entry.handed_in_as = printable_name(name)
        entries.append(entry)
    _flag_hard_links(entries, lang)
    return entries, ignored


def clashes(found: dict[str, str]) -> dict[str, list[str]]:
    """For each file (`found`: file name -> student name), the files handed in under its name as a
    reader takes it: names alike (same_name: case, Unicode's forms) or printed alike (printable_name:
    a Latin-1 byte shown as \\xe9 reads as a name typed with a backslash), and the names alike
    those are (one group, however linked), in the order found."""
    group = {file: file for file in found}

    def head(file: str) -> str:
        while group[file] != file:
            file = group[file]
        return file

    for key in (same_name, printable_name):
        first: dict[str, str] = {}
        for file, name in found.items():
            other = first.setdefault(key(name), file)
            group[head(file)] = head(other)
    members: dict[str, list[str]] = {}
    for file in found:
        members.setdefault(head(file), []).append(file)
    return {file: members[head(file)] for file in found}


def student_name(item: Path) -> str | None:
    """Whose submission `item` is: its name without .py or .zip (any case), a folder's name. None
    for a hidden file or any other file. What can't be opened (a link to a folder, a FIFO) is a
    student's too, said to be refused, never dropped without a word."""
    if item.name.startswith("."):
        return None
    if item.suffix.lower() in (".py", ".zip"):
        return item.stem
    return None if item.is_file() else item.name


def printable_name(name: str) -> str:
    """A file name as text any output can hold, on one line: undecodable bytes as \\xff, control
    characters (bidi ones, tabs and line breaks too) escaped."""
    text = os.fsencode(name).decode("utf-8", "backslashreplace").replace("\t", "\\t").replace("\n", "\\n")
    return clean(text, None)


def distinct_name(name: str) -> str:
    """A file name as printable ASCII that no other name shares: every character beyond ASCII
    escaped, so names that look alike (José in NFC and in NFD) read differently."""
    return name.encode("unicode_escape").decode("ascii")


def same_name(name: str) -> str:
    """What two names have in common when they differ only by case, Unicode normalisation or
    characters that show nothing (a zero-width space, a soft hyphen: Unicode's format characters):
    one student's name to anyone reading it (Unicode's compatibility caseless match, D146)."""
    nf = unicodedata.normalize
    shown = "".join(ch for ch in name if unicodedata.category(ch) != "Cf")
    return nf("NFKD", nf("NFKD", nf("NFD", shown).casefold()).casefold())


def folder_names(found: dict[str, str]) -> dict[str, str]:
    """Each submission's folder under students/, by its file name in SUBMISSIONS (`found`: file
    name -> student name): the student's name when it is a safe file name, in NFC, that no other
    student's equals but for case or normalisation; else the file's name made safe, a "~" (that no
    name used as it is holds) and a hash of the file's name: "bob smith.py" -> bob_smith.py~3f2a9c1e0b7d4a55.
    File names are unique in a folder and 64 bits of hash can't be matched on purpose, so no
    student can name themselves into another's folder. The same names give the same folders."""
    owners = Counter(same_name(name) for name in found.values())
    folders = {}
    for file, name in found.items():
        plain = not UNSAFE.search(name) and unicodedata.is_normalized("NFC", name) and owners[same_name(name)] == 1 \
            and len(name.encode("utf-8", "surrogateescape")) <= NAME_BYTES
        hashed = _cut(UNSAFE.sub("_", file), NAME_BYTES) + "~" + hashlib.sha256(os.fsencode(file)).hexdigest()[:16]
        folders[file] = name if plain else hashed
    return folders


# A folder's name in bytes, at most: a file system's limit is 255 bytes (not characters: a CJK
# character of Unicode's Extension B takes four), and a hashed name adds 17 to it.
NAME_BYTES = 128


def _cut(name: str, most: int) -> str:
    """The longest start of `name` that takes at most `most` bytes in UTF-8, no character cut."""
    return name.encode("utf-8", "surrogateescape")[:most].decode("utf-8", "ignore")


UNSAFE = re.compile(r"[^\w.@+-]")  # what a name must not hold to be a folder's name as it is


def _entry(item: Path, student: str, folder: str, flags: list[str], submissions: Path, lesson: Lesson,
           private: Path, lang: str) -> Entry:
    """One student's entry: the file chosen, vetted and read (never through a link), to be copied
    into `private`, a folder of theirs alone (a zip's candidates are unpacked there now)."""
    shown = printable_name(item.name)
    try:
        mode = _vetted(item, shown, lang, entry=True).st_mode
        if stat.S_ISDIR(mode):
            path, note = exercise_file(item, lesson, lang, root=submissions)
            shown = printable_name(path.relative_to(submissions).as_posix()) if path else shown
        elif item.suffix.lower() == ".zip":
            unzipped = private / "unzipped"
            path, note = _unzip(item, shown, unzipped, lesson, lang)
            shown = f"{shown}:{printable_name(path.relative_to(unzipped).as_posix())}" if path else shown
        else:
            path, note = item, ""
        if path is None:
            raise Refused(note)
        source, info = read_submitted(path, shown, lang)
    except Refused as refusal:
        return Entry(student, folder, shown, problem=str(refusal), flags=flags)
    copy = private / lesson.exercise.name  # kate.PY too: Python imports a file by a .py name only
    return Entry(student, folder, shown, copy, hashlib.sha256(source).hexdigest(), source, flags=flags,
                 notes=[note] if note else [], inode=(info.st_dev, info.st_ino))


def stage(entry: Entry) -> None:
    """Write the entry's private copy, the bytes read and no others (however the file has changed
    since). Only for a student to grade: a resumed run's unchanged students cost no folder."""
    if entry.source is not None:
        entry.path.parent.mkdir(exist_ok=True)  # a zip's was made as it was unpacked
        entry.path.write_bytes(entry.source)
        entry.source = None


def _flag_hard_links(entries: list[Entry], lang: str) -> None:
    """Students whose files are one file on disk (hard links: any name may be the first) are each
    flagged, with all their names. Each is graded on the bytes it holds, read once: a hard link
    leads to no file but one its maker could already read and write (fs.protected_hardlinks, on
    by default in Linux), so it can do no more than a copy."""
    names: dict[tuple[int, int], list[str]] = {}
    for entry in entries:
        if entry.inode:
            names.setdefault(entry.inode, []).append(entry.student)
    for entry in entries:
        if len(names.get(entry.inode, [])) > 1:
            entry.flags.append(say("class_flag_hard_link", lang, names=", ".join(names[entry.inode])))


def exercise_file(folder: Path, lesson: Lesson, lang: str = "en",
                  root: Path | None = None) -> tuple[Path | None, str]:
    """The file to grade in a handed-in folder or repository, and a note: why there is none, or,
    when it was chosen among several real candidates, "several candidate files: graded X". Files
    are named by their path in `root` (default: `folder`); no link is followed, to a file or a
    folder. Gradescope's run_autograder can grade through it too.

    The candidates are the files named as the lesson's exercise, at any depth, else every .py file;
    none in a hidden folder (.git, .venv) or __MACOSX. Among several, the kit's own lessons/ (a
    cloned course) and untouched templates (a backup beside the real file) give way to any other;
    then the shallowest path wins."""
    candidates = _candidates(_files(folder), lesson)
    if len(candidates) > CANDIDATE_LIMIT:
        return None, say("class_too_many_candidates", lang, count=len(candidates), limit=CANDIDATE_LIMIT)
    if len(candidates) > 1:
        candidates = _likely(candidates, folder, lesson)
    if not candidates:
        return None, say("class_no_exercise", lang, file=lesson.exercise.name)
    chosen = min(candidates, key=lambda name: (name.count("/"), name))
    if len(candidates) > 1 and not _named_as_exercise(chosen, lesson):
        return None, say("class_several_py", lang, file=lesson.exercise.name)
    path = folder / chosen
    shown = printable_name(path.relative_to(root or folder).as_posix())
    try:
        _vetted(path, shown, lang)
    except Refused as refusal:
        return None, str(refusal)
    return path, say("class_flag_several", lang, file=shown) if len(candidates) > 1 else ""


def _files(folder: Path) -> list[str]:
    """The paths of the files under `folder`, relative to it, sorted, down to DEPTH_LIMIT folders
    deep; linked folders are not entered, hidden ones not even listed (a .venv or .git can hold
    thousands). A walk of its own, not os.walk: that recurses a level a folder (until 3.12)."""
    found, todo = [], [("", 0)]
    while todo:
        relative, depth = todo.pop()
        try:
            with os.scandir(folder / relative) as entries:
                for entry in entries:
                    if entry.is_dir(follow_symlinks=False):
                        if not _hidden(entry.name) and depth < DEPTH_LIMIT:
                            todo.append((f"{relative}{entry.name}/", depth + 1))
                    else:
                        found.append(relative + entry.name)
        except OSError:  # unreadable: nothing in it to grade, as os.walk would skip it
            continue
    return sorted(found)


def _hidden(part: str) -> bool:
    return part.startswith(".") or part in SKIPPED


def _candidates(names: list[str], lesson: Lesson) -> list[str]:
    """Of a submission's files (relative paths), those that may be the exercise."""
    visible = [name for name in names if name.count("/") <= DEPTH_LIMIT
               and not any(_hidden(part) for part in name.split("/"))]
    named = [name for name in visible if _named_as_exercise(name, lesson)]
    return named or [name for name in visible if name.casefold().endswith(".py")]


def _named_as_exercise(name: str, lesson: Lesson) -> bool:
    return name.rsplit("/", 1)[-1].casefold() == lesson.exercise.name.casefold()


def _likely(candidates: list[str], folder: Path, lesson: Lesson) -> list[str]:
    """The candidates but those less likely to be the student's work, as long as one is left."""
    template = shape_of(lesson.exercise)
    for unlikely in (lambda name: "lessons" in name.split("/")[:-1],
                     lambda name: _is_template(folder / name, template)):
        candidates = [name for name in candidates if not unlikely(name)] or candidates
    return candidates


def _is_template(path: Path, template: str) -> bool:
    try:  # read as Python reads it: a BOM or a `# coding:` line chooses the encoding
        source, _ = read_submitted(path, "", "en")
        text = source.decode(tokenize.detect_encoding(io.BytesIO(source).readline)[0])
    except (Refused, SyntaxError, UnicodeDecodeError, LookupError):  # unreadable: no template
        return False
    return code_shape(text) == template


def _vetted(path: Path, shown: str, lang: str, entry: bool = False) -> os.stat_result:
    """What `path` itself is (lstat: no link followed), if the grader may read it: a regular file
    of at most FILE_LIMIT bytes; or, a student's entry in SUBMISSIONS (`entry`), a folder or a
    file of any size (a zip holds more than its exercise). Else Refused, with why: a link (even to
    a classmate's file inside the submissions folder), a FIFO or device (reading it could wait for
    ever), too large."""
    try:
        info = os.lstat(path)
    except OSError as error:
        raise Refused(say("class_unreadable", lang, file=shown, problem=error.strerror)) from None
    if stat.S_ISLNK(info.st_mode):
        raise Refused(say("class_link", lang, file=shown))
    if stat.S_ISDIR(info.st_mode) and entry:
        return info
    if not stat.S_ISREG(info.st_mode):
        raise Refused(say("class_not_a_file", lang, file=shown))
    if info.st_size > FILE_LIMIT and not entry:
        raise Refused(say("class_too_large", lang, file=shown, size=f"{info.st_size / 2 ** 20:.1f}",
                          limit=FILE_LIMIT // 2 ** 20))
    return info


# Opening never follows a link nor waits on a FIFO put in the vetted file's place meanwhile.
_OPENING = os.O_RDONLY | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_BINARY", 0)


def read_submitted(path: Path, shown: str, lang: str) -> tuple[bytes, os.stat_result]:
    """The bytes of a handed-in file and what it is, read only once vetted (_vetted), from the
    very file vetted, and never more than FILE_LIMIT bytes of it, whatever it grew to."""
    _vetted(path, shown, lang)
    try:
        with open(os.open(path, _OPENING), "rb") as file:
            info = os.fstat(file.fileno())
            if not stat.S_ISREG(info.st_mode):  # it changed since it was vetted
                raise Refused(say("class_not_a_file", lang, file=shown))
            source = file.read(FILE_LIMIT + 1)
    except OSError as error:
        raise Refused(say("class_unreadable", lang, file=shown, problem=error.strerror)) from None
    if len(source) > FILE_LIMIT:
        raise Refused(say("class_too_large", lang, file=shown, size=f"> {FILE_LIMIT / 2 ** 20:.1f}",
                          limit=FILE_LIMIT // 2 ** 20))
    return source, info


def _unzip(archive: Path, shown: str, target: Path, lesson: Lesson, lang: str) -> tuple[Path | None, str]:
    """The exercise file of a zip, chosen as in a folder. Only the candidates are unpacked (what
    else a zipped repository holds, such as its .git, is no concern), nothing outside `target`, and
    no link: a candidate that is one (symlink mode bits) refuses the zip."""
    try:
        with open(os.open(archive, _OPENING), "rb") as file:
            if os.fstat(file.fileno()).st_size > ZIP_FILE_LIMIT:
                return None, say("class_zip_too_large", lang, limit=ZIP_FILE_LIMIT // 2 ** 20)
            with zipfile.ZipFile(file) as bundle:
                members = {member.filename: member for member in bundle.infolist() if not member.is_dir()}
                for name in members:
                    if Path(name).is_absolute() or ".." in Path(name).parts:
                        return None, say("class_zip_unsafe", lang, name=repr(printable_name(name)))
                candidates = _candidates(sorted(members), lesson)
                if len(candidates) > CANDIDATE_LIMIT:  # before any is unpacked
                    return None, say("class_too_many_candidates", lang, count=len(candidates), limit=CANDIDATE_LIMIT)
                for name in candidates:
                    if stat.S_IFMT(members[name].external_attr >> 16) not in (0, stat.S_IFREG):
                        return None, say("class_zip_link", lang, zip=shown, name=printable_name(name))
                if sum(members[name].file_size for name in candidates) > ZIP_LIMIT:
                    return None, say("class_zip_too_big", lang, limit=ZIP_LIMIT // 2 ** 20)
                for name in candidates:
                    destination = target / name
                    destination.parent.mkdir(parents=True, exist_ok=True)
                    destination.write_bytes(bundle.read(members[name]))
    except (zipfile.BadZipFile, zlib.error, OSError, RuntimeError, EOFError, NotImplementedError, ValueError) as error:
        return None, say("class_bad_zip", lang, problem=printable_name(str(error)))
    return exercise_file(target, lesson, lang)


# A string literal (its prefix, its quotes, what it holds) or a comment: what splits the code up.
# A literal left open runs to the end of the file (three quotes) or of its line (one), as Python's
# tokenizer reads it: were it no literal, each quote after it would scan the rest of the file
# again, and a file of unclosed quotes would take hours (time grows with the square of its size).
_LITERAL_OR_COMMENT = re.compile(r"""([rRbBuUfF]{0,2}(?:'{3}(?:\\.|\\\Z|[^\\])*?(?:'{3}|\Z)"""
                                 r"""|"{3}(?:\\.|\\\Z|[^\\])*?(?:"{3}|\Z)"""
                                 r"""|'(?:\\.|[^\\'\n])*(?:'|(?=\n)|\\?\Z)|"(?:\\.|[^\\"\n])*(?:"|(?=\n)|\\?\Z))|#[^\n]*)""", re.S)
_BETWEEN_WORDS = re.compile(r"(?<=\w)(?:\s|\\\n)+(?=\w)")  # the space that keeps `return x` from `returnx`
_NAME = re.compile(r"(?<![\w.])[^\W\d]\w*")  # not an attribute's: json.loads and ast.literal_eval stay apart
_KEYWORDS = frozenset(keyword.kwlist + keyword.softkwlist)


def _name_aside(name: re.Match) -> str:
    """A name, not a keyword, becomes "_": renaming a variable hides no copy."""
    return name[0] if name[0] in _KEYWORDS else "_"
_SPACE = re.compile(r"(?:\s|\\\n)+")


_DOCSTRING_BEFORE = re.compile(r"(?::|\A)\s*\Z")  # a string right after a def's or class's colon, or first
_F_FIELD = re.compile(r"\{[^{}]*\}")  # an f-string's replacement field: code, its names set aside too


def _fields_aside(field: re.Match) -> str:
    return _NAME.sub(_name_aside, field[0])


def _body(literal: str, prefix: str) -> str:
    """What a literal holds between its quotes, whichever quotes a copier chose."""
    quotes = 3 if literal[len(prefix):len(prefix) + 3] in ('"""', "'''") else 1
    return literal[len(prefix) + quotes:len(literal) - quotes]


_PASS = re.compile(r"(?<![\w.])pass(?!\w)")  # a statement that does nothing: one more hides no copy


def normalised(source: str) -> str:
    """The code without comments and without spaces, blank lines or indents but one space between
    two words, every name but the keywords and attributes as "_" (in an f-string's fields too),
    plain docstrings as comments, no `pass`; its other strings by what they hold, in one kind of
    quotes, adjacent ones joined ("a" "b" is "ab"): to spot copies, as code-similarity tools do
    (MOSS, JPlag). Regular expressions do it in C (a file in about a millisecond, tokenize's Python
    takes 2.6), and code that does not parse has a shape too."""
    pieces, literals = [""], []  # the code between two literals; the literals, as (prefix, body)
    for index, part in enumerate(_LITERAL_OR_COMMENT.split(source)):
        if index % 2 == 0:
            pieces[-1] += part
        elif not part.startswith("#"):  # a comment is left out, the code on each side joined
            prefix = part[:len(part) - len(part.lstrip("rRbBuUfF"))].lower()
            if not prefix and part[:3] in ('"""', "'''") and _DOCSTRING_BEFORE.search(pieces[-1]):
                literals.append(("", ""))  # a docstring, as a comment: words a copier may change
            else:
                body = _body(part, prefix)
                literals.append((prefix, _F_FIELD.sub(_fields_aside, body) if "f" in prefix else body))
            pieces.append("")
    joined = _NAME.sub(_name_aside, _PASS.sub("", "\1".join(pieces)))
    code = _SPACE.sub("", _BETWEEN_WORDS.sub("\0", joined)).replace("\0", " ").split("\1")
    shaped = []  # (None, code) or (prefix, what a literal holds), adjacent literals of one prefix joined
    for piece, literal in zip(code, literals + [None]):
        if piece:
            shaped.append((None, piece))
        if literal and shaped and piece == "" and shaped[-1][0] == literal[0]:  # "a" "b" is "ab"
            shaped[-1] = (literal[0], shaped[-1][1] + literal[1])
        elif literal:
            shaped.append(literal)
    return "".join(text if prefix is None else f'{prefix}"{text}"' for prefix, text in shaped)


def code_shape(source: str) -> str:
    """A digest of the normalised code: equal for copies."""
    return hashlib.sha256(normalised(source).encode("utf-8", "surrogatepass")).hexdigest()[:24]


@lru_cache(maxsize=8)
def shape_of(kit_file: Path) -> str:
    """code_shape of a file of the kit's (a template, a solution), read once however many students'
    folders are compared with it."""
    return code_shape(read_source(kit_file))
