"""Isolation by user only (validator/isolation/jail.py's second level), proved as test_isolation.py proves the
jail: the untouched template with an attack of tests/adversarial/ appended, graded as an instructor
grades on Gradescope or PrairieLearn (root; the seed in $REACTLINGS_SEED, never on the command line;
--require-isolation), and every test asserts that it gained nothing.

The level is forced (REACTLINGS_SANDBOX=user): this machine can build the jail. The machine must
have no network but loopback for the level to count: the tests give the grader a list of
interfaces with loopback alone (REACTLINGS_NET_DEVICES), and one with eth0 to see it refused. The
grader runs a copy of the kit in a folder closed to other users, as the Gradescope bundle and the
PrairieLearn export close theirs; the submissions and results lie in pytest's folders, closed too.
As in a grading container, that copy is the only kit on the machine: the grader runs in a mount
namespace of its own (ALONE) where the folder that holds this kit (here the worktrees and
the main one, all open to other users) and /tmp (other copies, open too) are empty, but for pytest's
folders. The children get no namespace of their own.

The child runs as a user of its own, so the Python it runs must be one other users may run, as a
grading image's is: where this one lies under a folder closed to others (a venv of a Python under
/root), that folder too is emptied in the grader's mount namespace but for this Python.
"""
from __future__ import annotations

import ast
import json
import os
import re
import shutil
import stat
import subprocess
import sys
import time
from pathlib import Path

import processes
import pytest

from validator.child import SANDBOX, launching
from validator.isolation import jail

ROOT = Path(__file__).resolve().parent.parent
ADVERSARIAL = Path(__file__).resolve().parent / "adversarial"
SECRET_KEY, SEED = "sk-secret-user-level", "73519"  # not the jail tests' seed: they may run beside these

# sh -c ALONE NAME KEPT... -- EMPTIED... -- COMMAND...: each EMPTIED folder an empty tmpfs (/tmp one anyone
# may write), but the KEPT folders, as they were; then COMMAND, in this mount namespace of its own.
ALONE = """
mount -t tmpfs none /mnt || exit 120
part=kept; n=0
for arg in "$@"; do
  if [ "$arg" = -- ]; then [ $part = kept ] && part=emptied && continue; break; fi
  if [ $part = kept ]; then mkdir /mnt/$n && mount --rbind "$arg" /mnt/$n || exit 120; n=$((n+1));
  else mount -t tmpfs -o mode=755 none "$arg" || exit 120; fi
done
chmod 1777 /tmp
n=0
for arg in "$@"; do [ "$arg" = -- ] && break; mkdir -p "$arg" && mount --rbind /mnt/$n "$arg" || exit 120; n=$((n+1)); done
while [ "$1" != -- ]; do shift; done; shift
while [ "$1" != -- ]; do shift; done; shift
exec "$@"
"""

# sh -c THEN_LOOK NAME COMMAND...: COMMAND, then whether the file write_everywhere leaves in /tmp is
# still there (in the grader's namespace: its /tmp is its own, gone with it)
THEN_LOOK = '"$@"; status=$?; [ -e /tmp/reactlings-was-here ] && echo "left behind: /tmp/reactlings-was-here"; exit $status'

pytestmark = [pytest.mark.slow, pytest.mark.skipif(sys.platform != "linux" or os.geteuid() != 0,
                                                   reason="isolation by user is for a grader that runs as root"),
              pytest.mark.skipif(not shutil.which("unshare"), reason="no unshare(1) to hide the other kits")]


def closed_above(path: str) -> list[tuple[str, str]]:
    """The folders above `path` that other users can't enter, each with its entry toward `path`."""
    parts = Path(os.path.realpath(path)).parts
    return [(str(Path(*parts[:i])), str(Path(*parts[:i + 1]))) for i in range(1, len(parts) - 1)
            if not os.stat(Path(*parts[:i])).st_mode & stat.S_IXOTH]


@pytest.fixture(scope="module")
def machine(tmp_path_factory) -> dict:
    """The kit copied into a folder other users can't enter, and the environment that forces the
    level on a machine whose only network interface is loopback."""
    top = tmp_path_factory.mktemp("user-level")
    top.chmod(0o700)
    kit = top / "kit"
    listed = subprocess.run(["git", "ls-files", "-co", "--exclude-standard", "-z"], cwd=ROOT, capture_output=True,
                            check=True).stdout.decode().split("\0")
    for name in filter(None, listed):
        if (ROOT / name).is_file():
            (kit / name).parent.mkdir(parents=True, exist_ok=True)
            (kit / name).write_bytes((ROOT / name).read_bytes())
    devices = top / "net"
    devices.mkdir()
    (devices / "lo").touch()
    env = dict(os.environ, OPENAI_API_KEY=SECRET_KEY, REACTLINGS_SEED=SEED, LC_ALL="C.UTF-8", PYTHONIOENCODING="utf-8",
               **{jail.OFF_VARIABLE: "user", jail.NET_VARIABLE: str(devices)})
    # This Python, as a grading image's is: open to other users (a venv, say, under /root, is not)
    python = [(closed, entry) for place in (sys.executable, sys.base_prefix) for closed, entry in closed_above(place)]
    kept = [str(tmp_path_factory.getbasetemp()), sys.prefix, *sorted({e for _, e in python})]
    # other copies of the kit, open to all, wherever a checkout of it may lie on this machine (the
    # attacks look there); not a folder above this one, which is emptied already
    elsewhere = [d for d in ("/work", "/home", "/srv", "/opt")
                 if Path(d).is_dir() and not ROOT.is_relative_to(d) and not Path(d).is_relative_to(ROOT.parent)]
    emptied = [str(ROOT.parent), "/tmp", *elsewhere, *sorted({c for c, _ in python})]
    alone = ["unshare", "--mount", "sh", "-c", ALONE, "alone", *kept, "--", *emptied, "--"]
    return {"kit": kit, "env": env, "top": top, "alone": alone, "python": [*alone, "sh", "-c", THEN_LOOK, "look", sys.executable]}


def submit(folder: Path, lesson: str, attack: str | None, name: str, **placeholders) -> Path:
    """folder/name: the lesson's template with the attack appended, as a student would write it."""
    text = (ROOT / "lessons" / lesson / f"{lesson}.py").read_text(encoding="utf-8")
    if attack:
        snippet = (ADVERSARIAL / f"{attack}.py").read_text(encoding="utf-8")
        for key, value in placeholders.items():
            snippet = snippet.replace(f"__{key.upper()}__", str(value))
        text += "\n\n" + snippet
    folder.mkdir(parents=True, exist_ok=True)
    (folder / name).write_text(text, encoding="utf-8")
    return folder / name


def grade(machine: dict, file: Path, results: Path, lesson: str = "day06") -> tuple[int, dict, str, str]:
    """(exit status, results.json, what the attack reported, the grader's output)."""
    done = subprocess.run([*machine["python"], "validate.py", lesson, "--file", str(file), "--format", "gradescope",
                           "--output", str(results), "--require-isolation"],
                          cwd=machine["kit"], env=machine["env"], capture_output=True, text=True, timeout=300)
    assert results.exists(), done.stdout + done.stderr
    text = results.read_text(encoding="utf-8")
    outputs = [test.get("output", "") for test in json.loads(text).get("tests", [])]
    found = next((m.group(1) for o in outputs if (m := re.search(r"ATTACK-RAN (.*)", o))), "")
    return done.returncode, json.loads(text), found, done.stdout + done.stderr


def attack(machine: dict, tmp_path: Path, name: str) -> tuple[int, dict, str, str]:
    results = tmp_path / "results.json"
    file = submit(tmp_path / "submissions", "day06", name, f"uidlevel-{name}.py", results=results)
    return grade(machine, file, results)


# ---------------------------------------------------------------- the level, chosen or refused

def test_a_machine_with_a_network_is_refused_the_level_with_the_reason(machine, tmp_path):
    (tmp_path / "lo").touch()
    (tmp_path / "eth0").touch()
    env = dict(machine["env"], **{jail.NET_VARIABLE: str(tmp_path)})
    said = subprocess.run([sys.executable, "-c", "from validator.isolation import jail; print(jail.unavailable_reason())"],
                          cwd=machine["kit"], env=env, capture_output=True, text=True, timeout=60).stdout
    assert "network interfaces besides loopback (eth0)" in said and said.startswith("isolation unavailable"), said
    refused = subprocess.run([sys.executable, "validate.py", "day06", "--solution", "--require-isolation"],
                             cwd=machine["kit"], env=env, capture_output=True, text=True, timeout=120)
    assert refused.returncode == 2 and "eth0" in refused.stderr, refused.stdout + refused.stderr


def test_a_kit_open_to_other_users_is_refused_the_level(machine):
    """The kit's checks would be readable by the child: graded from this folder, open to all."""
    if not jail.open_to_all(str(ROOT)):
        pytest.skip(f"{ROOT} is closed to other users here")
    said = subprocess.run([sys.executable, "-c", "from validator.isolation import jail; print(jail.unavailable_reason())"],
                          cwd=ROOT, env=machine["env"], capture_output=True, text=True, timeout=60).stdout
    assert f"the kit's folder {ROOT} is open to other users" in said, said


def test_the_level_is_said_in_one_line(machine, tmp_path):
    file = submit(tmp_path, "day06", None, "uidlevel-note.py")
    _, _, _, output = grade(machine, file, tmp_path / "results.json")
    assert "isolated by user only" in output and "memory and processes in total" in output, output


# ---------------------------------------------------------------- grading still works

@pytest.mark.parametrize("lesson", ["day06", "day07"])
def test_the_template_scores_zero_and_the_solution_full(machine, tmp_path, lesson):
    status, template, _, output = grade(machine, submit(tmp_path, lesson, None, f"uidlevel-{lesson}.py"),
                                        tmp_path / "template.json", lesson)
    assert (status, template["score"]) == (1, 0), output
    solution = tmp_path / "solution" / f"{lesson}.py"
    solution.parent.mkdir()
    solution.write_text((ROOT / "solutions" / f"{lesson}.py").read_text(encoding="utf-8"), encoding="utf-8")
    solution.chmod(0o600)  # as Gradescope may unpack it: the child reads a copy
    status, graded, _, output = grade(machine, solution, tmp_path / "solution.json", lesson)
    assert status == 0 and graded["score"] == graded["max_score"] > 0, output


# ---------------------------------------------------------------- no secret, no forged score

def test_the_seed_the_key_and_the_grader_are_out_of_reach(machine, tmp_path):
    status, results, found, output = attack(machine, tmp_path, "steal_secrets")
    assert results["score"] == 0 and found.startswith("steal_secrets; secrets: "), found
    assert SECRET_KEY not in found and SEED not in found and SECRET_KEY not in output
    assert "traced: []" in found  # the grader is root: no debugger of another uid attaches


def test_the_kit_it_is_graded_by_is_out_of_reach(machine, tmp_path):
    """It searches the places a kit lies in for checks and solutions: none of the kit that grades it
    is readable. (Another copy of the kit open to all users would be: what any user can read, the
    child can; the README says so, and the grader here runs where the others are hidden.)"""
    _, results, found, _ = attack(machine, tmp_path, "read_the_solution")
    assert results["score"] == 0 and found.startswith("read_the_solution; secrets read: 0; files read: [")
    read = ast.literal_eval(found.split("files read: ", 1)[1])
    assert not [path for path in read if path.startswith(str(machine["top"]))], read


def test_the_grader_cannot_be_killed(machine, tmp_path):
    status, results, found, _ = attack(machine, tmp_path, "kill_the_grader")
    assert status == 1 and results["score"] == 0 and found


@pytest.mark.parametrize("name", ["daemon_rewrites_results", "kworker_spinner", "fork_bomb", "kill_the_sweeper"])
def test_nothing_it_started_is_left_when_the_grade_is_written(machine, tmp_path, name):
    """Killed with every process of its uid before the grader ends: not a moment later."""
    status, results, found, _ = attack(machine, tmp_path, name)
    assert results["score"] == 0 and found.startswith(name if name in ("kworker_spinner", "fork_bomb") else ""), found
    assert processes.living(f"uidlevel-{name}.py") == []
    if name == "fork_bomb":
        assert int(re.search(r"processes started: (\d+)", found).group(1)) < jail.PROCESSES


def test_it_writes_nothing_that_outlives_it(machine, tmp_path):
    kit = machine["kit"]
    watched = [kit / "lessons" / "day06" / "conftest.py", kit / "conftest.py", kit / "validator" / "grading" / "report.py"]
    before = {p: p.read_bytes() if p.exists() else None for p in watched}
    assert before[watched[-1]] is not None  # the kit's module the attack appends to is there to be kept
    status, results, found, output = attack(machine, tmp_path, "write_everywhere")
    assert results["score"] == 0
    written = ast.literal_eval(found.split("written: ", 1)[1])
    assert written == ["/tmp/reactlings-was-here"], written  # the shared /tmp, and nothing else
    assert "left behind" not in output  # removed with what else its uid left there
    assert {p: p.read_bytes() if p.exists() else None for p in watched} == before
    assert sorted(p.name for p in (tmp_path / "submissions").iterdir()) == ["uidlevel-write_everywhere.py"]


# ---------------------------------------------------------------- a class graded at once

def test_a_class_run_holds_as_well(machine, tmp_path):
    """`validate.py grade` as root, two warm workers: each student's staging folder is closed to the
    others, so no child reads a classmate's file, nor finds a name; no attacker gains a point, and
    the honest student next to them gets full marks."""
    subs, out = tmp_path / "submissions", tmp_path / "grades"
    attacks = ["find_classmates", "daemon_rewrites_results", "steal_secrets", "write_everywhere", "fork_bomb",
               "read_the_solution"]
    student = {a: "classmate-uidlevel" + a.replace("_", "")[:4] for a in attacks}
    for name in attacks:
        submit(subs, "day06", name, f"{student[name]}.py", results=out / "students" / student[name] / "results.json")
    (subs / "classmate-uidhonest.py").write_text((ROOT / "solutions" / "day06.py").read_text(encoding="utf-8"),
                                                 encoding="utf-8")
    done = subprocess.run([*machine["python"], "validate.py", "grade", "day06", str(subs), "--out", str(out), "--jobs", "2"],
                          cwd=machine["kit"], env=machine["env"], capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stdout + done.stderr
    assert "isolated by user only" in done.stderr
    results = {a: json.loads((out / "students" / student[a] / "results.json").read_text(encoding="utf-8"))
               for a in attacks}
    assert {a: r["score"] for a, r in results.items()} == dict.fromkeys(attacks, 0)
    honest = json.loads((out / "students" / "classmate-uidhonest" / "results.json").read_text(encoding="utf-8"))
    assert honest["score"] == honest["max_score"] > 0
    found = {a: next((m.group(1) for t in r["tests"] if (m := re.search(r"ATTACK-RAN (.*)", t["output"]))), "")
             for a, r in results.items()}
    names = [s.removeprefix("classmate-") for s in [*student.values(), "classmate-uidhonest"]]
    assert found["find_classmates"].startswith("find_classmates; in memory: ")
    itself = student["find_classmates"].removeprefix("classmate-")
    assert not [n for n in names if n in found["find_classmates"].replace(itself, "")], found
    assert SECRET_KEY not in found["steal_secrets"] and SEED not in found["steal_secrets"]
    # it searched /tmp, where the students' private copies lie (each in a folder only root enters)
    assert found["read_the_solution"] == "read_the_solution; secrets read: 0; files read: []", found
    everything = "".join(p.read_text(encoding="utf-8") for p in out.rglob("*") if p.is_file())
    assert SECRET_KEY not in everything and SEED not in everything
    assert "left behind" not in done.stdout
    assert not [s for s in student.values() if processes.living(f"{s}.py")]


def test_what_outlives_a_killed_grader_ends_when_the_next_grading_starts(machine, tmp_path):
    """No namespace ends it with the grader: killed with kill -9, the grader can't sweep its child's
    uid, and a daemon spins on. The next launcher kills every process of a uid whose launcher is
    gone, before its own child starts. (In a grading container, the container ends with the job.)"""
    file = submit(tmp_path / "submissions", "day06", "outlive_the_grader", "uidlevel-outlive.py")
    grader = subprocess.Popen([*machine["python"], "validate.py", "day06", "--file", str(file)], cwd=machine["kit"],
                              env=machine["env"], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    deadline = time.monotonic() + 60
    while not (daemon := [p for p in processes.living(file.name) if processes.name(p) == "kworker/1:2"]):
        assert time.monotonic() < deadline and grader.poll() is None, "the daemon never started"
        time.sleep(0.05)
    grader.kill()
    grader.wait(timeout=30)
    # Left running, nobody having swept its uid: not asserted, as any other grading by user on this
    # machine that starts now (another test's) ends it, rightly. Nothing else would.
    status, results, _, output = grade(machine, submit(tmp_path, "day06", None, "uidlevel-next.py"),
                                       tmp_path / "next.json")
    assert results["score"] == 0, output
    assert processes.gone(file.name)


def test_a_seed_file_every_user_may_read_is_refused(machine):
    """Graded by user, a submission reads what any user may: a seed file open to all would be its.
    The file is made in the grader's fresh /tmp, open to all; then made the grader's alone."""
    grade_with = ('mkdir -m 755 /tmp/seeds && echo "$0" >/tmp/seeds/seed && chmod "$1" /tmp/seeds/seed && '
                  'exec "$2" validate.py day06 --solution --seed-file /tmp/seeds/seed')
    for mode, status in (("644", 2), ("600", 0)):
        done = subprocess.run([*machine["alone"], "sh", "-c", grade_with, SEED, mode, sys.executable],
                              cwd=machine["kit"], env=machine["env"], capture_output=True, text=True, timeout=120)
        assert done.returncode == status, done.stdout + done.stderr
        assert ("is readable by every user" in done.stderr) == (status == 2), done.stderr


def test_a_prairielearn_job_on_the_grader_hosts_defaults_is_graded_by_user(machine, tmp_path, monkeypatch):
    """An exported question's job, run as PrairieLearn's grader host runs it (test_prairielearn.py),
    as root where the jail can't be built and with loopback alone: the level is used, and said in
    the job's log; the solution scores 1, the template 0. (The job's entry point runs alone, as the
    graders here do; the export is made before, outside.)"""
    from test_prairielearn import SOLUTION, TEMPLATE, export, grading_job
    course = export(tmp_path / "course")
    env = {name: machine["env"][name] for name in (jail.OFF_VARIABLE, jail.NET_VARIABLE)}
    run = subprocess.run
    monkeypatch.setattr(subprocess, "run", lambda command, **options: run([*machine["alone"], *command], **options))
    for name, source, score in (("solution", SOLUTION, 1.0), ("template", TEMPLATE, 0)):
        results, done = grading_job(course, "day06", tmp_path / name, {"day06.py": source}, env=env)
        assert results["score"] == score and "isolated by user only" in done.stdout, done.stdout


def test_no_ipc_object_it_made_outlives_it(machine, tmp_path):
    """The machine's System V IPC is shared at this level: what the child made is removed with it."""
    def mine() -> list[str]:
        return [f"{kind}: {row}" for kind in ("shm", "msg", "sem")
                for row in Path(f"/proc/sysvipc/{kind}").read_text(encoding="ascii").splitlines()[1:]
                if int(row.split()[{"shm": 7, "msg": 7, "sem": 4}[kind]]) >= launching.UID_BASE]
    before = mine()
    status, results, found, _ = attack(machine, tmp_path, "leave_ipc_behind")
    assert found == "leave_ipc_behind; made: ['msg', 'sem', 'shm']", found
    assert mine() == before


def test_a_class_run_into_gradebooks_every_user_may_read_is_refused(machine, tmp_path):
    """Graded by user, a student's code reads what any user may: classmates' results in an open
    --out would be its. A new --out is made the grader's alone; an open one is refused."""
    subs = submit(tmp_path / "submissions", "day06", None, "classmate-uidopen.py").parent
    grade_into = ('mkdir -m 755 /tmp/open && exec "$0" validate.py grade day06 "$1" --out "$2" --jobs 1')
    for out, status in (("/tmp/open", 2), ("/tmp/open/new", 0)):
        done = subprocess.run([*machine["alone"], "sh", "-c", grade_into, sys.executable, str(subs), out],
                              cwd=machine["kit"], env=machine["env"], capture_output=True, text=True, timeout=300)
        assert done.returncode == status, done.stdout + done.stderr
        assert ("is open to every user" in done.stderr) == (status == 2), done.stderr


def test_a_learners_copy_reads_the_lessons_files_from_its_own_place(machine):
    """day10's exercise finds prices.yaml from its own path (workspace/day10.py -> lessons/day10/):
    the copies the child reads keep their places around each other, as the jail's files do. Here
    the learner's copy reads it as it loads."""
    workspace = machine["kit"] / "workspace"
    workspace.mkdir(exist_ok=True)
    solution = (ROOT / "solutions" / "day10.py").read_text(encoding="utf-8")
    (workspace / "day10.py").write_text(solution + "\n_PRICES_READ = PRICES_FILE.read_text(encoding='utf-8')\n",
                                        encoding="utf-8")
    results = machine["top"] / "day10.json"
    try:
        status, graded, _, output = grade(machine, workspace / "day10.py", results, "day10")
    finally:
        (workspace / "day10.py").unlink()
    assert status == 0 and graded["score"] == graded["max_score"] > 0, output


def test_a_childs_command_line_names_no_student(tmp_path):
    """Any user may read any process's command line: a child's names its copies, and a class run's
    copy of a student's file lies in a folder named for the student. Outside the kit, a copy's
    folder is a number; inside, its path is kept (see the test above)."""
    student = tmp_path / "staging" / "classmate-alice" / "day06.py"
    student.parent.mkdir(parents=True)
    student.write_text("", encoding="utf-8")
    sandbox = SANDBOX
    spec = jail._spec([sys.executable, str(sandbox), "3", str(student)], [sandbox, student], [3], 1 << 30, "user")
    try:
        assert "classmate-alice" not in " ".join(spec["argv"]) and spec["argv"][-1].endswith("/day06.py")
        assert spec["argv"][1] == spec["copies"] + "/files" + str(sandbox.resolve())
    finally:
        jail.remove_copies(spec)
