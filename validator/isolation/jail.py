"""Isolation of the child that runs a learner's file, as the grader sees it.

On Linux each child runs in a jail that enter_jail.py builds: its own user, pid, network, mount, ipc,
uts and cgroup namespaces; as uid 1000 of a user namespace of its own (as root: an unprivileged host
uid of its own) with no capabilities; a read-only view of Python, the OS's libraries and the files
asked for (the sandbox's files, the submission), each alone in its folder (a readable copy of
one its uid could not read); a private /tmp of
SCRATCH_BYTES; /dev/null, zero, full, random, urandom; /proc of its own pid namespace; no network;
limits in total per submission (cgroups, as root) and per process (rlimits); an environment with
nothing of the grader's. When the grader ends, however it ends, everything the child started ends.

Graded as root where namespaces can't be made (a container started with Docker's defaults: no
CAP_SYS_ADMIN, a seccomp profile that refuses a user namespace), a second level, isolation by user:
each child runs as that host uid of its own, with no capabilities, no_new_privs and the rlimits, in
a private scratch folder, reading copies of the files asked for;
when it ends, every process of its uid is killed and what it left where any user may write (/tmp,
/var/tmp, /dev/shm, System V IPC) is removed (isolate_by_user.sweep_user). Without a network namespace, it
counts only where the machine has no network but loopback, and where the kit's folder is closed to
other users. `level_note()` says what it does not enforce.

Elsewhere (macOS, containers without namespaces), or with REACTLINGS_SANDBOX=off, a child runs as
before: per-process rlimits in a process group of its own. `unavailable_reason()` says so in one
line; with `required` set (--require-isolation), spawning a child is then an error.
"""
from __future__ import annotations

import atexit
import contextlib
import os
import shutil
import signal
import stat
import subprocess
import sys
import tempfile
import threading

from validator.child import SANDBOX, enter_jail, launching

OFF_VARIABLE = "REACTLINGS_SANDBOX"  # =off: children run unisolated (debugging); =user: isolated by user only (tests)
NET_VARIABLE = "REACTLINGS_NET_DEVICES"  # where the machine's network interfaces are listed (tests simulate one)
required = False  # --require-isolation: an unisolated child is an error, not a warning

JAILER = os.path.abspath(enter_jail.__file__)
KIT = os.path.dirname(os.path.dirname(os.path.dirname(JAILER)))  # not visible in the jail, but the files asked for
# Imported rather than run as a script, so that its .pyc is used: compiling it costs more than
# starting the interpreter. -I -S: no site, no environment, no current folder on sys.path; the
# folder is appended, so nothing in it can stand in for a standard module.
LAUNCH = f"import sys; sys.path.append({os.path.dirname(JAILER)!r}); import enter_jail; enter_jail.main(sys.argv)"
SCRATCH_BYTES = 64 * 1024 * 1024  # the private /tmp
FILE_BYTES = 64 * 1024 * 1024  # the largest file the learner's code may write
OPEN_FILES = 256
PROCESSES = 64  # processes and threads of the learner's code (RLIMIT_NPROC, the pids cgroup)
CPU_SECONDS = 120  # per process; a call's own time limit is wall-clock, and much shorter
STOP_WAIT = 15  # seconds for a launcher to end its child (and, by user, kill its uid's processes)

NOT_ENFORCED = ("submissions run with per-process limits in a process group only: they can read and "
                "write what you can, see your processes and use the network")
BY_USER = ("isolated by user only (no namespaces here): each submission runs as a user of its own; not "
           "enforced: memory and processes in total per submission, a private view of files (it can read "
           "the machine's world-readable files, and the grader's command line: give the seed in "
           "$REACTLINGS_SEED or --seed-file), a private /tmp (its files there are removed when it ends)")


class Unavailable(RuntimeError):
    """Isolation is required (--require-isolation) and this machine can't provide it."""


def unavailable_reason() -> str | None:
    """None when children run isolated (jailed, or by user); else one line: why not, and what is
    then not enforced."""
    return _probe()[0]


def level() -> str | None:
    """How children are isolated: "namespaces" (the jail), "user" (by user only), or None."""
    return _probe()[2]


def level_note() -> str | None:
    """Isolated, but not all of it: what is not enforced, in a line (None: all of it is)."""
    if level() == "user":
        return BY_USER
    missing = [c for c in ("memory", "pids") if c not in cgroups()]
    if level() is None or not missing:
        return None
    return (f"no {' or '.join(missing)} cgroup of our own: memory and processes are limited per "
            "process, not in total per submission")


def cgroups() -> tuple[str, ...]:
    """The cgroup controllers of its own a jailed child joins here (memory, pids, cpu)."""
    return _probe()[1]


def isolating() -> bool:
    """Whether the next child runs isolated. Raises Unavailable when it must and can't."""
    reason = unavailable_reason()
    if reason and required:
        raise Unavailable(reason)
    return reason is None


# The child's local time zone: UTC-5, neither UTC nor Beijing's UTC+8, so that code that reads the
# machine's local time where it should name a zone shows it, wherever the grader runs. A POSIX TZ
# string ("LRN5": five hours west of UTC), read without any zone file, on Windows too.
LEARNER_UTC_HOURS = -5


def environment() -> dict[str, str]:
    """All the environment a child gets, jailed or not: nothing of the grader's (API keys, ...)."""
    return {"PATH": "/usr/local/bin:/usr/bin:/bin", "LANG": "C.UTF-8", "TZ": f"LRN{-LEARNER_UTC_HOURS}",
            "HOME": "/tmp", "TMPDIR": "/tmp", "PYTHONHASHSEED": "0", "PYTHONDONTWRITEBYTECODE": "1"}


def spec(argv: list[str], *, files: list, fds: list[int], memory: int) -> dict:
    """What enter_jail.py builds to run `argv` isolated, at this machine's level (see _spec)."""
    return _spec(argv, files, fds, memory, level())


def _spec(argv: list[str], files: list, fds: list[int], memory: int, isolation: str) -> dict:
    """What enter_jail.py builds to run `argv` jailed (isolation "namespaces") or by user ("user").
    Jailed, of the grader's files the child sees Python, the OS's libraries and `files`, each alone
    in its folder at its real path (argv's mentions of them become that); `fds` are the open files
    argv's process gets; `memory`: bytes per process and in total. A file the jail's uid could not
    read is seen as a copy it can read, made in the folder spec["copies"] (or None: no copy was
    needed); remove_copies(spec) once the child ended. By user, see _user_files."""
    real = {str(f): os.path.realpath(f) for f in files if os.path.exists(f)}
    limits = {"memory": memory, "processes": PROCESSES, "files": OPEN_FILES,
              "file_bytes": FILE_BYTES, "cpu": CPU_SECONDS, "scratch": SCRATCH_BYTES}
    common = {"grader": os.getpid(), "fds": fds, "limits": limits, "level": isolation,
              "hidden": os.path.join(KIT, "validator", "isolation", "jail.py")}  # the probe checks it is not seen
    if isolation == "user":
        seen, copies = _user_files(sorted(set(real.values())))
        seen = {arg: seen[path] for arg, path in real.items()}
        scratch = os.path.join(copies, "scratch")
        os.mkdir(scratch, 0o700)  # the launcher gives it to the child's uid
        return {**common, "argv": [seen.get(arg, arg) for arg in argv], "copies": copies, "scratch": scratch,
                "env": dict(environment(), HOME=scratch, TMPDIR=scratch)}
    bound, copies = {}, None
    for path in sorted(set(real.values())):
        if _readable_by_all(path):
            bound[path] = path
        else:
            copies = copies or tempfile.mkdtemp(prefix="reactlings-copies-")
            bound[path] = _readable_copy(path, copies)
    seen = {**real, sys.executable: interpreter()}
    return {**common, "argv": [seen.get(arg, arg) for arg in argv], "env": environment(),
            "plan": _plan(bound), "copies": copies}


def _user_files(paths: list[str]) -> tuple[dict[str, str], str]:
    """Isolated by user: a copy of each file, in a folder of the grader's whose group the launcher
    makes the child's (no other child can enter it): the child reads them whatever their modes and
    the folders above them. The kit's files keep their places around each other, at their own
    paths under copies/files (day10's exercise finds prices.yaml from its own path, as in the
    jail); any other in a numbered folder per folder, under its own name: its path may name a
    student (a class run's staging folder), and a command line is any user's to read.
    (file -> the copy the child reads, the copies' folder)."""
    copies = tempfile.mkdtemp(prefix="reactlings-copies-")
    numbers: dict[str, str] = {}
    seen = {}
    for path in paths:
        here = os.path.dirname(path)
        folder = os.path.join(copies, "files") + here if launching.inside(path, os.path.realpath(KIT)) else \
            numbers.setdefault(here, os.path.join(copies, str(len(numbers))))
        os.makedirs(folder, exist_ok=True)
        seen[path] = _readable_copy(path, folder, os.path.basename(path))
    return seen, copies


def open_to_all(path: str) -> bool:
    """Whether a user with no group of ours may read the file (a folder: enter it) at `path`: it
    and every folder above it let others through."""
    real = os.path.realpath(path)
    try:
        mode = os.stat(real).st_mode
        if not mode & (stat.S_IXOTH if stat.S_ISDIR(mode) else stat.S_IROTH):
            return False
        while real != "/":
            real = os.path.dirname(real)
            if not os.stat(real).st_mode & stat.S_IXOTH:
                return False
        return True
    except OSError:
        return False


def interpreter() -> str:
    """This Python as the jail shows it, where only real paths are: its folder by its real path (a
    venv reached through a link, say into /tmp), its own name kept. Not the file the name links
    to: a venv's python is a link, and its name is what finds the venv (pyvenv.cfg beside bin/).
    A fork server runs it too: its children inherit its sys.path, which must name the folders
    the jail binds (site-packages by its real path), or a learner's `import yaml` is not found."""
    return os.path.join(os.path.realpath(os.path.dirname(sys.executable)), os.path.basename(sys.executable))


def _readable_by_all(path: str) -> bool:
    try:
        return bool(os.stat(path).st_mode & stat.S_IROTH)
    except OSError:
        return True  # the grader can't tell either: bound as it is, the child says what is wrong


def _readable_copy(path: str, copies: str, name: str | None = None) -> str:
    """A copy of `path` that anyone may read, in `copies`, a folder only the grader can enter.
    As root the jail's uid is one of its own, so a file only its owner may read (mode 0600 or
    0000, a student's zip unpacked keeping its modes, files owned by another uid, a kit installed
    under umask 077) is unreadable to it; bound at the file's path, the copy is all the jail gains,
    and the file is all it sees of the folder. Not readable by the grader either: the file itself.
    `name`: the copy's name (else a new one)."""
    try:
        if name:
            copy = os.path.join(copies, name)
            descriptor = os.open(copy, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
        else:
            descriptor, copy = tempfile.mkstemp(dir=copies)
        with open(descriptor, "wb") as target, open(path, "rb") as source:
            shutil.copyfileobj(source, target)
            os.fchmod(target.fileno(), 0o444)
        return copy
    except OSError:
        return path


def remove_copies(jail_spec: dict | None) -> None:
    """Remove the copies a spec's jail was given, once its child has ended (or never started)."""
    if jail_spec and jail_spec.get("copies"):
        shutil.rmtree(jail_spec["copies"], ignore_errors=True)


def command(jail_spec: dict) -> tuple[list[str], dict]:
    """The command line and environment that run a spec's argv jailed."""
    return [sys.executable, "-I", "-S", "-c", LAUNCH, "run"], {**environment(), enter_jail.SPEC_VARIABLE: enter_jail.encode(jail_spec)}


def stop(process) -> None:
    """End an isolated child and all it started, and remove its cgroups. `process`: the launcher,
    a subprocess.Popen or a forkserver.WarmProcess."""
    if process.poll() is None:
        process.send_signal(signal.SIGTERM)  # A kills B (or, by user, C and every process of C's uid)
        try:
            process.wait(timeout=STOP_WAIT)
        except subprocess.TimeoutExpired:
            try:
                os.killpg(process.pid, signal.SIGKILL)  # B dies with A (its parent-death signal)
            except ProcessLookupError:
                pass
            process.wait()
    for folder in _cgroup_folders().values():
        launching.remove_cgroup(os.path.join(folder, launching.cgroup_name(process.pid)))


def process_limits(memory: int) -> dict:
    """An unjailed child's rlimits (not RLIMIT_NPROC: it would count all the user's processes)."""
    return {"memory": memory, "files": OPEN_FILES, "file_bytes": FILE_BYTES, "cpu": CPU_SECONDS}


def limit_process(memory: int) -> None:
    launching.set_rlimits(process_limits(memory))


_probed: tuple[str | None, tuple[str, ...], str | None] | None = None
_early: tuple[dict, int, int] | None = None  # the probe probe_early started: its spec, pid, report's pipe
_folders: dict | None = None


def probe_early() -> None:
    """Start the jail's probe now, in a fork of this process, and go on: a command that grades
    calls this before it imports the rest of the kit, which then hides the probe's ~20 ms (the
    first unavailable_reason() takes its answer). Only where _run_probe would fork the same probe:
    the jail wanted, on Linux, this process with one thread."""
    global _early
    if _probed is None and _early is None and _not_tried() is None and threading.active_count() == 1:
        spec = _probe_spec("namespaces")
        try:
            _early = (spec, *_start_fork_probe(command(spec)[1]))
        except OSError:  # no fork now: the probe runs when it is asked for, as before
            remove_copies(spec)
            return
        atexit.register(_end_unasked_probe)  # a command that never asks still waits for it, and cleans up


def _probe() -> tuple[str | None, tuple[str, ...], str | None]:
    """Isolate a child once, as for a submission, and run nothing: see _run_probe."""
    global _probed
    if _probed is None:
        _probed = _run_probe()
    return _probed


def _not_tried() -> str | None:
    """Why the jail is not even tried here, or None."""
    if sys.platform != "linux":
        return f"isolation unavailable (not Linux): {NOT_ENFORCED}"
    wanted = os.environ.get(OFF_VARIABLE, "").lower()
    if wanted in ("off", "0", "no"):
        return f"isolation turned off ({OFF_VARIABLE}=off): {NOT_ENFORCED}"
    if os.environ.get("REACTLINGS_TRANSPORT") == "tcp":  # the child calls back by TCP: no jail then
        return f"isolation off (REACTLINGS_TRANSPORT=tcp): {NOT_ENFORCED}"
    if wanted == "user":
        return f"{OFF_VARIABLE}=user"
    return None


def _run_probe() -> tuple[str | None, tuple[str, ...], str | None]:
    """(None, or why children can't be isolated; the cgroup controllers joined; the level)."""
    why = _not_tried()
    if why is None:
        why, joined = _try_level("namespaces")
        if why is None:
            return None, joined, "namespaces"
        if os.geteuid() != 0:  # no user of its own to give each child
            return f"isolation unavailable ({why}): {NOT_ENFORCED}", (), None
    elif why != f"{OFF_VARIABLE}=user":
        return why, (), None
    refused = _refuse_user_level()
    failed, joined = (refused, ()) if refused else _try_level("user")
    if failed:
        return f"isolation unavailable ({why}; not by user either: {failed}): {NOT_ENFORCED}", (), None
    return None, joined, "user"


def _refuse_user_level() -> str | None:
    """Why isolation by user would not hold here, or None."""
    if os.geteuid() != 0:
        return "not root"
    devices = os.environ.get(NET_VARIABLE) or "/sys/class/net"
    try:
        others = sorted(set(os.listdir(devices)) - {"lo"})
    except OSError as error:
        return f"no list of network interfaces in {devices} ({error.strerror})"
    if others:
        return f"network interfaces besides loopback ({', '.join(others)}): a submission could use the network"
    if open_to_all(KIT):
        return f"the kit's folder {KIT} is open to other users (chmod o-rwx it): a submission could read its checks"
    if not (open_to_all(sys.executable) and open_to_all(os.path.dirname(os.__file__))):
        return f"this Python ({sys.executable}) is not open to other users"
    return None


def _try_level(isolation: str) -> tuple[str | None, tuple[str, ...]]:
    """Isolate a child once at this level, as for a submission, and run nothing: (None, or why it
    failed; the cgroup controllers it joined)."""
    probe_spec = None if isolation == "namespaces" and _early else _probe_spec(isolation)
    try:
        if probe_spec is None:  # started by probe_early
            status, text = _end_early_probe()
        elif threading.active_count() == 1:  # no other thread can hold a lock: forking is safe, and
            status, text = _end_fork_probe(*_start_fork_probe(command(probe_spec)[1]))  # saves starting an interpreter
        else:
            argv, env = command(probe_spec)
            done = subprocess.run(argv[:-1] + ["probe"], capture_output=True, text=True, timeout=20, env=env)
            status, text = done.returncode, done.stdout + done.stderr
    except (OSError, subprocess.TimeoutExpired) as error:
        return str(error), ()
    finally:
        remove_copies(probe_spec)
    return _probe_result(status, text)


def _probe_spec(isolation: str) -> dict:
    """A jail at this level for the probe: the sandbox's files, nothing run."""
    return _spec(["-"], [str(SANDBOX)], [], 1 << 30, isolation)


def _probe_result(status: int, report: str) -> tuple[str | None, tuple[str, ...]]:
    lines = report.splitlines()
    if status != 0 or "jailed" not in lines:
        return ([line for line in lines if line.startswith("jail: ")] or [f"exit status {status}"])[-1].removeprefix("jail: "), ()
    return None, tuple(next((line.split()[1:] for line in lines if line.startswith("cgroups")), []))


def _start_fork_probe(env: dict) -> tuple[int, int]:
    """The probe in a fork of this process: (its pid, the pipe it writes its report to)."""
    spec = enter_jail.decode(env[enter_jail.SPEC_VARIABLE])
    read, write = os.pipe()
    pid = os.fork()
    if pid == 0:  # the launcher, A: never returns
        try:
            os.dup2(write, 1)  # its report; never the grader's own stdout and stderr
            os.dup2(write, 2)
        finally:
            enter_jail.start(spec, probe=True)
    os.close(write)
    return pid, read


def _end_fork_probe(pid: int, read: int) -> tuple[int, str]:
    """(The forked probe's exit status, what it wrote), once it has ended."""
    with os.fdopen(read, "rb") as report:
        text = report.read().decode(errors="replace")
    _, status = os.waitpid(pid, 0)
    return os.waitstatus_to_exitcode(status), text


def _end_early_probe() -> tuple[int, str]:
    """The probe probe_early started: (its exit status, what it wrote), once it has ended; its
    copies removed."""
    global _early
    probe_spec, pid, report = _early
    _early = None
    try:
        return _end_fork_probe(pid, report)
    finally:
        remove_copies(probe_spec)


def _end_unasked_probe() -> None:
    if _early is not None:
        with contextlib.suppress(OSError):
            _end_early_probe()


def _cgroup_folders() -> dict:
    global _folders
    if _folders is None:
        _folders = launching.cgroup_folders()
    return _folders


def _plan(files: dict[str, str]) -> list[list[str]]:
    """What the jail's root holds: [kind, path in the jail, source or content], parents first.
    `files`: each file's path in the jail, and the file bound there (itself, or a copy).
    Kinds: ro (a read-only bind), dev (a device), tmpfs (the scratch /tmp), mask (an empty
    read-only folder over part of a bound one), proc, link (a symlink), text (a small file)."""
    hidden = [KIT] + [os.path.dirname(f) for f in files]  # folders whose other files stay unseen
    tops = {top: os.path.islink(top) for top in ("/bin", "/sbin", "/lib", "/lib32", "/lib64", "/libx32")
            if os.path.lexists(top)}  # folders, or (merged /usr) links into /usr
    wanted = _python_dirs(hidden) + ["/usr"] + [top for top, link in tops.items() if not link]
    dirs = _outermost(wanted)
    masks = sorted({h for h in hidden if any(launching.inside(h, d) for d in dirs)})
    dirs += _outermost([d for d in wanted if any(launching.inside(d, m) and d != m for m in masks)])
    plan = [["tmpfs", "/tmp", ""], ["proc", "/proc", ""]]
    plan += [["link", top, os.readlink(top)] for top, link in tops.items() if link]
    plan += [["ro", d, d] for d in dirs] + [["mask", m, ""] for m in masks]
    plan += [["ro", f, source] for f, source in sorted(files.items())]
    plan += [["dev", f"/dev/{name}", f"/dev/{name}"] for name in ("null", "zero", "full", "random", "urandom")]
    plan += [["link", f"/dev/{name}", target] for name, target in (
        ("fd", "/proc/self/fd"), ("stdin", "/proc/self/fd/0"), ("stdout", "/proc/self/fd/1"),
        ("stderr", "/proc/self/fd/2"), ("shm", "/tmp"))]
    uid = enter_jail.LEARNER_UID
    plan += [["text", "/etc/passwd", f"learner:x:{uid}:{uid}:learner:/tmp:/bin/sh\n"],
             ["text", "/etc/group", f"learner:x:{uid}:\n"]]
    if os.path.isfile("/etc/ld.so.cache"):
        plan.append(["ro", "/etc/ld.so.cache", "/etc/ld.so.cache"])
    if os.path.islink("/etc/localtime"):
        plan.append(["link", "/etc/localtime", os.readlink("/etc/localtime")])
    return sorted(plan, key=lambda entry: entry[1].count("/"))  # a folder before what is in it


def _python_dirs(hidden: list[str]) -> list[str]:
    """The interpreter, its standard library and the folders the grader imports packages from; not
    the kit's own folders (tests/, the kit itself), nor any folder that holds a hidden one."""
    prefixes = {os.path.realpath(p) for p in (sys.prefix, sys.exec_prefix, sys.base_prefix, sys.base_exec_prefix)}
    dirs = set(prefixes)
    for entry in sys.path:
        real = os.path.realpath(entry or ".")
        if not os.path.isdir(real) or any(launching.inside(h, real) for h in hidden):
            continue
        if launching.inside(real, KIT) and not any(launching.inside(real, p) for p in prefixes):
            continue
        dirs.add(real)
    return sorted(dirs)


def _outermost(dirs: list[str]) -> list[str]:
    """The folders not inside another one of the list: binding those shows the rest."""
    unique = sorted(set(dirs))
    return [d for d in unique if not any(d != other and launching.inside(d, other) for other in unique)]
