"""Untrusted submissions, graded the way an instructor grades a class.

Each file of tests/adversarial/ is what a student who wants a better grade adds to the untouched
day06 template (0 points). It is graded with

    python validate.py day06 --file submissions/alice.py --seed 48213 --format gradescope --output results.json

with OPENAI_API_KEY set in the grader's environment, and every test asserts that it gained nothing:
no forged score, no secret leaked, no process left, no file changed outside the child's own
scratch /tmp, and a grader that always ends with a result. An attack reports what it managed
through the value its get_tools_description returns, which results.json quotes ("ATTACK-RAN …").

Linux with namespaces only (see validator/isolation/jail.py); elsewhere these tests are skipped.
"""
from __future__ import annotations

import ast
import hashlib
import json
import os
import re
import socket
import subprocess
import sys
import threading
import time
from dataclasses import dataclass
from pathlib import Path

import processes
import pytest

from validator.child import enter_jail, launching
from validator.grading.runner import Submission
from validator.isolation import forkserver, jail

ROOT = Path(__file__).resolve().parent.parent
TEMPLATE = ROOT / "lessons" / "day06" / "day06.py"
SOLUTION = ROOT / "solutions" / "day06.py"
ADVERSARIAL = Path(__file__).resolve().parent / "adversarial"
SECRET_KEY, SEED = "sk-secret-test", "48213"

pytestmark = [pytest.mark.slow, pytest.mark.skipif(sys.platform != "linux" or jail.unavailable_reason() is not None,
                                reason=f"no isolation here: {jail.unavailable_reason()}")]


@dataclass
class Graded:
    file: Path
    returncode: int
    output: str  # the grader's stdout and stderr
    results: dict  # results.json
    results_text: str
    findings: str  # what the attack reported, or "" if it never got to say

    @property
    def score(self) -> int:
        return self.results["score"]


def submit(tmp_path: Path, attack: str | None, name: str = "alice.py", **placeholders) -> Path:
    """submissions/<name>: the template with the attack appended, as a student would write it."""
    text = TEMPLATE.read_text(encoding="utf-8")
    if attack:
        snippet = (ADVERSARIAL / f"{attack}.py").read_text(encoding="utf-8")
        for key, value in placeholders.items():
            snippet = snippet.replace(f"__{key.upper()}__", str(value))
        text += "\n\n" + snippet
    folder = tmp_path / "submissions"
    folder.mkdir(exist_ok=True)
    (folder / name).write_text(text, encoding="utf-8")
    return folder / name


def grade(file: Path, results: Path, timeout: float = 120) -> Graded:
    env = dict(os.environ, OPENAI_API_KEY=SECRET_KEY, LC_ALL="C.UTF-8", PYTHONIOENCODING="utf-8")
    done = subprocess.run([sys.executable, "validate.py", "day06", "--file", str(file), "--seed", SEED,
                           "--format", "gradescope", "--output", str(results)],
                          cwd=ROOT, env=env, capture_output=True, text=True, timeout=timeout)
    text = results.read_text(encoding="utf-8")
    outputs = [test.get("output", "") for test in json.loads(text).get("tests", [])]
    found = next((m.group(1) for o in outputs if (m := re.search(r"ATTACK-RAN (.*)", o))), "")
    return Graded(file, done.returncode, done.stdout + done.stderr, json.loads(text), text, found)


def attack(tmp_path: Path, name: str, **placeholders) -> Graded:
    results = tmp_path / "results.json"
    return grade(submit(tmp_path, name, results=results, **placeholders), results)


def digest(path: Path) -> str | None:
    return hashlib.sha256(path.read_bytes()).hexdigest() if path.exists() else None


# ---------------------------------------------------------------- grading still works, jailed

def test_the_untouched_template_scores_zero_and_the_solution_full(tmp_path):
    template = grade(submit(tmp_path, None), tmp_path / "template.json")
    assert (template.returncode, template.score) == (1, 0), template.output
    solution = tmp_path / "submissions" / "bob.py"
    solution.write_text(SOLUTION.read_text(encoding="utf-8"), encoding="utf-8")
    graded = grade(solution, tmp_path / "bob.json")
    assert graded.returncode == 0 and graded.score == graded.results["max_score"] > 0, graded.output


# ---------------------------------------------------------------- no forged score, no secret

def test_the_reference_solution_and_the_checks_are_out_of_reach(tmp_path):
    graded = attack(tmp_path, "read_the_solution")
    assert graded.score == 0
    assert graded.findings.startswith("read_the_solution; secrets read: 0; files read: []"), graded.findings


def test_the_key_the_seed_and_the_grader_are_out_of_sight(tmp_path):
    graded = attack(tmp_path, "steal_secrets")
    assert graded.score == 0
    assert graded.findings.startswith("steal_secrets; secrets: []; traced: []"), graded.findings
    assert SECRET_KEY not in graded.output + graded.results_text
    assert SEED not in graded.results_text  # nor anywhere in the child: its findings are in there
    assert "validate.py" not in graded.findings and "--seed" not in graded.findings
    seen = int(re.search(r"pids seen: (\d+)", graded.findings).group(1))
    assert seen <= 2  # the jail's pid 1 and the sandbox itself


IN_A_LOGIN_SESSION = """
import ctypes, json, os, subprocess, sys
libc = ctypes.CDLL(None, use_errno=True)
add_key, keyctl = {"x86_64": (248, 250), "aarch64": (217, 219)}[os.uname().machine]
if libc.syscall(keyctl, ctypes.c_long(1), None) <= 0:  # KEYCTL_JOIN_SESSION_KEYRING: a login's own
    sys.exit(77)
secret = b"instructor-credential: hunter2"
libc.syscall(add_key, b"user", b"instructor:token", secret, ctypes.c_size_t(len(secret)), ctypes.c_long(-3))
code = subprocess.call(sys.argv[1:], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
held = ctypes.create_string_buffer(4096)
size = libc.syscall(keyctl, ctypes.c_long(11), ctypes.c_long(-3), held, ctypes.c_long(4096))
keys = []
for i in range(0, max(size, 0), 4):
    text = ctypes.create_string_buffer(4096)
    n = libc.syscall(keyctl, ctypes.c_long(11), ctypes.c_long(int.from_bytes(held.raw[i:i + 4], "little")), text,
                     ctypes.c_long(4096))
    keys.append(text.raw[:max(n, 0)].decode())
print(json.dumps({"status": code, "keys": keys}))
"""


@pytest.mark.skipif(os.uname().machine not in ("x86_64", "aarch64"), reason="keyctl's number known here only")
def test_the_graders_keyrings_are_out_of_reach(tmp_path):
    """A red team's find: the child held the session keyring of a grader started from a login (or
    a service), with its owner's rights: it read the instructor's key, could rewrite it, and left
    keys there that a classmate graded later read. Each child now starts with a keyring of its own
    and its uid's keyrings empty."""
    for name in ("aaron", "zoe"):  # graded one after the other by one worker
        subs = submit(tmp_path, "read_keyrings", name=f"{name}.py", who=name).parent
    out = tmp_path / "out"
    run = subprocess.run([sys.executable, "-c", IN_A_LOGIN_SESSION, sys.executable, "validate.py", "grade", "day06",
                          str(subs), "--out", str(out), "--seed", SEED, "--jobs", "1"],
                         cwd=ROOT, capture_output=True, text=True, timeout=300)
    if run.returncode == 77:
        pytest.skip("no keyring to join here (keyctl refused)")
    after = json.loads(run.stdout.splitlines()[-1])
    assert after == {"status": 0, "keys": ["instructor-credential: hunter2"]}  # untouched, nothing left beside it
    for name in ("aaron", "zoe"):
        said = (out / "students" / name / "results.json").read_text(encoding="utf-8")
        assert "ATTACK-RAN read_keyrings; found: [" in said and "hunter2" not in said
        assert "left by" not in said.split("found: ", 1)[1].split("; left")[0]  # no classmate's key either


def test_the_grader_cannot_be_stopped_or_killed(tmp_path):
    graded = attack(tmp_path, "kill_the_grader")  # it ends, with a result
    assert graded.returncode == 1 and graded.score == 0 and graded.findings


def test_no_daemon_outlives_the_grader_to_rewrite_results(tmp_path):
    graded = attack(tmp_path, "daemon_rewrites_results")
    assert graded.score == 0
    assert processes.gone(str(graded.file))  # the pid namespace went with the grader's child
    time.sleep(1)  # what a surviving daemon would have used to write
    assert (tmp_path / "results.json").read_text(encoding="utf-8") == graded.results_text


def test_a_spinner_renamed_as_a_kernel_thread_ends_with_the_grader(tmp_path):
    graded = attack(tmp_path, "kworker_spinner")
    assert graded.findings == "kworker_spinner"
    assert processes.gone(str(graded.file))


def test_nothing_outside_its_own_tmp_can_be_written(tmp_path):
    lesson_conftest, kit_conftest = ROOT / "lessons" / "day06" / "conftest.py", ROOT / "conftest.py"
    venv_module = next(Path(p) / "rich" / "__init__.py" for p in sys.path if p.endswith("site-packages"))
    host_tmp_file = Path("/tmp/reactlings-was-here")
    host_tmp_file.unlink(missing_ok=True)
    kit_module = ROOT / "validator" / "grading" / "report.py"
    before = {p: digest(p) for p in (lesson_conftest, kit_conftest, venv_module, kit_module)}
    assert before[kit_module] and before[venv_module]  # what the attack appends to is there to be kept
    graded = attack(tmp_path, "write_everywhere")
    assert graded.score == 0
    # The child wrote to its own /tmp only, gone with it; its folder is read-only.
    assert graded.findings == "write_everywhere; written: ['/tmp/reactlings-was-here']", graded.findings
    assert {p: digest(p) for p in before} == before
    assert not host_tmp_file.exists()
    assert sorted(os.listdir(tmp_path / "submissions")) == ["alice.py"]
    assert grade(submit(tmp_path, None, "carol.py"), tmp_path / "carol.json").score == 0


def test_a_planted_mock_llm_does_not_reach_other_students(tmp_path):
    graded = attack(tmp_path, "plant_mock_llm")
    assert graded.score == 0 and graded.findings.startswith("plant_mock_llm; ")
    assert sorted(os.listdir(tmp_path / "submissions")) == ["alice.py"]
    bob = tmp_path / "submissions" / "bob.py"
    bob.write_text(SOLUTION.read_text(encoding="utf-8"), encoding="utf-8")
    (tmp_path / "submissions" / "mock_llm").mkdir()  # even one planted by hand stays unseen
    (tmp_path / "submissions" / "mock_llm" / "__init__.py").write_text("raise ImportError('planted')\n")
    graded = grade(bob, tmp_path / "bob.json")
    assert graded.score == graded.results["max_score"], graded.output


def test_no_network_neither_local_nor_out(tmp_path):
    server, connections = socket.socket(), []
    server.bind(("127.0.0.1", 0))
    server.listen()
    server.settimeout(0.2)

    def accept():
        while server.fileno() != -1:
            try:
                connections.append(server.accept())
            except OSError:
                pass

    threading.Thread(target=accept, daemon=True).start()
    try:
        graded = attack(tmp_path, "phone_home", port=server.getsockname()[1])
    finally:
        server.close()
    assert graded.score == 0 and graded.findings.startswith("phone_home; ")
    assert "connected" not in graded.findings, graded.findings
    assert connections == []


# ---------------------------------------------------------------- limits in total, and teardown

@pytest.mark.slow
def test_memory_and_scratch_are_limited_in_total(tmp_path):
    graded = attack(tmp_path, "memory_hogs")
    assert graded.score == 0
    held = int(re.search(r"at once: (\d+)", graded.findings).group(1))
    written = int(re.search(r"MB written to /tmp: (\d+)", graded.findings).group(1))
    assert written <= jail.SCRATCH_BYTES >> 20
    if jail.level_note() is None:  # a memory cgroup of its own: 1 GB for all its processes
        assert held <= 1, graded.findings
    assert processes.gone(str(graded.file))


@pytest.mark.slow
def test_a_submission_gets_one_cpu_at_most_however_many_processes_spin(tmp_path):
    """Four processes spinning for a second get one CPU-second between them, not one each: the
    grader and the classmates graded beside it keep the machine's other CPUs."""
    if "cpu" not in jail.cgroups():
        pytest.skip("no cpu cgroup of our own here")
    graded = attack(tmp_path, "cpu_hogs")
    cpu, wall = map(float, re.findall(r"[\d.]+", graded.findings.split(";", 1)[1]))
    assert cpu <= 1.1 * wall + 0.05, graded.findings  # the quota holds whatever the machine's load
    assert processes.gone(str(graded.file))


@pytest.mark.slow
def test_a_fork_bomb_is_contained(tmp_path):
    graded = attack(tmp_path, "fork_bomb")
    assert graded.score == 0
    started = int(re.search(r"processes started: (\d+)", graded.findings).group(1))
    assert started < jail.PROCESSES
    assert processes.gone(str(graded.file))


@pytest.mark.slow
def test_killing_the_grader_ends_everything_the_submission_started(tmp_path):
    file = submit(tmp_path, "outlive_the_grader")
    grader = subprocess.Popen([sys.executable, "validate.py", "day06", "--file", str(file), "--seed", SEED],
                              cwd=ROOT, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    deadline = time.monotonic() + 20
    while not (daemon := [p for p in processes.living(str(file)) if processes.name(p) == "kworker/1:2"]):
        assert time.monotonic() < deadline, "the daemon never started"
        time.sleep(0.05)
    launchers = [pid for pid in processes.children(grader.pid) if pid in processes.living("enter_jail")]
    assert len(launchers) == 1
    daemon, launcher = processes.identity(daemon[0]), processes.identity(launchers[0])
    grader.kill()  # no cleanup: SIGKILL
    grader.wait(timeout=30)
    assert processes.gone(str(file))
    # Killed, a process may wait a moment for a CPU, or to tear down its memory; the launcher then
    # stays a zombie until the machine's init reaps it.
    deadline = time.monotonic() + 5
    while (processes.state(daemon), processes.state(launcher)) not in {("gone", "Z"), ("gone", "gone")}:
        assert time.monotonic() < deadline, (processes.state(daemon), processes.state(launcher))
        time.sleep(0.05)
    # The killed grader's cgroups are left behind, empty; the next grading sweeps them.
    leftovers = [os.path.join(f, launching.cgroup_name(launchers[0])) for f in launching.cgroup_folders().values()]
    grade(submit(tmp_path, None, "dave.py"), tmp_path / "dave.json")
    assert not any(os.path.exists(folder) for folder in leftovers)


# ---------------------------------------------------------------- a class graded at once

def test_a_class_run_holds_as_well(tmp_path):
    """Every attack as a student of one class, graded by `validate.py grade`: warm workers, each
    child forked from a fork server, two students' children alive at once. Nobody gains a point,
    learns a classmate's name, a secret or the solution, writes outside its /tmp, or outlives the run;
    the honest student next to them still gets full marks."""
    subs, out = tmp_path / "submissions", tmp_path / "grades"
    subs.mkdir()
    server, connections = socket.socket(), []
    server.bind(("127.0.0.1", 0))
    server.listen()
    server.settimeout(0.2)
    threading.Thread(target=lambda: [connections.append(c) for c in iter(lambda: _accept(server), None)],
                     daemon=True).start()
    attacks = sorted(p.stem for p in ADVERSARIAL.glob("*.py") if p.stem != "look_around")
    student = {a: "zed" if a == "find_classmates" else "classmate-" + a.replace("_", "")[:12] for a in attacks}
    for name in attacks:  # classmate-<letters>.py: the names find_classmates looks for
        results = out / "students" / student[name] / "results.json"
        submit(tmp_path, name, f"{student[name]}.py", results=results, port=server.getsockname()[1])
    (subs / "classmate-honest.py").write_text(SOLUTION.read_text(encoding="utf-8"), encoding="utf-8")
    kit = {p: digest(p) for p in (ROOT / "validator" / "grading" / "report.py", ROOT / "lessons" / "day06" / "checks.py")}
    assert None not in kit.values()
    Path("/tmp/reactlings-was-here").unlink(missing_ok=True)
    env = dict(os.environ, OPENAI_API_KEY=SECRET_KEY, LC_ALL="C.UTF-8", PYTHONIOENCODING="utf-8")
    done = subprocess.run([sys.executable, "validate.py", "grade", "day06", str(subs), "--out", str(out),
                           "--seed", SEED, "--jobs", "2"], cwd=ROOT, env=env, capture_output=True, text=True,
                          timeout=600)
    server.close()
    assert done.returncode == 0, done.stdout + done.stderr
    results = {name: json.loads((out / "students" / student[name] / "results.json").read_text(encoding="utf-8"))
               for name in attacks}
    found = {name: next((m.group(1) for t in r["tests"] if (m := re.search(r"ATTACK-RAN (.*)", t["output"]))), "")
             for name, r in results.items()}
    assert {name: r["score"] for name, r in results.items()} == dict.fromkeys(attacks, 0)
    honest = json.loads((out / "students" / "classmate-honest" / "results.json").read_text(encoding="utf-8"))
    assert honest["score"] == honest["max_score"] > 0
    assert found["find_classmates"].startswith("find_classmates; in memory: []; in /proc: []"), found
    assert found["read_the_solution"].startswith("read_the_solution; secrets read: 0; files read: []")
    assert found["steal_secrets"].startswith("steal_secrets; secrets: []; traced: []")
    assert int(re.search(r"pids seen: (\d+)", found["steal_secrets"]).group(1)) <= 2
    # Only in its own scratch /tmp, gone with it: the gradebooks' path under /tmp is there too, as
    # nothing of the grader's (each student's copy lies elsewhere), so its results.json is written
    # in the scratch; the real one holds its score 0 (above).
    written = ast.literal_eval(found["write_everywhere"].split("written: ", 1)[1])
    assert "/tmp/reactlings-was-here" in written and all(path.startswith("/tmp/") for path in written), written
    assert "connected" not in found["phone_home"] and connections == []
    everything = "".join(p.read_text(encoding="utf-8") for p in out.rglob("*") if p.is_file())
    assert SECRET_KEY not in everything + done.stdout + done.stderr and SEED not in everything
    assert {p: digest(p) for p in kit} == kit and not Path("/tmp/reactlings-was-here").exists()
    assert sorted(p.name for p in subs.iterdir()) == sorted([f"{s}.py" for s in student.values()] + ["classmate-honest.py"])
    rewritten = out / "students" / student["daemon_rewrites_results"] / "results.json"
    before = rewritten.read_text(encoding="utf-8")
    assert processes.gone(str(forkserver.SANDBOX))  # the fork servers, and every child forked from them
    time.sleep(1)  # what a surviving daemon would have used to write
    assert rewritten.read_text(encoding="utf-8") == before


def _accept(server):
    while server.fileno() != -1:
        try:
            return server.accept()
        except OSError:
            pass
    return None


# ---------------------------------------------------------------- the view from inside

@pytest.fixture(scope="module", params=["started cold", "forked warm", "forked from a run's warm sandbox"])
def inside(request):
    """The child as it sees itself: started cold (one file graded), or forked from a fork server
    started cold or forked itself from a class run's warm sandbox (a class graded): the same jail
    every way."""
    warm = forkserver.WarmSandbox([]) if request.param == "forked from a run's warm sandbox" else None
    server = forkserver.ForkServer(door=warm and warm.door) if request.param != "started cold" else None
    submission = Submission(ADVERSARIAL / "look_around.py", forkserver=server)
    yield lambda func, *args: submission.call(func, *args, timeout=10).value
    submission.close()
    if server:
        server.close()
    if warm:
        warm.close()
        assert server.process is None  # the server was the warm sandbox's fork, not one started cold


def test_the_child_is_an_unprivileged_user_of_its_own(inside):
    seen = inside("identity")
    assert (seen["uid"], seen["gid"]) == (enter_jail.LEARNER_UID, enter_jail.LEARNER_UID) and 0 not in seen["groups"]
    assert seen["caps"] == ["0000000000000000"] * 5 and seen["no_new_privs"] == "1"
    assert seen["hostname"] != socket.gethostname()


def test_the_child_sees_only_python_the_os_and_its_own_file(inside):
    seen = inside("files")
    assert set(seen["root"]) <= {"bin", "dev", "etc", "lib", "lib32", "lib64", "libx32", "proc", "sbin", "tmp",
                                 "usr", *(p.split("/")[1] for p in (sys.prefix, sys.base_prefix, str(ROOT)))}
    assert seen["here"] == ["look_around.py"]  # not test_isolation.py, nor the other attacks
    assert len(seen["pids"]) == 2  # its own pid 1 and itself
    assert seen["dev"] == ["fd", "full", "null", "random", "shm", "stderr", "stdin", "stdout", "urandom", "zero"]
    assert set(seen["etc"]) <= {"group", "ld.so.cache", "localtime", "passwd"}


def test_the_child_gets_no_environment_of_the_graders(inside):
    assert inside("environment") == jail.environment()


def test_the_child_holds_no_descriptor_but_its_socket(inside):
    """Forked warm, it once held two pipes of the jail's builders: writing to the one pid 1 reports
    the sandbox's wait status on chose the exit status the grader saw (forge_the_exit_status)."""
    seen = inside("descriptors")
    assert list(seen.values()) == ["/dev/null"] * 3 + ["the grader's socket"], seen


@pytest.mark.parametrize("path, error", [
    ("/x", "EROFS"), (f"{sys.prefix}/x", "EROFS"), (str(ROOT / "validator" / "x"), "EROFS"),
    (str(ADVERSARIAL / "x"), "EROFS"), ("/usr/x", "EROFS"), ("/proc/sys/kernel/hostname", "EACCES")])
def test_the_child_writes_nowhere_but_tmp(inside, path, error):
    # A kit that lies under /tmp (a fresh clone there) has its folders in the jail's scratch /tmp:
    # root's empty mount points, refused as EACCES rather than EROFS. Refused either way.
    under_tmp = path.startswith("/tmp/") and error == "EROFS"
    assert inside("try_write", path) in ({error, "EACCES"} if under_tmp else {error})
    assert inside("try_write", "/tmp/scratch") == "written"


def test_the_child_can_neither_remount_nor_nest_namespaces(inside):
    assert inside("try_mount") == {"tmpfs over /usr": "EPERM", "remount / read-write": "EPERM"}
    assert inside("try_namespaces") in ("ENOSPC", "EPERM")


def test_the_child_has_its_limits(inside):
    seen = inside("limits")
    assert seen["rlimits"]["RLIMIT_NPROC"] == (jail.PROCESSES,) * 2
    assert seen["rlimits"]["RLIMIT_NOFILE"] == (jail.OPEN_FILES,) * 2
    assert seen["rlimits"]["RLIMIT_CORE"] == (0, 0)
    assert seen["tmp_bytes"] == jail.SCRATCH_BYTES


def test_the_child_has_no_network(inside):
    assert inside("connect", "127.0.0.1", 22) == "ENETUNREACH"
    assert inside("connect", "1.1.1.1", 443) == "ENETUNREACH"


# ---------------------------------------------------------------- turned off, or required

def test_isolation_off_is_said_and_required_is_an_error(tmp_path):
    script = ("from validator.child import SANDBOX\nfrom validator.grading import runner\n"
              "from validator.isolation import jail\n"
              "print(jail.unavailable_reason())\n"
              "jail.required = True\n"
              "try:\n    runner.Submission(SANDBOX).spawn()\nexcept jail.Unavailable:\n    print('refused')\n")
    env = dict(os.environ, **{jail.OFF_VARIABLE: "off"})
    done = subprocess.run([sys.executable, "-c", script], cwd=ROOT, env=env, capture_output=True, text=True,
                          timeout=60)
    reason, refused = done.stdout.splitlines()
    assert reason.startswith(f"isolation turned off ({jail.OFF_VARIABLE}=off): ") and "network" in reason
    assert refused == "refused"
    unjailed = subprocess.run([sys.executable, "validate.py", "day06", "--solution"], cwd=ROOT, env=env,
                              capture_output=True, text=True, timeout=120)
    assert unjailed.returncode == 0, unjailed.stdout + unjailed.stderr


def test_the_probe_started_early_answers_as_one_run_when_asked(tmp_path):
    """validate.py starts the jail's probe before it imports the rest of the kit (jail.probe_early):
    what the grader learns from it is what a probe run when first asked finds; a command that ends
    before it asks (a file that isn't there) still ends at once, saying why."""
    script = ("import sys\nfrom validator.isolation import jail\n"
              "if sys.argv[1] == 'early':\n    jail.probe_early()\n    assert jail._early is not None\n"
              "print(jail.unavailable_reason(), jail.level(), jail.level_note(), jail._probe()[1])\n")
    answers = [subprocess.run([sys.executable, "-c", script, when], cwd=ROOT, capture_output=True, text=True,
                              timeout=60) for when in ("early", "asked")]
    assert answers[0].returncode == answers[1].returncode == 0, answers[0].stderr + answers[1].stderr
    assert answers[0].stdout == answers[1].stdout and answers[0].stdout.startswith("None namespaces ")
    missing = subprocess.run([sys.executable, "validate.py", "day06", "--file", str(tmp_path / "absent.py")],
                             cwd=ROOT, capture_output=True, text=True, timeout=60)
    assert missing.returncode == 2 and "absent.py" in missing.stdout + missing.stderr


# ---------------------------------------------------------------- nothing carries to the next student

def class_outputs(folder: Path, lesson: str, students: dict[str, str]) -> dict[str, bytes]:
    """`validate.py grade LESSON` with --jobs 1: one worker grades the students (name -> source) in
    the order of their names, each child forked from its fork server, the next one's started while
    the one before is graded. Each student's (results.json, feedback.txt), as bytes."""
    subs, out = folder / "submissions", folder / "grades"
    subs.mkdir(parents=True)
    for name, source in students.items():
        (subs / f"{name}.py").write_text(source, encoding="utf-8")
    env = dict(os.environ, OPENAI_API_KEY=SECRET_KEY, LC_ALL="C.UTF-8", PYTHONIOENCODING="utf-8")
    done = subprocess.run([sys.executable, "validate.py", "grade", lesson, str(subs), "--out", str(out), "--seed",
                           SEED, "--jobs", "1"], cwd=ROOT, env=env, capture_output=True, text=True, timeout=900)
    assert done.returncode == 0, done.stdout + done.stderr
    folders = {r["student"]: r["folder"] for r in json.loads((out / "grades.json").read_text(encoding="utf-8"))["students"]}
    return {name: tuple((out / "students" / folders[name] / f).read_bytes() for f in ("results.json", "feedback.txt"))
            for name in students}


def attacker(lesson: str, attack: str) -> str:
    """The lesson's untouched template with the attack appended, as in submit()."""
    template = (ROOT / "lessons" / lesson / f"{lesson}.py").read_text(encoding="utf-8")
    return template + "\n\n" + (ADVERSARIAL / f"{attack}.py").read_text(encoding="utf-8")


@pytest.mark.parametrize("lesson, attacks", [
    ("day11", ["leave_tools_queued"]),
    ("day06", ["forge_the_exit_status", "nest_the_wire", "flood_the_tools", "forge_the_wire"]),
    ("day07", ["nest_the_json"])])
def test_a_student_graded_after_an_attack_gets_what_they_get_alone(tmp_path, lesson, attacks):
    """Each attack is followed, in the same worker, by a "sensor": a classmate whose file is the
    reference solution. Its outputs must be the very bytes a class run without the attackers gives.
    (leave_tools_queued: before, the tool calls it left queued in the worker's shared thread pool
    ran on into the sensor's grading, whose calls timed out: 7 of day11's points lost.)"""
    solution = (ROOT / "solutions" / f"{lesson}.py").read_text(encoding="utf-8")
    sensors = {f"{n}-sensor": solution for n in range(len(attacks))}
    students = dict(sensors, **{f"{n}-attack": attacker(lesson, a) for n, a in enumerate(attacks)})  # n-attack < n-sensor
    control = class_outputs(tmp_path / "control", lesson, sensors)
    attacked = class_outputs(tmp_path / "attacked", lesson, students)
    alone = json.loads(control["0-sensor"][0])
    assert alone["score"] == alone["max_score"] > 0
    assert {name: attacked[name] for name in sensors} == control
    for n, attack in enumerate(attacks):  # and no grader traceback reached an attacker's feedback
        shown = b"".join(attacked[f"{n}-attack"])
        assert b"Traceback" not in shown and str(ROOT).encode() not in shown, attack
        if attack == "forge_the_exit_status":  # no pipe of the jail's left open: the status is its own
            assert b"ATTACK-RAN forge_the_exit_status; pipes: []" in shown and b"(exit status 0)" in shown
