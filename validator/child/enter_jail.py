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

Isolated by user only (spec["level"] == "user", as root where no namespace can be made), A and C
are isolate_by_user.py's. What both levels do alike is in launching.py; Linux's own calls, through
ctypes, in linux.py.

Builtin modules, ctypes and these files beside it only: this runs before every child, in an
interpreter started with -I -S, so that it starts fast and nothing of the environment or the kit
steers it. All are imported here, before the jail is built: none is in the jail's view of files.
"""
import _signal
import marshal
import os

if __package__:  # the grader's import: validator.child.enter_jail
    from . import isolate_by_user, launching, linux
else:  # the launcher's and the fork server's: its files beside each other on sys.path
    import isolate_by_user, launching, linux

LEARNER_UID = 1000  # the learner's uid inside its user namespace
SPEC_VARIABLE = "REACTLINGS_JAIL"

CLONE_NEWNS, CLONE_NEWCGROUP, CLONE_NEWUTS = 0x00020000, 0x02000000, 0x04000000
CLONE_NEWIPC, CLONE_NEWPID, CLONE_NEWNET = 0x08000000, 0x20000000, 0x40000000
MS_RDONLY, MS_NOSUID, MS_NODEV, MS_NOEXEC, MS_REMOUNT = 1, 2, 4, 8, 32
MS_NOATIME, MS_NODIRATIME, MS_BIND, MS_REC, MS_PRIVATE, MS_RELATIME = 1024, 2048, 4096, 16384, 1 << 18, 1 << 21


# ---------------------------------------------------------------- shared with the grader (jail.py)

def encode(spec: dict) -> str:
    return marshal.dumps(spec).hex()


def decode(text: str) -> dict:
    return marshal.loads(bytes.fromhex(text))


# ---------------------------------------------------------------- A, the launcher

def launch(spec: dict, probe: bool) -> None:
    """A: in the grader's namespaces, as the grader's user."""
    launching.die_with(spec["grader"], launching.SETUP_FAILED)
    root = os.geteuid() == 0
    joined = launching.join_cgroups(spec["limits"], join=not probe) if root else []
    if probe:
        os.write(1, " ".join(["cgroups", *joined, "\n"]).encode())
    flags = CLONE_NEWNS | CLONE_NEWPID | CLONE_NEWNET | CLONE_NEWIPC | CLONE_NEWUTS | CLONE_NEWCGROUP
    if not root:
        linux.map_self(0)  # root of a user namespace of our own, which owns the namespaces made next
    linux.unshare(flags)  # as root: owned by the host's root, so the learner can never act on them
    alive_r, alive_w = os.pipe()  # B knows A is gone when this pipe ends; nobody writes it
    status_r, status_w = os.pipe()  # B writes the sandbox's wait status here
    init_pid = os.fork()
    if init_pid == 0:
        os.close(alive_w)
        os.close(status_r)
        launching.run_step(init, spec, root, alive_r, status_w, probe)
    os.close(alive_r)
    os.close(status_w)
    for fd in spec["fds"]:
        os.close(fd)  # so the grader sees EOF as soon as the sandbox is gone
    _signal.signal(linux.SIGTERM, lambda *_: linux.kill(init_pid))
    _, status = os.waitpid(init_pid, 0)
    with os.fdopen(status_r, "rb") as reported:
        told = reported.read()
    launching.exit_like(int(told) if told else status)


# ---------------------------------------------------------------- B, pid 1

def init(spec: dict, root: bool, alive_r: int, status_w: int, probe: bool) -> None:
    _signal.signal(linux.SIGINT, _signal.SIG_IGN)  # Python's KeyboardInterrupt: the learner could end pid 1
    _die_with_parent(alive_r)
    _build_root(spec["plan"], spec["limits"]["scratch"])
    _next_pid(spec["launcher"])
    linux.check(linux.libc().sethostname(b"sandbox", 7), "sethostname")  # not the host's name
    if root:
        uid = launching.UID_BASE + spec["launcher"]  # distinct per live child: RLIMIT_NPROC counts it alone
        linux.drop_bounding_set()  # now: the uid change takes CAP_SETPCAP with the rest
        os.setgroups([])
        os.setresgid(uid, uid, uid)
        os.setresuid(uid, uid, uid)
        _die_with_parent(alive_r)  # changing uid cleared the parent-death signal
    sandbox_pid = os.fork()  # before dropping capabilities: see sandbox()
    if sandbox_pid == 0:
        launching.run_step(sandbox, spec, probe)
    linux.drop_capabilities()
    linux.prctl(linux.PR_SET_NO_NEW_PRIVS, 1)
    for fd in spec["fds"] + [alive_r]:
        os.close(fd)
    while True:  # pid 1 adopts orphans: reap them until the sandbox ends
        pid, status = os.waitpid(-1, 0)
        if pid == sandbox_pid:
            os.write(status_w, str(status).encode())
            os._exit(0)  # pid 1 gone: the kernel kills whatever the learner's code left running


def _die_with_parent(alive_r: int) -> None:
    linux.prctl(linux.PR_SET_PDEATHSIG, linux.SIGKILL)
    os.set_blocking(alive_r, False)
    try:
        if os.read(alive_r, 1) == b"":
            os._exit(launching.SETUP_FAILED)  # A was gone before the line above
    except BlockingIOError:
        pass


def _build_root(plan: list, scratch: int) -> None:
    """The new root: a small tmpfs with the planned mounts, all read-only but /tmp; pivot into it."""
    linux.mount(None, "/", None, MS_REC | MS_PRIVATE)  # nothing done here reaches the host's mounts
    os.umask(0o022)  # the folders made below are for the learner's uid to enter, whatever the grader's umask
    sources = {target: os.open(source, os.O_PATH | os.O_CLOEXEC) for kind, target, source in plan
               if kind in ("ro", "dev")}  # opened first: the new root is mounted over /tmp
    new = "/tmp"
    linux.mount("tmpfs", new, "tmpfs", MS_NOSUID | MS_NODEV, "size=1m,nr_inodes=4096,mode=755")
    read_only = [new]
    for kind, target, source in plan:
        path = new + target
        os.makedirs(os.path.dirname(path), exist_ok=True)
        if kind in ("ro", "dev"):
            _bind(sources.pop(target), path, device=kind == "dev")
        elif kind == "tmpfs":
            os.makedirs(path, exist_ok=True)
            linux.mount("tmpfs", path, "tmpfs", MS_NOSUID | MS_NODEV, f"size={scratch},nr_inodes=16384,mode=1777")
        elif kind == "mask":
            linux.mount("tmpfs", path, "tmpfs", MS_NOSUID | MS_NODEV, "size=64k,nr_inodes=256,mode=755")
            read_only.append(path)
        elif kind == "proc":
            os.makedirs(path, exist_ok=True)
            linux.mount("proc", path, "proc", MS_NOSUID | MS_NODEV | MS_NOEXEC)
        elif kind == "link":
            os.symlink(source, path)
        elif kind == "text":
            linux.write(path, source)
    for path in reversed(read_only):  # masks, then the root itself: nothing more can be created
        linux.mount(None, path, None, MS_REMOUNT | MS_RDONLY | MS_NOSUID | MS_NODEV)
    os.chdir(new)
    linux.pivot_root()
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
        linux.mount(source, path, None, MS_BIND)
    except OSError:
        linux.mount(source, path, None, MS_BIND | MS_REC)  # in a user namespace, over mounts below it
    os.close(fd)
    kept = os.statvfs(path).f_flag
    flags = MS_REMOUNT | MS_BIND | MS_RDONLY | MS_NOSUID | (0 if device else MS_NODEV)
    for st, ms in ((os.ST_NODEV, MS_NODEV), (os.ST_NOEXEC, MS_NOEXEC), (os.ST_NOATIME, MS_NOATIME),
                   (os.ST_NODIRATIME, MS_NODIRATIME), (os.ST_RELATIME, MS_RELATIME)):
        flags |= ms if kept & st else 0
    linux.mount(None, path, None, flags)


def _next_pid(launcher_pid: int) -> None:
    """A fresh pid namespace would number every sandbox 2: start after the launcher's host pid
    instead, so that a restarted child has another pid, as it would unjailed. Best effort."""
    try:
        with open("/proc/sys/kernel/pid_max", encoding="ascii") as highest:
            linux.write("/proc/sys/kernel/ns_last_pid", str(max(1, launcher_pid % (int(highest.read()) - 300))))
    except (OSError, ValueError):
        pass


# ---------------------------------------------------------------- C, the sandbox

def sandbox(spec: dict, probe: bool) -> None:
    linux.prctl(linux.PR_SET_DUMPABLE, 1)  # after the uid change, for our /proc/self files to be ours again
    # Not root, this maps the outer namespace's root, which Linux allows only to a creator that had
    # CAP_SETFCAP: B's capabilities are dropped after forking us, and ours just below.
    linux.map_self(LEARNER_UID)
    try:
        linux.write("/proc/sys/user/max_user_namespaces", "0")  # in ours only: none nested for the learner
    except OSError:
        pass
    linux.write("/proc/self/oom_score_adj", "1000")  # out of memory, the learner's processes go first
    linux.drop_capabilities()  # the outer ones were lost entering our user namespace; these are its
    linux.prctl(linux.PR_SET_NO_NEW_PRIVS, 1)
    linux.fresh_keyrings()  # none of the grader's, none a child of this uid left
    launching.set_rlimits(spec["limits"])
    os.chdir("/tmp")
    if probe:
        launching.report_probe(spec, LEARNER_UID)
    launching.run_sandbox(spec)


# ---------------------------------------------------------------- the entry point

def main(argv: list) -> None:
    """The launcher's entry point; argv[1] is "run", or "probe": build the jail, run nothing in it,
    write what holds on stdout."""
    start(decode(os.environ[SPEC_VARIABLE]), probe=argv[1] == "probe")


def start(spec: dict, probe: bool) -> None:
    """Be A, then B and C: never returns (also when forked from the grader to probe)."""
    spec["launcher"] = os.getpid()
    try:
        (isolate_by_user.launch_by_user if spec["level"] == "user" else launch)(spec, probe)
    except BaseException as error:  # noqa: BLE001
        os.write(2, f"jail: {error}\n".encode(errors="replace"))
    os._exit(launching.SETUP_FAILED)
