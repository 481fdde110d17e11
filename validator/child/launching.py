"""What both levels of isolation do alike (enter_jail.py's jail, isolate_by_user.py's user): the
launcher's cgroups, the child's rlimits, how a step runs and the launcher ends as the sandbox
ended, and the sandbox's start. The grader uses the cgroups' names and folders, die_with and
set_rlimits too. Builtin modules and ctypes only (see enter_jail.py).
"""
import _signal
import os

if __package__:  # the grader's import: validator.child.launching
    from . import linux
else:  # the launcher's and the fork server's: its files beside each other on sys.path
    import linux

UID_BASE = 2_000_000_000  # as root: the child runs as host uid UID_BASE + the launcher's pid
SETUP_FAILED = 121  # exit status of a jail that could not be built


# ---------------------------------------------------------------- cgroups: totals per submission, as root

def cgroup_name(launcher_pid: int) -> str:
    return f"reactlings-{launcher_pid}"


def cgroup_folders() -> dict:
    """controller -> this process's cgroup folder, in the v1 memory, pids and cpu hierarchies."""
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
        for controller in ("memory", "pids", "cpu"):
            path = mine.get(controller)
            if controller in tail[2].split(",") and path and inside(path, root):
                folders[controller] = point + path[len(root.rstrip("/")):]
    return folders


def remove_cgroup(folder: str) -> None:
    try:
        os.rmdir(folder)
    except OSError:
        pass  # gone already, or busy: the next launcher sweeps it


CPU_PERIOD = 100_000  # µs: a quota of one period each period is one CPU


def join_cgroups(limits: dict, join: bool = True) -> list:
    """A memory, a pids and a cpu cgroup under the grader's own, holding this process and so all
    its descendants: totals for the whole submission, and one CPU's time at most, so that a
    student's spinning processes leave the rest to the grader and classmates. Best effort: the
    rlimits hold without them. Not joining (the probe) saves the few ms that moving a process
    between cgroups costs."""
    settings = {"memory": [("memory.limit_in_bytes", limits["memory"]),
                           ("memory.memsw.limit_in_bytes", limits["memory"])],
                "pids": [("pids.max", limits["processes"] + 4)],  # + A, B and the sandbox's own threads
                "cpu": [("cpu.cfs_period_us", CPU_PERIOD), ("cpu.cfs_quota_us", CPU_PERIOD)]}
    joined = []
    for controller, folder in cgroup_folders().items():
        _sweep(folder)
        mine = os.path.join(folder, cgroup_name(os.getpid()))
        try:
            os.mkdir(mine)
            for name, value in settings[controller]:
                if os.path.exists(os.path.join(mine, name)):
                    linux.write(os.path.join(mine, name), str(value))
            if join:
                linux.write(os.path.join(mine, "cgroup.procs"), str(os.getpid()))
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
        if not alive(name.split("-")[1]):
            remove_cgroup(os.path.join(folder, name))


def alive(pid: str) -> bool:
    """A process that exists and is not a zombie (a killed grader's launcher may wait to be reaped)."""
    try:
        with open(f"/proc/{int(pid)}/stat", encoding="ascii", errors="replace") as stat:
            return stat.read().rsplit(")", 1)[1].split()[0] != "Z"
    except (OSError, ValueError, IndexError):
        return False


def inside(path: str, folder: str) -> bool:
    return path == folder or path.startswith(folder.rstrip("/") + "/")


# ---------------------------------------------------------------- this process: its parent, its limits

def die_with(parent: int, status: int) -> None:
    """This process gets SIGKILL when its parent (the thread that forked it) ends; if the parent
    is gone already, it exits now with `status`."""
    linux.prctl(linux.PR_SET_PDEATHSIG, linux.SIGKILL)
    if os.getppid() != parent:
        os._exit(status)  # the parent died before the line above


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


# ---------------------------------------------------------------- the launcher's steps, and its end

def run_step(step, *args) -> None:
    """Run a child's part; a jail that can't be built says why on stderr and exits SETUP_FAILED."""
    try:
        step(*args)
    except BaseException as error:  # noqa: BLE001 -- nothing may run unjailed past this point
        os.write(2, f"jail: {error}\n".encode(errors="replace"))
    os._exit(SETUP_FAILED)


def exit_like(status: int) -> None:
    """End this process as the sandbox ended: with its exit status, or killed by its signal."""
    if os.WIFSIGNALED(status):
        number = os.WTERMSIG(status)
        if number not in (linux.SIGKILL, linux.SIGSTOP):  # their action can't be changed, nor needs to be
            _signal.signal(number, _signal.SIG_DFL)
        os.kill(os.getpid(), number)
    os._exit(os.WEXITSTATUS(status) if os.WIFEXITED(status) else SETUP_FAILED)


# ---------------------------------------------------------------- C, the sandbox, at either level

def run_sandbox(spec: dict) -> None:
    if "continue_with" in spec:  # forked from a warm fork server: the sandbox is loaded, run it here
        os.environ.clear()  # as an exec would give it (by user, HOME and TMPDIR are its own)
        os.environ.update(spec["env"])
        spec["continue_with"]()  # never returns
    os.execve(spec["argv"][0], spec["argv"], spec["env"])


def report_probe(spec: dict, uid: int) -> None:
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
