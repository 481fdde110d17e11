"""Isolation by user only (spec["level"] == "user"): as root where no namespace can be made, a
second level to enter_jail.py's jail. There is no B: A, still root, gives the child's folders to
uid UID_BASE + its pid and forks C, which becomes that uid (no capabilities, no_new_privs,
rlimits), enters its scratch folder and runs the sandbox. When C ends, or on SIGTERM, A kills
every process of that uid and removes what it left in the folders anyone may write (sweep_user),
then exits as C did. Builtin modules and ctypes only (see enter_jail.py).
"""
import _signal
import os

if __package__:  # the grader's import: validator.child.isolate_by_user
    from . import launching, linux
else:  # the launcher's and the fork server's: its files beside each other on sys.path
    import launching, linux

SHARED_FOLDERS = ("/tmp", "/var/tmp", "/dev/shm", "/dev/mqueue")  # where any user may leave files
SWEEP_WAIT = 10  # seconds for a uid's processes to be gone once killed


def launch_by_user(spec: dict, probe: bool) -> None:
    """A, isolated by user: root, in the grader's namespaces."""
    launching.die_with(spec["grader"], launching.SETUP_FAILED)
    uid = launching.UID_BASE + os.getpid()  # distinct per live child: RLIMIT_NPROC counts it alone
    _kill_orphans()
    joined = launching.join_cgroups(spec["limits"], join=not probe)
    if probe:
        os.write(1, " ".join(["cgroups", *joined, "\n"]).encode())
    for folder, _, _ in os.walk(spec["copies"]):  # the copies: its group's, to read, and no other uid's
        os.chown(folder, 0, uid)
        os.chmod(folder, 0o750)
    os.chown(spec["scratch"], uid, uid)
    os.chmod(spec["scratch"], 0o700)
    started = []  # set before forking: a SIGTERM at any time still ends in the sweep below
    _signal.signal(linux.SIGTERM, lambda *_: [linux.kill(pid) for pid in started])
    child = os.fork()
    if child == 0:
        _signal.signal(linux.SIGTERM, _signal.SIG_DFL)
        launching.run_step(as_user, spec, uid, probe)
    started.append(child)
    for fd in spec["fds"]:
        os.close(fd)  # so the grader sees EOF as soon as the sandbox is gone
    _, status = os.waitpid(child, 0)
    sweep_user(uid)
    launching.exit_like(status)


def as_user(spec: dict, uid: int, probe: bool) -> None:
    """C, isolated by user: become `uid` for good, then run the sandbox."""
    linux.write("/proc/self/oom_score_adj", "1000")  # out of memory, the learner's processes go first
    launching.set_rlimits(spec["limits"])  # RLIMIT_NPROC counts the processes of the uid it becomes
    _become(uid)
    linux.prctl(linux.PR_SET_PDEATHSIG, linux.SIGKILL)  # changing uid cleared it
    if os.getppid() != spec["launcher"]:
        os._exit(launching.SETUP_FAILED)  # A was gone before the line above
    linux.prctl(linux.PR_SET_DUMPABLE, 1)  # its /proc/self files its own again, as after an exec
    linux.drop_capabilities()
    linux.prctl(linux.PR_SET_NO_NEW_PRIVS, 1)
    linux.fresh_keyrings()  # none of the grader's, none a child of this uid left
    os.chdir(spec["scratch"])
    if probe:
        launching.report_probe(spec, uid)
    launching.run_sandbox(spec)


def _become(uid: int) -> None:
    """Root to `uid` (its gid the same number), no groups: leaving uid 0 drops every capability."""
    linux.drop_bounding_set()  # first: the uid change takes CAP_SETPCAP with the rest
    os.setgroups([])
    os.setresgid(uid, uid, uid)
    os.setresuid(uid, uid, uid)


def sweep_user(uid: int) -> None:
    """Kill every process of `uid` and remove what it left in SHARED_FOLDERS and System V IPC, as
    `uid` itself in a fork: a process may signal all of its own uid's at once (kill(-1), which a
    fork bomb can't outrun), and as that uid nothing else can be removed. One of them may kill that
    fork first (it is of their uid): then root kills those left, one by one, and sweeps again."""
    import time
    deadline = time.monotonic() + SWEEP_WAIT
    while True:
        pid = os.fork()
        if pid == 0:
            try:
                _become(uid)
                if _kill_all_mine(uid, deadline):
                    for folder in SHARED_FOLDERS:
                        _remove_mine(folder, uid, depth=3)
                    _remove_ipc_objects(uid)
                    os._exit(0)
            finally:
                os._exit(1)
        _, status = os.waitpid(pid, 0)
        if status == 0 or time.monotonic() > deadline:
            return
        for left in _living_of(uid):
            _kill_as_root(left, uid)


def _kill_orphans() -> None:
    """Kill the processes of children's uids whose launcher is gone: it was killed (kill -9 of the
    grader) before it could sweep. Root here."""
    for name in os.listdir("/proc"):
        try:
            uid = _uid_of(name) if name.isdigit() else 0
        except OSError:
            continue
        launcher = uid - launching.UID_BASE
        if 0 < launcher < (1 << 22) and not launching.alive(str(launcher)):
            _kill_as_root(int(name), uid)


def _kill_as_root(pid: int, uid: int) -> None:
    """Kill process `pid` if it is of `uid`: through a pidfd, so that a pid reused meanwhile is
    never hit."""
    try:
        pidfd = os.pidfd_open(pid)
    except OSError:
        return
    try:
        if _uid_of(str(pid)) == uid:
            _signal.pidfd_send_signal(pidfd, linux.SIGKILL)
    except OSError:
        pass
    finally:
        os.close(pidfd)


def _kill_all_mine(uid: int, deadline: float) -> bool:
    """Whether every other process of `uid` (this one's) is gone, before `deadline`."""
    import time
    while time.monotonic() < deadline:
        try:
            os.kill(-1, linux.SIGKILL)  # every process this one may signal: those of its uid, but itself
        except ProcessLookupError:
            return True  # none
        if not _living_of(uid):
            return True  # zombies at most, for their parents to reap
        time.sleep(0.005)
    return False


def _living_of(uid: int) -> list[int]:
    """The live processes of `uid` other than this one."""
    found = []
    for name in os.listdir("/proc"):
        if name.isdigit() and int(name) != os.getpid():
            try:
                if _uid_of(name) == uid and launching.alive(name):
                    found.append(int(name))
            except OSError:
                pass
    return found


def _uid_of(pid: str) -> int:
    """A process's real uid. Not its /proc folder's owner: that is root's once it makes itself
    not dumpable (PR_SET_DUMPABLE 0), which any process may."""
    with open(f"/proc/{pid}/status", encoding="ascii", errors="replace") as status:
        line = next(line for line in status if line.startswith("Uid:"))
    return int(line.split()[1])


def _remove_ipc_objects(uid: int) -> None:
    """Remove the System V shared memory, message queues and semaphores `uid` made: they outlive
    their maker (the machine's, with no ipc namespace of its own)."""
    libc = linux.libc()
    for kind, remove in (("shm", lambda i: libc.shmctl(i, 0, None)), ("msg", lambda i: libc.msgctl(i, 0, None)),
                         ("sem", lambda i: libc.semctl(i, 0, 0))):  # IPC_RMID is 0
        try:
            with open(f"/proc/sysvipc/{kind}", encoding="ascii") as table:
                header, *rows = [line.split() for line in table.read().splitlines()]
        except (OSError, ValueError):
            continue
        for row in rows:
            fields = dict(zip(header, row))
            if str(uid) in (fields.get("uid"), fields.get("cuid")):
                remove(int(row[1]))  # the id, whatever its column is named


def _remove_mine(folder: str, uid: int, depth: int) -> None:
    """Remove what `uid` owns in `folder`, and in the folders there that anyone may write."""
    try:
        entries = list(os.scandir(folder))
    except OSError:
        return
    for entry in entries:
        try:
            info = entry.stat(follow_symlinks=False)
        except OSError:
            continue
        if info.st_uid == uid:
            _remove(entry.path, entry.is_dir(follow_symlinks=False))
        elif depth and entry.is_dir(follow_symlinks=False) and info.st_mode & 0o002:
            _remove_mine(entry.path, uid, depth - 1)


def _remove(path: str, folder: bool) -> None:
    if not folder:
        try:
            os.unlink(path)
        except OSError:
            pass
        return
    try:
        entries = list(os.scandir(path))
    except OSError:
        entries = []
    for entry in entries:
        _remove(entry.path, entry.is_dir(follow_symlinks=False))
    try:
        os.rmdir(path)
    except OSError:
        pass
