"""A student who attacks the class run (`validate.py grade`) through what they hand in: links,
names, zips. Each attack is graded as one class with innocent students before and after it
(--jobs 1: one warm worker grades them all, in name order), and each test asserts that

- the run completes (exit status 0, no traceback), whatever the entry is;
- the innocents' outputs (results.json, feedback.txt, their grades.csv rows) are byte for byte
  those of a class run without the attacker: same folder, same grade, no flag made by the attack
  (but for the clashes of names and the hard link, where the flag naming both is the point);
- the attacker gets no more than their own code deserves: the untouched template's 0, or nothing.

The old code (before these tests) followed links inside the submissions folder, let a name take
another student's hashed folder, marked a student missing beside a second file of the same stem,
ended with a traceback on a link loop and printed bidi controls raw; each test says what it did.
A few it refused already (a FIFO, /dev/zero, a loop inside a folder): kept, as the same mechanism
now refuses them; on the old code they fail only on naming no file for a student refused.
"""
from __future__ import annotations

import csv
import json
import os
import shutil
import stat
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

from validator.isolation import jail

ROOT = Path(__file__).resolve().parent.parent
CORPUS = ROOT / "tests" / "submissions" / "day06"
TEMPLATE = ROOT / "lessons" / "day06" / "day06.py"
SOLUTION = ROOT / "solutions" / "day06.py"

pytestmark = [pytest.mark.slow, pytest.mark.skipif(sys.platform != "linux", reason="links, FIFOs, file names as bytes")]

# The innocents, by their file in the submissions folder: before the attackers' names (m…) and after.
INNOCENTS = {"amy.py": "good_regex.py", "bea/day06.py": "bad_history_reversed.py",
             "bob smith.zip": "good_separators.py", "yan.py": "bad_returns_none.py", "zoë.py": "good_lines_dict.py"}


def innocent_class(folder: Path) -> Path:
    subs = folder / "subs"
    for name, source in INNOCENTS.items():
        (subs / name).parent.mkdir(parents=True, exist_ok=True)
        if name.endswith(".zip"):
            with zipfile.ZipFile(subs / name, "w") as bundle:
                bundle.write(CORPUS / source, "day06.py")
        else:
            shutil.copy(CORPUS / source, subs / name)
    return subs


def grade(subs: Path, out: Path) -> subprocess.CompletedProcess:
    env = {k: v for k, v in os.environ.items() if k not in ("LANGUAGE", "LC_MESSAGES", "LANG")}
    env.update(LC_ALL="C.UTF-8", PYTHONIOENCODING="utf-8")
    unjailed = ["--allow-unisolated"] if jail.unavailable_reason() else []  # the jail is not what is tried here
    done = subprocess.run([sys.executable, "validate.py", "grade", "day06", str(subs), "--out", str(out),
                           "--jobs", "1", "--seed", "48213", *unjailed], cwd=ROOT, env=env, capture_output=True,
                          text=True, timeout=600)
    assert done.returncode == 0 and "Traceback" not in done.stdout + done.stderr, done.stdout + done.stderr
    return done


def by_file(out: Path) -> dict[str, dict]:
    """Each student's record (grades.json), by the file graded or handed in, with its grades.csv
    row (without the measured seconds) and its outputs' bytes."""
    with (out / "grades.csv").open(encoding="utf-8-sig") as table:
        rows = {row["student"]: {k: v for k, v in row.items() if k != "seconds"} for row in csv.DictReader(table)}
    found = {}
    for record in json.loads((out / "grades.json").read_text(encoding="utf-8"))["students"]:
        folder = out / "students" / record["folder"]
        found[record["file"]] = dict(record, row=rows[record["student"]], **{
            name: (folder / name).read_bytes() if (folder / name).exists() else None
            for name in ("results.json", "feedback.txt")})
    return found


@pytest.fixture(scope="module")
def control(tmp_path_factory):
    """The innocents alone."""
    folder = tmp_path_factory.mktemp("control")
    subs = innocent_class(folder)
    grade(subs, folder / "out")
    return by_file(folder / "out")


def attacked(tmp_path: Path, attack) -> tuple[dict, subprocess.CompletedProcess]:
    """The innocents with the attacker `attack(subs)` puts among them, graded as one class."""
    subs = innocent_class(tmp_path)
    attack(subs)
    done = grade(subs, tmp_path / "out")
    return by_file(tmp_path / "out"), done


def innocents_untouched(control: dict, graded: dict, but: tuple[str, ...] = ()) -> None:
    """Every innocent's outputs and row as without the attacker; for those in `but`, the outputs
    and the grade alone (a flag names the attacker beside them, and their name may say which file)."""
    shown = {name: (f"{name}:day06.py" if name.endswith(".zip") else name) for name in INNOCENTS}
    for name, file in shown.items():
        alone, among = control[file], graded[file]
        assert (among["results.json"], among["feedback.txt"]) == (alone["results.json"], alone["feedback.txt"]), file
        if name in but:
            assert {k: v for k, v in among["row"].items() if k not in ("student", "flags")} == \
                   {k: v for k, v in alone["row"].items() if k not in ("student", "flags")}, file
        else:
            assert (among["row"], among["folder"]) == (alone["row"], alone["folder"]), file


def refused(graded: dict, file: str, why: str) -> None:
    """The attacker has nothing graded, with a reason that says why."""
    record = graded[file]
    assert (record["status"], record["score"], record["results.json"]) == ("missing", 0, None), record
    assert why in record["problem"], record["problem"]


# ---------------------------------------------------------------- links: never followed

def _link(path: str, target: str):
    def attack(subs: Path) -> None:
        (subs / path).parent.mkdir(parents=True, exist_ok=True)
        (subs / path).symlink_to(target)
    return attack


@pytest.mark.parametrize("path, target", [
    ("mal.py", "amy.py"),  # old: graded as amy's code and score; amy flagged as mal's copy
    ("mal/day06.py", "../amy.py"),  # old: the same, from inside mal's folder
    ("mal", "bea"),  # a student folder that is a link: old: bea's file graded as mal's
    ("mal.py", "mal.py"),  # a link loop: old: RuntimeError traceback (Path.resolve), no gradebook
    ("mal/day06.py", "day06.py"),  # a loop inside a folder: old: refused already, as a link to nothing
    ("mal.py", "/dev/zero"),  # old: refused already (stat: not a regular file), never read
], ids=["to-a-classmate", "inside-a-folder", "folder-is-a-link", "loop", "loop-inside-a-folder", "dev-zero"])
def test_a_link_is_never_followed(control, tmp_path, path, target):
    graded, _ = attacked(tmp_path, _link(path, target))
    innocents_untouched(control, graded)
    refused(graded, path.split("/")[0], f"{path} is a link, and links are never followed")


def test_a_link_to_a_fifo_is_never_opened(control, tmp_path):
    # old: refused already (stat: a FIFO is not a regular file); a FIFO opened to read waits for ever
    os.mkfifo(tmp_path / "fifo")
    graded, _ = attacked(tmp_path, _link("mal/day06.py", str(tmp_path / "fifo")))
    innocents_untouched(control, graded)
    refused(graded, "mal", "mal/day06.py is a link")


def test_a_link_inside_a_zip_is_refused(control, tmp_path):
    """A zip entry with symlink mode bits (as `zip --symlinks` stores one): its text is the link's
    target. Old: unpacked as a file holding "../amy.py", graded as a syntax error, no word of a link."""
    def attack(subs: Path) -> None:
        entry = zipfile.ZipInfo("day06.py")
        entry.external_attr = (stat.S_IFLNK | 0o777) << 16
        with zipfile.ZipFile(subs / "mal.zip", "w") as bundle:
            bundle.writestr(entry, "../amy.py")
    graded, _ = attacked(tmp_path, attack)
    innocents_untouched(control, graded)
    refused(graded, "mal.zip", "day06.py in mal.zip is a link")


def test_a_hard_link_is_one_file_under_two_names_and_both_are_told(control, tmp_path):
    """A hard link is not a way to another file: it is the file, under a second name, made only by
    someone who may read and write it (fs.protected_hardlinks), so who may copy it. Each name is
    graded on the bytes it holds, as a copy is, and each is flagged with all the names, which a copy
    is not. Old: flagged only as the same code."""
    graded, _ = attacked(tmp_path, lambda subs: os.link(subs / "amy.py", subs / "mal.py"))
    innocents_untouched(control, graded, but=("amy.py",))
    assert graded["mal.py"]["score"] == graded["amy.py"]["score"]  # amy's bytes are the file mal handed in
    for student in ("amy.py", "mal.py"):
        assert "one file on disk, handed in under several names (amy, mal: hard links)" in graded[student]["row"]["flags"]


# ---------------------------------------------------------------- names: no folder taken, no student dropped

@pytest.mark.parametrize("suffix", [".py", ".zip"])
def test_a_name_like_another_students_folder_takes_nothing(control, tmp_path, suffix):
    """"bob smith" is no safe folder name, so bob's outputs go to a hashed folder; a student named
    as that folder is. Old (bob_smith-3f2a9c1e): the same folder, bob gone from the gradebooks; as
    a zip, both unpacked into one staging folder."""
    taken = control["bob smith.zip:day06.py"]["folder"]

    def attack(subs: Path) -> None:
        if suffix == ".zip":
            with zipfile.ZipFile(subs / f"{taken}.zip", "w") as bundle:
                bundle.write(TEMPLATE, "day06.py")
        else:
            shutil.copy(TEMPLATE, subs / f"{taken}.py")
    graded, _ = attacked(tmp_path, attack)
    innocents_untouched(control, graded)
    mal = graded[f"{taken}{suffix}" + (":day06.py" if suffix == ".zip" else "")]
    assert mal["folder"] != taken and mal["score"] == 0


@pytest.mark.parametrize("attacker, innocent", [
    ("amy.zip", "amy.py"),  # old: "duplicate name", amy marked missing
    ("Amy.py", "amy.py"),  # a name that differs only by case; old: two students named alike, no word
    ("zoe\u0308.py", "zoë.py"),  # the same name in NFD (macOS writes it so); old: two "zoë" rows, no word
    ("amy\u200b.py", "amy.py"),  # a zero-width space shows nothing; old: two "amy" rows, no word
])
def test_several_submissions_under_one_name_are_each_graded_and_both_named(control, tmp_path, attacker, innocent):
    def attack(subs: Path) -> None:
        if attacker.endswith(".zip"):
            with zipfile.ZipFile(subs / attacker, "w") as bundle:
                bundle.write(TEMPLATE, "day06.py")
        else:
            shutil.copy(TEMPLATE, subs / attacker)
    graded, done = attacked(tmp_path, attack)
    innocents_untouched(control, graded, but=(innocent,))
    shown = {name: name.encode("unicode_escape").decode("ascii") for name in (attacker, innocent)}
    mal = graded[attacker + (":day06.py" if attacker.endswith(".zip") else "")]
    assert mal["score"] == 0 and mal["status"] == "graded"  # the template's own 0
    assert graded[innocent]["student"] == shown[innocent] != mal["student"] == shown[attacker]
    for flags in (graded[innocent]["row"]["flags"], mal["row"]["flags"]):
        assert "one name, several submissions (" in flags and all(name in flags for name in shown.values())
    assert [line for line in done.stdout.splitlines()
            if line.startswith("⚑ ") and "one name" in line and all(name in line for name in shown.values())]


def test_a_name_printed_like_a_classmates_undecodable_one_is_a_clash_too(control, tmp_path):
    """A Latin-1 file name (a Windows zip's: jos\\xe9.py) prints its byte as \\xe9, and a classmate
    who typed that backslash printed alike: two rows under one name, no flag, and an override by
    that name went to whichever came last (a red team's find). Names printed alike now clash as
    names alike do: each graded, named by its own file, both flagged; the shared name takes no
    override."""
    def attack(subs: Path) -> None:
        shutil.copy(SOLUTION, os.path.join(os.fsencode(subs), b"jos\xe9.py"))
        shutil.copy(TEMPLATE, subs / "jos\\xe9.py")
        (tmp_path / "out").mkdir()
        (tmp_path / "out" / "overrides.csv").write_text("student,target,points,comment\njos\\xe9,TODO 4.1,10,late\n",
                                                        encoding="utf-8")
    graded, done = attacked(tmp_path, attack)
    innocents_untouched(control, graded)
    records = {r["student"]: r for r in json.loads((tmp_path / "out" / "grades.json").read_text(encoding="utf-8"))[
        "students"] if r["student"].startswith("jos")}
    assert {name: record["score"] for name, record in records.items()} == {"jos\\udce9.py": 26, "jos\\\\xe9.py": 0}
    assert all(any("one name, several submissions" in flag for flag in record["flags"]) and "overrides" not in record
               for record in records.values())
    assert "Overrides not applied (1)" in done.stdout


@pytest.mark.parametrize("attacker, innocent_keeps_it", [
    ("Amy.py", True),  # old: both renamed, amy's override matched no one
    ("amy", False),  # a folder: old: it was named "amy" and took amy's override
])
def test_a_clash_of_names_never_hands_a_classmates_override_to_the_attacker(control, tmp_path, attacker,
                                                                           innocent_keeps_it):
    """An override written for "amy" stays amy.py's when a classmate hands in a name like hers: hers
    when only amy.py was handed in as "amy" exactly, else no one's (said, kept in overrides.csv)."""
    def attack(subs: Path) -> None:
        (subs / attacker).parent.mkdir(parents=True, exist_ok=True)
        target = subs / attacker / "day06.py" if "." not in attacker else subs / attacker
        target.parent.mkdir(parents=True, exist_ok=True)
        shutil.copy(TEMPLATE, target)
        (tmp_path / "out").mkdir()
        (tmp_path / "out" / "overrides.csv").write_text("student,target,points,comment\namy,TODO 1.2,0,seen\n",
                                                        encoding="utf-8")
    graded, done = attacked(tmp_path, attack)
    mal = graded[attacker if "." in attacker else f"{attacker}/day06.py"]
    assert mal["score"] == 0 and "overrides" not in mal and mal["student"] != "amy"
    amy = graded["amy.py"]
    assert ("overrides" in amy) is innocent_keeps_it and ("Overrides not applied (1)" in done.stdout) is not innocent_keeps_it
    if innocent_keeps_it:
        assert amy["overrides"][0]["comment"] == "seen" and amy["score"] < control["amy.py"]["score"]


def test_an_override_by_a_name_that_is_a_classmates_folder_is_refused(control, tmp_path):
    """Named as bob's hashed folder, a student's name in grades.csv is that folder: an override the
    instructor writes for them by that name matched bob (by folder, first). It is now refused,
    naming both, and made by the attacker's own folder it lands on the attacker alone."""
    taken = control["bob smith.zip:day06.py"]["folder"]

    def attack(subs: Path) -> None:
        shutil.copy(SOLUTION, subs / f"{taken}.py")
    graded, _ = attacked(tmp_path, attack)
    mal = graded[f"{taken}.py"]
    assert mal["student"] == taken and mal["folder"] != taken
    override = [sys.executable, "validate.py", "override", str(tmp_path / "out"), taken, "TODO 4.1", "0"]
    done = subprocess.run(override, cwd=ROOT, capture_output=True, text=True, timeout=120)
    assert done.returncode == 2 and "is the folder of bob smith and the name of the student whose folder is " \
        f"{mal['folder']}" in done.stderr and not (tmp_path / "out" / "overrides.csv").exists()
    override[4] = mal["folder"]
    assert subprocess.run(override, cwd=ROOT, capture_output=True, text=True, timeout=120).returncode == 0
    with (tmp_path / "out" / "overrides.csv").open(encoding="utf-8-sig") as table:
        assert list(csv.reader(table))[1][0] == mal["folder"]
    graded = by_file(grade(tmp_path / "subs", tmp_path / "out") and tmp_path / "out")
    assert graded[f"{taken}.py"]["overrides"] and "overrides" not in graded["bob smith.zip:day06.py"]
    assert graded["bob smith.zip:day06.py"]["score"] == control["bob smith.zip:day06.py"]["score"]


# ---------------------------------------------------------------- what the instructor's terminal shows

def test_names_cannot_reorder_or_redraw_the_instructors_terminal(control, tmp_path):
    """U+202E turns "mal\u202eyp.live" into what reads as "mallive.py"; the other bidi controls and
    escape sequences as much. Old: bidi controls printed raw (escape sequences were escaped)."""
    names = ["mal\u202eyp.live.py", "mam\u2066x\u2069.py", "man\u200e\u200f\u061c.py", "mao\x1b[2J.py",
             "map\u2028x\u2029.py"]  # line and paragraph separators: a line of its own in an editor

    def attack(subs: Path) -> None:
        for name in names:
            shutil.copy(TEMPLATE, subs / name)  # untouched templates, so named in a flag on the terminal
    graded, done = attacked(tmp_path, attack)
    innocents_untouched(control, graded)
    printed = done.stdout + done.stderr
    assert not set(printed) & {"\u202e", "\u2066", "\u2069", "\u200e", "\u200f", "\u061c", "\x1b", "\u2028", "\u2029"}
    assert "mal\\u202eyp.live" in printed and "man\\u200e\\u200f\\u061c" in printed and "map\\u2028x" in printed
    everything = "".join(p.read_text(encoding="utf-8") for p in (tmp_path / "out").rglob("*") if p.is_file())
    assert "\u202e" not in everything and "\u2028" not in everything


def test_a_line_break_in_a_name_cannot_draw_a_flag_against_a_classmate(control, tmp_path):
    """A name that holds line breaks printed lines of its own: "⚑ amy: same as the reference
    solution" under the run's flags, and a row over three lines in grades.csv. Old: printed raw."""
    name = "mal: untouched template\n⚑ amy: same as the reference solution\n⚑ zed.py"

    def attack(subs: Path) -> None:
        shutil.copy(TEMPLATE, subs / name)
    graded, done = attacked(tmp_path, attack)
    innocents_untouched(control, graded)
    flags = [line for line in done.stdout.splitlines() if line.startswith("⚑")]
    assert flags == ["⚑ mal: untouched template\\n⚑ amy: same as the reference solution\\n⚑ zed: untouched template"]
    lines = (tmp_path / "out" / "grades.csv").read_text(encoding="utf-8-sig").splitlines()
    assert len(lines) == 1 + len(graded)  # a heading, then one line a student


def test_words_a_learners_code_raises_are_never_markup_on_the_terminal(control, tmp_path):
    """The summary's table quotes the commonest failures, which quote what the learner's code
    raised: "[/bold]" in it ended the run with rich's MarkupError. Old: a traceback, exit 1."""
    source = TEMPLATE.read_text(encoding="utf-8").replace(
        'raise NotImplementedError("TODO 1.2', 'raise RuntimeError("[/bold] [red]oops")\n    raise NotImplementedError("TODO 1.2', 1)
    assert "[/bold]" in source

    def attack(subs: Path) -> None:
        (subs / "mal.py").write_text(source, encoding="utf-8")
    graded, done = attacked(tmp_path, attack)
    innocents_untouched(control, graded)
    assert "[/bold] [red]oops" in done.stdout


def test_a_tree_deeper_than_pythons_recursion_limit_stops_nothing(control, tmp_path):
    """os.walk (until 3.12) and shutil.rmtree recurse a level a folder: a repository 1,200 folders
    deep, or a zip whose file lies that deep, ended the run with RecursionError before any
    gradebook, and left the staging folder behind. Now what lies deeper than 20 folders is not
    looked at: the attacker's deep file is not found, their shallow one is graded."""
    def attack(subs: Path) -> None:
        os.mkdir(subs / "mal")
        fd = os.open(subs / "mal", os.O_RDONLY)
        try:
            for _ in range(1200):  # a level at a time from a descriptor: the path itself grows past PATH_MAX
                os.mkdir("z", dir_fd=fd)
                inner = os.open("z", os.O_RDONLY, dir_fd=fd)
                os.close(fd)
                fd = inner
            with open(os.open("day06.py", os.O_WRONLY | os.O_CREAT, 0o644, dir_fd=fd), "w") as file:
                file.write(TEMPLATE.read_text(encoding="utf-8"))
        finally:
            os.close(fd)
        with zipfile.ZipFile(subs / "max.zip", "w") as bundle:
            bundle.writestr("z/" * 1200 + "day06.py", TEMPLATE.read_text(encoding="utf-8"))
            bundle.write(TEMPLATE, "day06.py")
    try:
        graded, done = attacked(tmp_path, attack)
    finally:
        take_apart(tmp_path / "subs" / "mal")  # pytest's clean-up of old temporary folders would recurse too
    innocents_untouched(control, graded)
    refused(graded, "mal", "no day06.py")
    assert graded["max.zip:day06.py"]["score"] == 0 and graded["max.zip:day06.py"]["status"] == "graded"


def test_a_prompt_built_to_slow_the_checks_costs_no_one_else_and_is_graded(control, tmp_path, monkeypatch):
    """A red team's find: a correct agent that glues "Thought" and 60,000 spaces, never closed by a
    colon, after each Observation of a long run. The checks' label patterns (Thought\\s*\\**\\s*:)
    tried every split of the spaces, minutes of the worker's own time (which the child's limit
    does not bound) a check, at full marks; a class of such files held every worker. Each pattern
    now reads spaces one way. The run's backstop for the grader's time a student takes is set to
    two minutes here: the attacker is graded (full marks: the agent works), not stopped by it."""
    source = SOLUTION.read_text(encoding="utf-8")
    observation = 'f"Observation: {step.observation}\\n"'
    assert observation in source  # the solution writes each step's observation on a line of its own
    padded = source.replace(observation, 'f"Observation: {step.observation}" + ("Thought" + " " * 60000 + "x" '
                                         'if len(steps) >= 6 else "") + "\\n"')
    monkeypatch.setenv("REACTLINGS_STUDENT_SECONDS", "120")
    graded, _ = attacked(tmp_path, lambda subs: (subs / "mallory.py").write_text(padded, encoding="utf-8"))
    innocents_untouched(control, graded)
    assert (graded["mallory.py"]["status"], graded["mallory.py"]["score"]) == ("graded", 26)


def take_apart(top: Path) -> None:
    """Remove a chain of folders too deep for shutil.rmtree, a level at a time."""
    while (top / "z").is_dir():
        (top / "z").rename(top.with_name("peeled"))
        shutil.rmtree(top)
        top.with_name("peeled").rename(top)
    shutil.rmtree(top)


def test_a_zip_of_countless_files_is_refused_before_any_is_unpacked(control, tmp_path):
    """200,000 empty .py files in a 21 MB zip took 21 s of every run (each unpacked, then read to
    see whether it was the template); no limit held it. Now more candidates than a hundred refuse
    the zip at once, and so does a zip larger than 32 MB."""
    def attack(subs: Path) -> None:
        with zipfile.ZipFile(subs / "mal.zip", "w") as bundle:
            for number in range(150):
                bundle.writestr(f"x{number}.py", "")
        with open(subs / "max.zip", "wb") as big:
            big.truncate(33 * 2 ** 20)  # not read at all: its size refuses it
    graded, done = attacked(tmp_path, attack)
    innocents_untouched(control, graded)
    refused(graded, "mal.zip", "150 files that could be the exercise, more than 100")
    refused(graded, "max.zip", "larger than 32 MB")


def test_a_folder_name_in_a_handed_in_repository_cannot_draw_a_fake_pass(tmp_path):
    """validate.py --submission (Gradescope's autograder) says which file it grades, by its path
    in the repository. Old: printed raw, so a folder named with escape sequences drew its own line."""
    fake = "\x1b[1A\x1b[2K\u202eAll checks pass"
    (tmp_path / "repo" / fake).mkdir(parents=True)
    shutil.copy(TEMPLATE, tmp_path / "repo" / fake / "day06.py")
    done = subprocess.run([sys.executable, "validate.py", "day06", "--submission", str(tmp_path / "repo")], cwd=ROOT,
                          capture_output=True, text=True, timeout=300, env=dict(os.environ, PYTHONIOENCODING="utf-8"))
    assert done.returncode == 1, done.stdout + done.stderr  # the template: graded, 0
    printed = done.stdout + done.stderr
    assert "\x1b" not in printed and "\u202e" not in printed
    assert "file to grade: \\x1b[1A\\x1b[2K\\u202eAll checks pass/day06.py" in printed


# ---------------------------------------------------------------- unjailed: only when the instructor says so

def test_grade_refuses_to_grade_unjailed_unless_allowed(tmp_path):
    """Old: a one-line warning, then every student graded unjailed, able to read the seed and the
    gradebooks' folder on the grader's command line and rewrite the others' results."""
    subs = innocent_class(tmp_path)
    env = dict(os.environ, LC_ALL="C.UTF-8", PYTHONIOENCODING="utf-8", **{jail.OFF_VARIABLE: "off"})
    command = [sys.executable, "validate.py", "grade", "day06", str(subs), "--out", str(tmp_path / "out"), "--jobs", "1"]
    refusal = subprocess.run(command, cwd=ROOT, env=env, capture_output=True, text=True, timeout=120)
    assert refusal.returncode == 2 and not (tmp_path / "out").exists()
    assert len(refusal.stderr.strip().splitlines()) == 1 and "Traceback" not in refusal.stderr
    assert "rewrite other students' results" in refusal.stderr and "--allow-unisolated" in refusal.stderr
    allowed = subprocess.run([*command, "--allow-unisolated"], cwd=ROOT, env=env, capture_output=True, text=True,
                             timeout=600)
    assert allowed.returncode == 0, allowed.stdout + allowed.stderr
    assert "warning: isolation turned off" in allowed.stderr
    with (tmp_path / "out" / "grades.csv").open(encoding="utf-8-sig") as table:
        assert len(list(csv.DictReader(table))) == len(INNOCENTS)
