"""Builds the jail a learner's file runs in, on Linux, then execs the sandbox in it (see jail.py).

The grader starts `python -I -S -c LAUNCH run` (see jail.py) with the SPEC in its environment
(marshal, in hex): pid 1's command line can be read in the jail, its environment can't. Three
processes follow, each started by the one before:

    A  launcher   the grader's child. As root: joins a memory and a pids cgroup of its own. Unshares
                  mount, pid, network, ipc, uts and cgroup namespaces (not root: in a user
                  namespace of its own first, whose root owns them). Waits for B; exits as the
                  sandbox did.
    B  pid 1      of the new pid namespace. Builds the view of files on a tmpfs and pivots into it;
                  as root, becomes host uid UID_BASE + A's pid (one per child); forks C; drops all
                  its capabilities; reaps orphans until C ends.
    C  sandbox    enters a user namespace of its own as uid 1000, drops the capabilities that gave
                  it, sets no_new_privs and its rlimits, and execs the sandbox: the learner's code.
                  (Started by a fork server, see forkserver.py, A is a fork of a warm sandbox,
                  and C runs the sandbox in place instead of exec'ing it.)

A dies with the grader's thread that started it, B with A (PR_SET_PDEATHSIG); when B, pid 1, ends,
the kernel kills all that is left in its pid namespace. On SIGTERM, A kills B and waits for it.

Isolated by user only (spec["level"] == "user", as root where no namespace can be made), there is
no B: A, still root, gives the child's folders to uid UID_BASE + its pid and forks C, which becomes
that uid (no capabilities, no_new_privs, rlimits), enters its scratch folder and runs the sandbox.
When C ends, or on SIGTERM, A kills every process of that uid and removes what it left in the
folders anyone may write (sweep_user), then exits as C did.

Builtin modules and ctypes only: this runs before every child, in an interpreter started with
-I -S, so that it starts fast and nothing of the environment or the kit steers it.
"""
import _signal
import marshal
import os

LEARNER_UID = 1000  # the learner's uid inside its user namespace
UID_BASE = 2_000_000_000  # as root: the child runs as host uid UID_BASE + the launcher's pid
SETUP_FAILED = 121  # exit status of a jail that could not be built
# Windows has no SIGKILL or SIGSTOP: the numbers keep this module importable there (no jail is built)
SIGINT, SIGKILL, SIGTERM, SIGSTOP = (getattr(_signal, name, number) for name, number in
                                     (("SIGINT", 2), ("SIGKILL", 9), ("SIGTERM", 15), ("SIGSTOP", 19)))
SPEC_VARIABLE = "REACTLINGS_JAIL"

CLONE_NEWNS, CLONE_NEWCGROUP, CLONE_NEWUTS = 0x00020000, 0x02000000, 0x04000000
CLONE_NEWIPC, CLONE_NEWUSER, CLONE_NEWPID, CLONE_NEWNET = 0x08000000, 0x10000000, 0x20000000, 0x40000000
MS_RDONLY, MS_NOSUID, MS_NODEV, MS_NOEXEC, MS_REMOUNT = 1, 2, 4, 8, 32
MS_NOATIME, MS_NODIRATIME, MS_BIND, MS_REC, MS_PRIVATE, MS_RELATIME = 1024, 2048, 4096, 16384, 1 << 18, 1 << 21
MNT_DETACH = 2
PR_SET_PDEATHSIG, PR_SET_DUMPABLE, PR_CAPBSET_DROP, PR_SET_NO_NEW_PRIVS = 1, 4, 24, 38
PIVOT_ROOT = {"x86_64": 155, "aarch64": 41, "riscv64": 41, "loongarch64": 41, "ppc64le": 203, "ppc64": 203,
              "s390x": 217, "i686": 217, "i386": 217, "armv7l": 218, "armv6l": 218}


# ---------------------------------------------------------------- shared with the grader (jail.py)

def encode(spec: dict) -> str:
    return marshal.dumps(spec).hex()


def decode(text: str) -> dict:
    return marshal.loads(bytes.fromhex(text))


def cgroup_name(launcher_pid: int) -> str:
    return f"reactlings-{launcher_pid}"


def cgroup_folders() -> dict:
    """controller -> this process's cgroup folder, in the v1 memory and pids hierarchies."""
    try:
        with open("/proc/self/cgroup", encoding="utf-8") as own:
            groups = own.read()
        with open("/proc/self/mountinfo", encoding="utf-8") as mounts:
            mountinfo = mounts.read()
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
            if controller in tail[2].split(",") and path and inside(path, root):
                folders[controller] = point + path[len(root.rstrip("/")):]
    return folders


def remove_cgroup(folder: str) -> None:
    try:
        os.rmdir(folder)
    except OSError:
        pass  # gone already, or busy: the next launcher sweeps it


def die_with(parent: int, status: int) -> None:
    """This process gets SIGKILL when its parent (the thread that forked it) ends; if the parent
    is gone already, it exits now with `status`."""
    _prctl(PR_SET_PDEATHSIG, SIGKILL)
    if os.getppid() != parent:
        os._exit(status)  # the parent died before the line above


def inside(path: str, folder: str) -> bool:
    return path == folder or path.startswith(folder.rstrip("/") + "/")


def set_rlimits(limits: dict) -> None:
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


# ---------------------------------------------------------------- Linux calls

_LIBC = None


def _libc():
    global _LIBC
    if _LIBC is None:
        import ctypes
        _LIBC = ctypes.CDLL(None, use_errno=True)
        _LIBC.mount.argtypes = [ctypes.c_char_p, ctypes.c_char_p, ctypes.c_char_p, ctypes.c_ulong, ctypes.c_char_p]
        _LIBC.prctl.argtypes = [ctypes.c_int, ctypes.c_ulong, ctypes.c_ulong, ctypes.c_ulong, ctypes.c_ulong]
    return _LIBC


def _check(result: int, what: str) -> None:
    if result != 0:
        import ctypes
        number = ctypes.get_errno()
        raise OSError(number, f"{what}: {os.strerror(number)}")


def _path(text):
    return None if text is None else os.fsencode(text)


def _unshare(flags: int) -> None:
    _check(_libc().unshare(flags), "unshare")


def _mount(source, target: str, fstype, flags: int, data=None) -> None:
    _check(_libc().mount(_path(source), _path(target), _path(fstype), flags, _path(data)), f"mount {target}")


def _prctl(option: int, value: int = 0) -> None:
    _check(_libc().prctl(option, value, 0, 0, 0), f"prctl {option}")


def _pivot_root() -> None:
    """pivot_root(".", "."): the old root ends up on top of the new one; then it is detached."""
    number = PIVOT_ROOT.get(os.uname().machine)
    if number is None:
        raise OSError(f"pivot_root: no syscall number known for {os.uname().machine}")
    _check(_libc().syscall(number, b".", b"."), "pivot_root")
    _check(_libc().umount2(b".", MNT_DETACH), "umount the old root")


def _drop_bounding_set() -> None:
    """No exec can grant a capability any more. Needs CAP_SETPCAP (else it changes nothing)."""
    with open("/proc/sys/kernel/cap_last_cap", encoding="ascii") as last:
        for cap in range(int(last.read()) + 1):
            _libc().prctl(PR_CAPBSET_DROP, cap, 0, 0, 0)


def _drop_capabilities() -> None:
    """Empty the bounding set and every capability set of this process."""
    import ctypes
    _drop_bounding_set()
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


def _kill(pid: int) -> None:
    try:
        os.kill(pid, SIGKILL)
    except ProcessLookupError:
        pass


# ---------------------------------------------------------------- A, the launcher

def launch(spec: dict, probe: bool) -> None:
    """A: in the grader's namespaces, as the grader's user."""
    die_with(spec["grader"], SETUP_FAILED)
    root = os.geteuid() == 0
    joined = _join_cgroups(spec["limits"], join=not probe) if root else []
    if probe:
        os.write(1, " ".join(["cgroups", *joined, "\n"]).encode())
    flags = CLONE_NEWNS | CLONE_NEWPID | CLONE_NEWNET | CLONE_NEWIPC | CLONE_NEWUTS | CLONE_NEWCGROUP
    if not root:
        _map_self(0)  # root of a user namespace of our own, which owns the namespaces made next
    _unshare(flags)  # as root: owned by the host's root, so the learner can never act on them
    alive_r, alive_w = os.pipe()  # B knows A is gone when this pipe ends; nobody writes it
    status_r, status_w = os.pipe()  # B writes the sandbox's wait status here
    init_pid = os.fork()
    if init_pid == 0:
        os.close(alive_w)
        os.close(status_r)
        _run_step(init, spec, root, alive_r, status_w, probe)
    os.close(alive_r)
    os.close(status_w)
    for fd in spec["fds"]:
        os.close(fd)  # so the grader sees EOF as soon as the sandbox is gone
    _signal.signal(SIGTERM, lambda *_: _kill(init_pid))
    _, status = os.waitpid(init_pid, 0)
    with os.fdopen(status_r, "rb") as reported:
        told = reported.read()
    _exit_like(int(told) if told else status)


def _join_cgroups(limits: dict, join: bool = True) -> list:
    """A memory and a pids cgroup under the grader's own, holding this process and so all its
    descendants: totals for the whole submission. Best effort: the rlimits hold without them.
    Not joining (the probe) saves the few ms that moving a process between cgroups costs."""
    settings = {"memory": [("memory.limit_in_bytes", limits["memory"]),
                           ("memory.memsw.limit_in_bytes", limits["memory"])],
                "pids": [("pids.max", limits["processes"] + 4)]}  # + A, B and the sandbox's own threads
    joined = []
    for controller, folder in cgroup_folders().items():
        _sweep(folder)
        mine = os.path.join(folder, cgroup_name(os.getpid()))
        try:
            os.mkdir(mine)
            for name, value in settings[controller]:
                if os.path.exists(os.path.join(mine, name)):
                    _write(os.path.join(mine, name), str(value))
            if join:
                _write(os.path.join(mine, "cgroup.procs"), str(os.getpid()))
            joined.append(controller)
        except OSError:
            pass
        if controller not in joined or not join:
            remove_cgroup(mine)  # it failed, or was only tried
    return joined


def _sweep(folder: str) -> None:
    """Remove the empty cgroups of launchers that are gone (their grader was killed)."""
    try:
        names = [n for n in os.listdir(folder) if n.startswith("reactlings-")]
    except OSError:
        return
    for name in names:
        if not _alive(name.split("-")[1]):
            remove_cgroup(os.path.join(folder, name))


def _alive(pid: str) -> bool:
    """A process that exists and is not a zombie (a killed grader's launcher may wait to be reaped)."""
    try:
        with open(f"/proc/{int(pid)}/stat", encoding="ascii", errors="replace") as stat:
            return stat.read().rsplit(")", 1)[1].split()[0] != "Z"
    except (OSError, ValueError, IndexError):
        return False


def _run_step(step, *args) -> None:
    """Run a child's part; a jail that can't be built says why on stderr and exits SETUP_FAILED."""
    try:
        step(*args)
    except BaseException as error:  # noqa: BLE001 -- nothing may run unjailed past this point
        os.write(2, f"jail: {error}\n".encode(errors="replace"))
    os._exit(SETUP_FAILED)


def _exit_like(status: int) -> None:
    """End this process as the sandbox ended: with its exit status, or killed by its signal."""
    if os.WIFSIGNALED(status):
        number = os.WTERMSIG(status)
        if number not in (SIGKILL, SIGSTOP):  # their action can't be changed, nor needs to be
            _signal.signal(number, _signal.SIG_DFL)
        os.kill(os.getpid(), number)
    os._exit(os.WEXITSTATUS(status) if os.WIFEXITED(status) else SETUP_FAILED)


# ---------------------------------------------------------------- isolated by user only

SHARED_FOLDERS = ("/tmp", "/var/tmp", "/dev/shm", "/dev/mqueue")  # where any user may leave files
SWEEP_WAIT = 10  # seconds for a uid's processes to be gone once killed


def launch_by_user(spec: dict, probe: bool) -> None:
    """A, isolated by user: root, in the grader's namespaces."""
    die_with(spec["grader"], SETUP_FAILED)
    uid = UID_BASE + os.getpid()  # distinct per live child: RLIMIT_NPROC counts it alone
    _kill_orphans()
    joined = _join_cgroups(spec["limits"], join=not probe)
    if probe:
        os.write(1, " ".join(["cgroups", *joined, "\n"]).encode())
    for folder, _, _ in os.walk(spec["copies"]):  # the copies: its group's, to read, and no other uid's
        os.chown(folder, 0, uid)
        os.chmod(folder, 0o750)
    os.chown(spec["scratch"], uid, uid)
    os.chmod(spec["scratch"], 0o700)
    started = []  # set before forking: a SIGTERM at any time still ends in the sweep below
    _signal.signal(SIGTERM, lambda *_: [_kill(pid) for pid in started])
    child = os.fork()
    if child == 0:
        _signal.signal(SIGTERM, _signal.SIG_DFL)
        _run_step(as_user, spec, uid, probe)
    started.append(child)
    for fd in spec["fds"]:
        os.close(fd)  # so the grader sees EOF as soon as the sandbox is gone
    _, status = os.waitpid(child, 0)
    sweep_user(uid)
    _exit_like(status)


def as_user(spec: dict, uid: int, probe: bool) -> None:
    """C, isolated by user: become `uid` for good, then run the sandbox."""
    _write("/proc/self/oom_score_adj", "1000")  # out of memory, the learner's processes go first
    set_rlimits(spec["limits"])  # RLIMIT_NPROC counts the processes of the uid it becomes
    _become(uid)
    _prctl(PR_SET_PDEATHSIG, SIGKILL)  # changing uid cleared it
    if os.getppid() != spec["launcher"]:
        os._exit(SETUP_FAILED)  # A was gone before the line above
    _prctl(PR_SET_DUMPABLE, 1)  # its /proc/self files its own again, as after an exec
    _drop_capabilities()
    _prctl(PR_SET_NO_NEW_PRIVS, 1)
    os.chdir(spec["scratch"])
    if probe:
        _report_probe(spec, uid)
    _run_sandbox(spec)


def _become(uid: int) -> None:
    """Root to `uid` (its gid the same number), no groups: leaving uid 0 drops every capability."""
    _drop_bounding_set()  # first: the uid change takes CAP_SETPCAP with the rest
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
        if UID_BASE < uid < UID_BASE + (1 << 22) and not _alive(str(uid - UID_BASE)):
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
            _signal.pidfd_send_signal(pidfd, SIGKILL)
    except OSError:
        pass
    finally:
        os.close(pidfd)


def _kill_all_mine(uid: int, deadline: float) -> bool:
    """Whether every other process of `uid` (this one's) is gone, before `deadline`."""
    import time
    while time.monotonic() < deadline:
        try:
            os.kill(-1, SIGKILL)  # every process this one may signal: those of its uid, but itself
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
                if _uid_of(name) == uid and _alive(name):
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
    libc = _libc()
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


# ---------------------------------------------------------------- B, pid 1

def init(spec: dict, root: bool, alive_r: int, status_w: int, probe: bool) -> None:
    _signal.signal(SIGINT, _signal.SIG_IGN)  # Python's KeyboardInterrupt: the learner could end pid 1
    _die_with_parent(alive_r)
    _build_root(spec["plan"], spec["limits"]["scratch"])
    _next_pid(spec["launcher"])
    _check(_libc().sethostname(b"sandbox", 7), "sethostname")  # not the host's name
    if root:
        uid = UID_BASE + spec["launcher"]  # distinct per live child: RLIMIT_NPROC counts it alone
        _drop_bounding_set()  # now: the uid change takes CAP_SETPCAP with the rest
        os.setgroups([])
        os.setresgid(uid, uid, uid)
        os.setresuid(uid, uid, uid)
        _die_with_parent(alive_r)  # changing uid cleared the parent-death signal
    sandbox_pid = os.fork()  # before dropping capabilities: see sandbox()
    if sandbox_pid == 0:
        _run_step(sandbox, spec, probe)
    _drop_capabilities()
    _prctl(PR_SET_NO_NEW_PRIVS, 1)
    for fd in spec["fds"] + [alive_r]:
        os.close(fd)
    while True:  # pid 1 adopts orphans: reap them until the sandbox ends
        pid, status = os.waitpid(-1, 0)
        if pid == sandbox_pid:
            os.write(status_w, str(status).encode())
            os._exit(0)  # pid 1 gone: the kernel kills whatever the learner's code left running


def _die_with_parent(alive_r: int) -> None:
    _prctl(PR_SET_PDEATHSIG, SIGKILL)
    os.set_blocking(alive_r, False)
    try:
        if os.read(alive_r, 1) == b"":
            os._exit(SETUP_FAILED)  # A was gone before the line above
    except BlockingIOError:
        pass


def _build_root(plan: list, scratch: int) -> None:
    """The new root: a small tmpfs with the planned mounts, all read-only but /tmp; pivot into it."""
    _mount(None, "/", None, MS_REC | MS_PRIVATE)  # nothing done here reaches the host's mounts
    os.umask(0o022)  # the folders made below are for the learner's uid to enter, whatever the grader's umask
    sources = {target: os.open(source, os.O_PATH | os.O_CLOEXEC) for kind, target, source in plan
               if kind in ("ro", "dev")}  # opened first: the new root is mounted over /tmp
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
    """Bind what fd names at path, read-only, keeping the flags the source's mount has."""
    if not os.path.lexists(path):
        if os.path.isdir(f"/proc/self/fd/{fd}"):
            os.mkdir(path)
        else:
            os.close(os.open(path, os.O_WRONLY | os.O_CREAT, 0o644))
    source = f"/proc/self/fd/{fd}"
    try:
        _mount(source, path, None, MS_BIND)
    except OSError:
        _mount(source, path, None, MS_BIND | MS_REC)  # in a user namespace, over mounts below it
    os.close(fd)
    kept = os.statvfs(path).f_flag
    flags = MS_REMOUNT | MS_BIND | MS_RDONLY | MS_NOSUID | (0 if device else MS_NODEV)
    for st, ms in ((os.ST_NODEV, MS_NODEV), (os.ST_NOEXEC, MS_NOEXEC), (os.ST_NOATIME, MS_NOATIME),
                   (os.ST_NODIRATIME, MS_NODIRATIME), (os.ST_RELATIME, MS_RELATIME)):
        flags |= ms if kept & st else 0
    _mount(None, path, None, flags)


def _next_pid(launcher_pid: int) -> None:
    """A fresh pid namespace would number every sandbox 2: start after the launcher's host pid
    instead, so that a restarted child has another pid, as it would unjailed. Best effort."""
    try:
        with open("/proc/sys/kernel/pid_max", encoding="ascii") as highest:
            _write("/proc/sys/kernel/ns_last_pid", str(max(1, launcher_pid % (int(highest.read()) - 300))))
    except (OSError, ValueError):
        pass


# ---------------------------------------------------------------- C, the sandbox

def sandbox(spec: dict, probe: bool) -> None:
    _prctl(PR_SET_DUMPABLE, 1)  # after the uid change, for our /proc/self files to be ours again
    # Not root, this maps the outer namespace's root, which Linux allows only to a creator that had
    # CAP_SETFCAP: B's capabilities are dropped after forking us, and ours just below.
    _map_self(LEARNER_UID)
    try:
        _write("/proc/sys/user/max_user_namespaces", "0")  # in ours only: none nested for the learner
    except OSError:
        pass
    _write("/proc/self/oom_score_adj", "1000")  # out of memory, the learner's processes go first
    _drop_capabilities()  # the outer ones were lost entering our user namespace; these are its
    _prctl(PR_SET_NO_NEW_PRIVS, 1)
    set_rlimits(spec["limits"])
    os.chdir("/tmp")
    if probe:
        _report_probe(spec, LEARNER_UID)
    _run_sandbox(spec)


def _run_sandbox(spec: dict) -> None:
    if "continue_with" in spec:  # forked from a warm fork server: the sandbox is loaded, run it here
        os.environ.clear()  # as an exec would give it (by user, HOME and TMPDIR are its own)
        os.environ.update(spec["env"])
        spec["continue_with"]()  # never returns
    os.execve(spec["argv"][0], spec["argv"], spec["env"])


def _report_probe(spec: dict, uid: int) -> None:
    """The probe's end: say "jailed" if the jail holds, as far as the sandbox itself can tell."""
    with open("/proc/self/status", encoding="ascii") as status:
        fields = dict(line.split(":\t", 1) for line in status.read().splitlines() if ":\t" in line)
    # By user, the bounding set stays where A lacks CAP_SETPCAP: no_new_privs keeps an exec from using it
    bounding = int(fields["CapBnd"], 16) if spec["level"] != "user" else 0
    if int(fields["CapEff"], 16) or int(fields["CapPrm"], 16) or bounding or fields["NoNewPrivs"].strip() != "1":
        raise OSError("capabilities left after dropping them")
    if os.getuid() != uid or os.path.exists(spec["hidden"]):
        raise OSError("the learner's uid or view of files is not as built")
    os.write(1, b"jailed\n")  # not print(): in a probe forked from the grader, sys.stdout is the grader's
    os._exit(0)


def main(argv: list) -> None:
    """The launcher's entry point; argv[1] is "run", or "probe": build the jail, run nothing in it,
    write what holds on stdout."""
    start(decode(os.environ[SPEC_VARIABLE]), probe=argv[1] == "probe")


def start(spec: dict, probe: bool) -> None:
    """Be A, then B and C: never returns (also when forked from the grader to probe)."""
    spec["launcher"] = os.getpid()
    try:
        (launch_by_user if spec["level"] == "user" else launch)(spec, probe)
    except BaseException as error:  # noqa: BLE001
        os.write(2, f"jail: {error}\n".encode(errors="replace"))
    os._exit(SETUP_FAILED)

