"""The jail a learner's file runs in, on Linux: namespaces, a read-only view of a few files, limits.

The grader imports this module for `command()` (wrap the sandbox's command line), `environment()`,
`stop()` and `unavailable_reason()`. Run as a script (`python -I -S jail.py SPEC`), it is the jail
itself, three processes, each started by the one before:

    A  launcher   the grader's child. As root: joins a memory and a pids cgroup of its own; unshares
                  mount, pid, network, ipc, uts and cgroup namespaces (plus a user namespace, when
                  not root); waits for B and exits the way the sandbox did.
    B  pid 1      of the new pid namespace. Builds the file view on a tmpfs and pivots into it,
                  drops to an unprivileged uid (as root: a host uid of its own, UID_BASE + A's pid)
                  with no capabilities and no_new_privs, forks C and reaps orphans.
    C  sandbox    enters a user namespace of its own as uid 1000, sets its rlimits, then execs
                  `python validator/sandbox.py`: the learner's code runs here.

Teardown: A dies with the grader's thread that started it (PR_SET_PDEATHSIG), B with A, and when
B (pid 1) ends the kernel kills everything left in its pid namespace. stop() asks A to end B, so
when it returns nothing of the submission runs any more, and removes the cgroups.

Only the standard library: A runs with -I -S, without the kit's packages.
"""
from __future__ import annotations

import functools
import json
import os
import signal
import subprocess
import sys

JAIL = os.path.abspath(__file__)
KIT = os.path.dirname(os.path.dirname(JAIL))  # never visible in the jail, but for the files asked for
OFF_VARIABLE = "REACTLINGS_SANDBOX"  # REACTLINGS_SANDBOX=off runs submissions unisolated (debugging)
required = False  # --require-isolation: spawning an unisolated child is an error, not a warning

LEARNER_UID = 1000  # the learner's uid inside its user namespace
UID_BASE = 2_000_000_000  # as root: the child runs as host uid UID_BASE + the launcher's pid
SCRATCH_BYTES = 64 * 1024 * 1024  # the private /tmp
FILE_BYTES = 64 * 1024 * 1024  # largest file the learner's code may write
OPEN_FILES = 256
PROCESSES = 64  # processes and threads of the learner's (RLIMIT_NPROC, and the pids cgroup)
CPU_SECONDS = 120  # per process; a call's time limit is wall-clock and much shorter
SETUP_FAILED = 121  # exit status of a jail that could not be built

NOT_ENFORCED = ("submissions run with per-process limits in a process group only: they can read "
                "and write what you can, see your processes and use the network")


class Unavailable(RuntimeError):
    """Isolation is required (--require-isolation) and this machine can't provide it."""


# ---------------------------------------------------------------- grader side

def environment() -> dict[str, str]:
    """All the environment a child gets: nothing of the grader's (API keys, the seed, ...)."""
    return {"PATH": "/usr/local/bin:/usr/bin:/bin", "LANG": "C.UTF-8", "HOME": "/tmp", "TMPDIR": "/tmp",
            "PYTHONHASHSEED": "0", "PYTHONDONTWRITEBYTECODE": "1"}


def unavailable_reason() -> str | None:
    """None when children run jailed; else one line: why not, and what is then not enforced."""
    return _probe()[0]


def totals_note() -> str | None:
    """When jailed but without cgroups: which totals per submission are not enforced."""
    missing = [c for c in ("memory", "pids") if c not in _probe()[1]]
    if unavailable_reason() or not missing:
        return None
    return (f"no writable {'/'.join(missing)} cgroup (v1): memory and process count are limited per "
            "process, not in total per submission")


def isolating() -> bool:
    """Whether the next child runs jailed. Raises Unavailable when required and impossible."""
    reason = unavailable_reason()
    if reason and required:
        raise Unavailable(reason)
    return reason is None


def command(argv: list[str], *, files: list, fds: list[int], memory: int) -> list[str]:
    """The command line that runs `argv` jailed. `files` (absolute real paths) are the only files of
    the grader's machine the child sees besides Python and the OS's libraries, each alone in its
    folder; `fds` are open files passed on to argv's process; `memory` bytes: its limit."""
    spec = {"grader": os.getpid(), "argv": argv, "env": environment(), "fds": fds,
            "plan": _plan([os.path.realpath(f) for f in files if os.path.exists(f)]),
            "limits": {"memory": memory, "processes": PROCESSES, "files": OPEN_FILES,
                       "file_bytes": FILE_BYTES, "cpu": CPU_SECONDS, "scratch": SCRATCH_BYTES}}
    return [sys.executable, "-I", "-S", JAIL, json.dumps(spec)]


def stop(process: subprocess.Popen) -> bool:
    """End a jailed child and all it started, and remove its cgroups; False if it isn't jailed."""
    if not (isinstance(process.args, list) and JAIL in process.args[:4]):
        return False
    if process.poll() is None:
        process.send_signal(signal.SIGTERM)  # A kills B: the pid namespace is gone when A exits
        try:
            process.wait(timeout=2)
        except subprocess.TimeoutExpired:
            os.killpg(process.pid, signal.SIGKILL)  # B dies with A (its parent-death signal)
            process.wait()
    for folder in _cgroup_folders().values():
        _remove_cgroup(os.path.join(folder, _cgroup_name(process.pid)))
    return True


def limit_process(memory: int) -> None:
    """The rlimits of an unjailed child (RLIMIT_NPROC would count all of the user's processes)."""
    _set_rlimits({"memory": memory, "files": OPEN_FILES, "file_bytes": FILE_BYTES, "cpu": CPU_SECONDS})


@functools.lru_cache(maxsize=None)
def _probe() -> tuple[str | None, tuple[str, ...]]:
    """Build a jail once, as for a submission, without running anything in it: (why it failed, or
    None; the cgroup controllers it joined)."""
    if sys.platform != "linux":
        return f"isolation unavailable (not Linux): {NOT_ENFORCED}", ()
    if os.environ.get(OFF_VARIABLE, "").lower() in ("off", "0", "no"):
        return f"isolation turned off ({OFF_VARIABLE}=off): {NOT_ENFORCED}", ()
    argv = command(["probe"], files=[os.path.join(KIT, "validator", "sandbox.py")], fds=[], memory=1 << 30)
    try:
        done = subprocess.run(argv[:4] + ["--probe", argv[4]], capture_output=True, text=True, timeout=20,
                              env=environment())
    except (OSError, subprocess.TimeoutExpired) as error:
        return f"isolation unavailable ({error}): {NOT_ENFORCED}", ()
    lines = done.stdout.split("\n")
    if done.returncode != 0 or "jailed" not in lines:
        why = done.stderr.strip().splitlines()[-1:] or [f"exit status {done.returncode}"]
        return f"isolation unavailable ({why[0]}): {NOT_ENFORCED}", ()
    joined = next((line.split()[1:] for line in lines if line.startswith("cgroups")), [])
    return None, tuple(joined)


def _plan(files: list[str]) -> list[list[str]]:
    """What the jail's root holds, as [kind, path in the jail, source or content], parents first.
    Kinds: ro (read-only bind), dev (a device), tmpfs (the scratch /tmp), mask (an empty read-only
    folder over a bound one), proc, link (a symlink), text (a small file written in)."""
    plan = [["tmpfs", "/tmp", ""], ["proc", "/proc", ""]]
    hidden = [KIT] + [os.path.dirname(f) for f in files]  # folders whose other files stay unseen
    dirs = _outermost(_python_dirs(hidden) + _system_dirs(plan))
    plan += [["ro", d, d] for d in dirs]
    plan += [["mask", folder, ""] for folder in sorted(set(hidden))
             if any(_inside(folder, d) for d in dirs)]
    plan += [["ro", f, f] for f in files]
    plan += [["dev", f"/dev/{name}", f"/dev/{name}"] for name in ("null", "zero", "full", "random", "urandom")]
    plan += [["link", f"/dev/{name}", target] for name, target in (
        ("fd", "/proc/self/fd"), ("stdin", "/proc/self/fd/0"), ("stdout", "/proc/self/fd/1"),
        ("stderr", "/proc/self/fd/2"), ("shm", "/tmp"))]
    plan += [["text", "/etc/passwd", f"learner:x:{LEARNER_UID}:{LEARNER_UID}:learner:/tmp:/bin/sh\n"],
             ["text", "/etc/group", f"learner:x:{LEARNER_UID}:\n"]]
    if os.path.isfile("/etc/ld.so.cache"):
        plan.append(["ro", "/etc/ld.so.cache", "/etc/ld.so.cache"])
    if os.path.islink("/etc/localtime"):
        plan.append(["link", "/etc/localtime", os.readlink("/etc/localtime")])
    return sorted(plan, key=lambda entry: entry[1].count("/"))


def _python_dirs(hidden: list[str]) -> list[str]:
    """The interpreter, its standard library and every package folder the grader imports from;
    not the kit's own folders (tests/, the kit itself) nor any folder holding a hidden one."""
    prefixes = {os.path.realpath(p) for p in (sys.prefix, sys.exec_prefix, sys.base_prefix, sys.base_exec_prefix)}
    dirs = set(prefixes)
    for entry in sys.path:
        real = os.path.realpath(entry or ".")
        if not os.path.isdir(real) or any(_inside(h, real) for h in hidden):
            continue
        if _inside(real, KIT) and not any(_inside(real, p) for p in prefixes):
            continue
        dirs.add(real)
    return sorted(dirs)


def _system_dirs(plan: list) -> list[str]:
    """/usr, and /bin, /lib, ... as the host has them: folders, or links into /usr (adds the links)."""
    dirs = ["/usr"]
    for top in ("/bin", "/sbin", "/lib", "/lib32", "/lib64", "/libx32"):
        if os.path.islink(top):
            plan.append(["link", top, os.readlink(top)])
        elif os.path.isdir(top):
            dirs.append(top)
    return dirs


def _inside(path: str, folder: str) -> bool:
    return path == folder or path.startswith(folder.rstrip("/") + "/")


def _outermost(dirs: list[str]) -> list[str]:
    """The folders not inside another one of the list: binding those shows the rest."""
    unique = sorted(set(dirs))
    return [d for d in unique if not any(d != other and _inside(d, other) for other in unique)]


def _cgroup_name(launcher_pid: int) -> str:
    return f"reactlings-{launcher_pid}"


@functools.lru_cache(maxsize=None)
def _cgroup_folders() -> dict[str, str]:
    """controller -> this process's cgroup folder, for the v1 memory and pids hierarchies."""
    try:
        with open("/proc/self/cgroup", encoding="utf-8") as own, open("/proc/self/mountinfo", encoding="utf-8") as mounts:
            groups, mountinfo = own.read(), mounts.read()
    except OSError:
        return {}
    mine = {}
    for line in groups.splitlines():
        _, controllers, path = line.split(":", 2)
        mine.update({c: path for c in controllers.split(",") if c})
    folders = {}
    for line in mountinfo.splitlines():
        fields = line.split()
        tail = fields[fields.index("-") + 1:]
        if len(tail) < 3 or tail[0] != "cgroup":
            continue
        root, point = fields[3], fields[4]
        for controller in ("memory", "pids"):
            path = mine.get(controller)
            if controller in tail[2].split(",") and path and _inside(path, root):
                folders[controller] = point + path[len(root.rstrip("/")):]
    return folders


def _remove_cgroup(folder: str) -> None:
    try:
        os.rmdir(folder)
    except OSError:
        pass  # gone already, or busy: the next launcher sweeps it


# ---------------------------------------------------------------- child side: Linux calls

CLONE_NEWNS, CLONE_NEWCGROUP, CLONE_NEWUTS = 0x00020000, 0x02000000, 0x04000000
CLONE_NEWIPC, CLONE_NEWUSER, CLONE_NEWPID, CLONE_NEWNET = 0x08000000, 0x10000000, 0x20000000, 0x40000000
MS_RDONLY, MS_NOSUID, MS_NODEV, MS_NOEXEC, MS_REMOUNT = 1, 2, 4, 8, 32
MS_NOATIME, MS_NODIRATIME, MS_BIND, MS_REC, MS_PRIVATE, MS_RELATIME = 1024, 2048, 4096, 16384, 1 << 18, 1 << 21
MNT_DETACH = 2
PR_SET_PDEATHSIG, PR_SET_DUMPABLE, PR_CAPBSET_DROP, PR_SET_NO_NEW_PRIVS = 1, 4, 24, 38
PIVOT_ROOT = {"x86_64": 155, "aarch64": 41, "arm64": 41, "riscv64": 41, "loongarch64": 41, "ppc64le": 203,
              "ppc64": 203, "s390x": 217, "i686": 217, "i386": 217, "armv7l": 218, "armv6l": 218}


@functools.lru_cache(maxsize=None)
def _libc():
    import ctypes
    libc = ctypes.CDLL(None, use_errno=True)
    libc.mount.argtypes = [ctypes.c_char_p, ctypes.c_char_p, ctypes.c_char_p, ctypes.c_ulong, ctypes.c_char_p]
    libc.prctl.argtypes = [ctypes.c_int, ctypes.c_ulong, ctypes.c_ulong, ctypes.c_ulong, ctypes.c_ulong]
    return libc


def _check(result: int, what: str) -> None:
    if result != 0:
        import ctypes
        number = ctypes.get_errno()
        raise OSError(number, f"{what}: {os.strerror(number)}")


def _bytes(text: str | None) -> bytes | None:
    return None if text is None else os.fsencode(text)


def _unshare(flags: int) -> None:
    _check(_libc().unshare(flags), "unshare")


def _mount(source: str | None, target: str, fstype: str | None, flags: int, data: str | None = None) -> None:
    _check(_libc().mount(_bytes(source), _bytes(target), _bytes(fstype), flags, _bytes(data)), f"mount {target}")


def _prctl(option: int, value: int = 0) -> None:
    _check(_libc().prctl(option, value, 0, 0, 0), f"prctl {option}")


def _pivot_root() -> None:
    """pivot_root(".", "."): the old root ends up on top of the new one, and is detached."""
    number = PIVOT_ROOT.get(os.uname().machine)
    if number is None:
        raise OSError(f"pivot_root: no syscall number known for {os.uname().machine}")
    _check(_libc().syscall(number, b".", b"."), "pivot_root")
    _check(_libc().umount2(b".", MNT_DETACH), "umount old root")


def _drop_capabilities() -> None:
    """Empty the bounding set (no exec can grant any) and every capability set of this process."""
    import ctypes
    with open("/proc/sys/kernel/cap_last_cap", encoding="ascii") as last:
        for cap in range(int(last.read()) + 1):
            _libc().prctl(PR_CAPBSET_DROP, cap, 0, 0, 0)  # without CAP_SETPCAP: already dropped
    header = (ctypes.c_uint32 * 2)(0x20080522, 0)  # _LINUX_CAPABILITY_VERSION_3, this process
    _check(_libc().capset(header, (ctypes.c_uint32 * 6)()), "capset")


def _write(path: str, text: str) -> None:
    with open(path, "w", encoding="ascii") as file:
        file.write(text)


def _map_self(inner: int) -> None:
    """Enter a user namespace of our own, in which our host uid and gid are `inner`."""
    uid, gid = os.geteuid(), os.getegid()
    _unshare(CLONE_NEWUSER)
    if os.path.exists("/proc/self/setgroups"):
        _write("/proc/self/setgroups", "deny")
    _write("/proc/self/uid_map", f"{inner} {uid} 1")
    _write("/proc/self/gid_map", f"{inner} {gid} 1")


def _set_rlimits(limits: dict) -> None:
    import resource
    wanted = {resource.RLIMIT_AS: limits["memory"], resource.RLIMIT_FSIZE: limits["file_bytes"],
              resource.RLIMIT_NOFILE: limits["files"], resource.RLIMIT_CORE: 0,
              resource.RLIMIT_CPU: (limits["cpu"], limits["cpu"] + 5)}  # SIGXCPU, then SIGKILL
    if "processes" in limits:
        wanted[resource.RLIMIT_NPROC] = limits["processes"]
    for which, value in wanted.items():
        soft, hard = value if isinstance(value, tuple) else (value, value)
        _, current = resource.getrlimit(which)
        if current != resource.RLIM_INFINITY:
            soft, hard = min(soft, current), min(hard, current)
        resource.setrlimit(which, (soft, hard))


# ---------------------------------------------------------------- child side: A, the launcher

def launch(spec: dict, probe: bool) -> None:
    """A: runs in the grader's namespaces, as the grader's user."""
    _prctl(PR_SET_PDEATHSIG, signal.SIGKILL)
    if os.getppid() != spec["grader"]:
        os._exit(SETUP_FAILED)  # the grader died before the line above
    root = os.geteuid() == 0
    joined = _join_cgroups(spec["limits"]) if root else []
    if probe:
        print("cgroups", *joined, flush=True)
    flags = CLONE_NEWNS | CLONE_NEWPID | CLONE_NEWNET | CLONE_NEWIPC | CLONE_NEWUTS | CLONE_NEWCGROUP
    if root:
        _unshare(flags)  # the namespaces belong to the host's root: the learner can never own them
    else:
        _map_self(0)  # root of a user namespace of our own: owns the namespaces made next
        _unshare(flags)
    alive_r, alive_w = os.pipe()  # B sees A gone when this pipe ends; A never writes it
    status_r, status_w = os.pipe()  # B writes the sandbox's wait status here
    init_pid = os.fork()
    if init_pid == 0:
        os.close(alive_w)
        os.close(status_r)
        _run_setup(init, spec, root, alive_r, status_w, probe)
    os.close(alive_r)
    os.close(status_w)
    for fd in spec["fds"]:
        os.close(fd)  # so the grader sees EOF as soon as the sandbox is gone
    signal.signal(signal.SIGTERM, lambda *_: _kill(init_pid))
    _, status = os.waitpid(init_pid, 0)
    with os.fdopen(status_r, "rb") as reported:
        told = reported.read()
    _exit_like(int(told) if told else status)


def _kill(pid: int) -> None:
    try:
        os.kill(pid, signal.SIGKILL)
    except ProcessLookupError:
        pass


def _join_cgroups(limits: dict) -> list[str]:
    """A memory and a pids cgroup under the grader's own, holding this process (and so all its
    descendants): totals for the whole submission. Best effort: rlimits still hold without."""
    settings = {"memory": [("memory.limit_in_bytes", limits["memory"]),
                           ("memory.memsw.limit_in_bytes", limits["memory"])],
                "pids": [("pids.max", limits["processes"] + 4)]}  # + A, B and their threads
    joined = []
    for controller, folder in _cgroup_folders().items():
        _sweep(folder)
        mine = os.path.join(folder, _cgroup_name(os.getpid()))
        try:
            os.mkdir(mine)
            for name, value in settings[controller]:
                if os.path.exists(os.path.join(mine, name)):
                    _write(os.path.join(mine, name), str(value))
            _write(os.path.join(mine, "cgroup.procs"), str(os.getpid()))
            joined.append(controller)
        except OSError:
            _remove_cgroup(mine)
    return joined


def _sweep(folder: str) -> None:
    """Remove the empty cgroups of launchers that are gone (their grader was killed)."""
    try:
        names = [n for n in os.listdir(folder) if n.startswith("reactlings-")]
    except OSError:
        return
    for name in names:
        try:
            os.kill(int(name.split("-")[1]), 0)
        except ProcessLookupError:
            _remove_cgroup(os.path.join(folder, name))
        except (ValueError, OSError):
            pass


def _run_setup(step, *args) -> None:
    """Run a child's part; a jail that can't be built says why on stderr and exits SETUP_FAILED."""
    try:
        step(*args)
    except BaseException as error:  # noqa: BLE001 -- nothing may run unjailed past this point
        os.write(2, f"jail: {error}\n".encode(errors="replace"))
    os._exit(SETUP_FAILED)


def _exit_like(status: int) -> None:
    """End this process as the sandbox ended: its exit status, or killed by its signal."""
    if os.WIFSIGNALED(status):
        number = os.WTERMSIG(status)
        signal.signal(number, signal.SIG_DFL)
        os.kill(os.getpid(), number)
    os._exit(os.WEXITSTATUS(status) if os.WIFEXITED(status) else SETUP_FAILED)


# ---------------------------------------------------------------- child side: B, pid 1

def init(spec: dict, root: bool, alive_r: int, status_w: int, probe: bool) -> None:
    _die_with_parent(alive_r)
    _build_root(spec["plan"], spec["limits"]["scratch"])
    _next_pid(spec)
    if root:
        uid = UID_BASE + spec["launcher"]  # distinct per live child: RLIMIT_NPROC counts it alone
        os.setgroups([])
        os.setresgid(uid, uid, uid)
        os.setresuid(uid, uid, uid)
        _die_with_parent(alive_r)  # changing uid cleared the parent-death signal
    _drop_capabilities()
    _prctl(PR_SET_NO_NEW_PRIVS, 1)
    sandbox_pid = os.fork()
    if sandbox_pid == 0:
        _run_setup(sandbox, spec, probe)
    for fd in spec["fds"] + [alive_r]:
        os.close(fd)
    while True:  # pid 1 adopts orphans: reap them until the sandbox ends
        pid, status = os.waitpid(-1, 0)
        if pid == sandbox_pid:
            os.write(status_w, str(status).encode())
            os._exit(0)  # pid 1 gone: the kernel kills what the learner's code left running


def _die_with_parent(alive_r: int) -> None:
    _prctl(PR_SET_PDEATHSIG, signal.SIGKILL)
    os.set_blocking(alive_r, False)
    try:
        if os.read(alive_r, 1) == b"":
            os._exit(SETUP_FAILED)  # A is already gone
    except BlockingIOError:
        pass


def _build_root(plan: list, scratch: int) -> None:
    """The new root: a small tmpfs holding the planned binds, all read-only but /tmp; pivot into it."""
    _mount(None, "/", None, MS_REC | MS_PRIVATE)  # nothing done here reaches the host's mounts
    sources = {entry[1]: os.open(entry[2], os.O_PATH | os.O_CLOEXEC) for entry in plan
               if entry[0] in ("ro", "dev")}  # opened now: /tmp (maybe holding some) is covered next
    new = "/tmp"
    _mount("tmpfs", new, "tmpfs", MS_NOSUID | MS_NODEV, "size=1m,nr_inodes=4096,mode=755")
    read_only = [new]
    for kind, target, source in plan:
        path = new + target
        os.makedirs(os.path.dirname(path), exist_ok=True)
        if kind in ("ro", "dev"):
            _bind(sources.pop(target), path, device=kind == "dev")
        elif kind == "tmpfs":
            os.makedirs(path, exist_ok=True)
            _mount("tmpfs", path, "tmpfs", MS_NOSUID | MS_NODEV, f"size={scratch},nr_inodes=16384,mode=1777")
        elif kind == "mask":
            _mount("tmpfs", path, "tmpfs", MS_NOSUID | MS_NODEV, "size=64k,nr_inodes=256,mode=755")
            read_only.append(path)
        elif kind == "proc":
            os.makedirs(path, exist_ok=True)
            _mount("proc", path, "proc", MS_NOSUID | MS_NODEV | MS_NOEXEC)
        elif kind == "link":
            os.symlink(source, path)
        elif kind == "text":
            _write(path, source)
    for path in reversed(read_only):  # masks, then the root itself: nothing more can be created
        _mount(None, path, None, MS_REMOUNT | MS_RDONLY | MS_NOSUID | MS_NODEV)
    os.chdir(new)
    _pivot_root()
    os.chdir("/")


def _bind(fd: int, path: str, device: bool) -> None:
    """Bind what fd names at path, read-only (keeping the flags the source mount has locked)."""
    import stat
    if not os.path.lexists(path):
        if stat.S_ISDIR(os.fstat(fd).st_mode):
            os.mkdir(path)
        else:
            os.close(os.open(path, os.O_WRONLY | os.O_CREAT, 0o644))
    source = f"/proc/self/fd/{fd}"
    try:
        _mount(source, path, None, MS_BIND)
    except OSError:
        _mount(source, path, None, MS_BIND | MS_REC)  # in a user namespace, for a folder with mounts below
    os.close(fd)
    kept = os.statvfs(path).f_flag
    flags = MS_REMOUNT | MS_BIND | MS_RDONLY | MS_NOSUID | (0 if device else MS_NODEV)
    for st, ms in ((os.ST_NODEV, MS_NODEV), (os.ST_NOEXEC, MS_NOEXEC), (os.ST_NOATIME, MS_NOATIME),
                   (os.ST_NODIRATIME, MS_NODIRATIME), (os.ST_RELATIME, MS_RELATIME)):
        flags |= ms if kept & st else 0
    _mount(None, path, None, flags)


def _next_pid(spec: dict) -> None:
    """Every fresh pid namespace would number its sandbox 2; start after the launcher's host pid
    instead, so a restarted child has another pid, as it would unjailed. Best effort."""
    try:
        with open("/proc/sys/kernel/pid_max", encoding="ascii") as limit:
            highest = int(limit.read()) - 100
        _write("/proc/sys/kernel/ns_last_pid", str(max(1, spec["launcher"] % highest)))
    except (OSError, ValueError):
        pass


# ---------------------------------------------------------------- child side: C, the sandbox

def sandbox(spec: dict, probe: bool) -> None:
    _prctl(PR_SET_DUMPABLE, 1)  # our /proc/self files are ours again after the uid change
    _map_self(LEARNER_UID)
    try:
        _write("/proc/sys/user/max_user_namespaces", "0")  # ours only: no nested namespace for the learner
    except OSError:
        pass
    _write("/proc/self/oom_score_adj", "1000")  # out of memory, the learner's processes go first
    _drop_capabilities()  # those of the new user namespace, useless to the learner
    _set_rlimits(spec["limits"])
    os.chdir("/tmp")
    if probe:
        _report_probe()
    os.execve(spec["argv"][0], spec["argv"], spec["env"])


def _report_probe() -> None:
    with open("/proc/self/status", encoding="ascii") as status:
        fields = dict(line.split(":\t", 1) for line in status.read().splitlines() if ":\t" in line)
    if int(fields["CapEff"], 16) or int(fields["CapBnd"], 16) or fields["NoNewPrivs"].strip() != "1":
        raise OSError("capabilities left after dropping them")
    if os.path.exists(os.path.join(KIT, "validator", "jail.py")) or os.getuid() != LEARNER_UID:
        raise OSError("the kit is visible, or the uid is not the learner's")
    print("jailed", flush=True)
    os._exit(0)


def main(argv: list[str]) -> None:
    probe = argv[1] == "--probe"
    spec = json.loads(argv[-1])
    spec["launcher"] = os.getpid()
    try:
        launch(spec, probe)
    except BaseException as error:  # noqa: BLE001
        os.write(2, f"jail: {error}\n".encode(errors="replace"))
        os._exit(SETUP_FAILED)


if __name__ == "__main__":
    main(sys.argv)
