"""How long a child waited for a CPU: the time a busy machine adds to the child's wall time.

Linux counts, for each thread, the time it was ready to run but waited for a CPU (the second field
of /proc/PID/schedstat). Taken from the wall time, what is left is the time the child itself spent:
running, or sleeping, blocked, waiting for input. So a file that loads in 2 s on an idle machine
takes 2 s of it under any load, and one that sleeps or spins forever still reaches its limit.
"""
from __future__ import annotations

import os
import threading
import time

READ_SIZE = 1 << 16  # bytes read at once from /proc: the files looked at here are far smaller


def waited(pid: int) -> float:
    """Seconds that the processes from `pid` down waited for a CPU, the most of any one's main
    thread (the sandbox's: the launchers around it sleep). 0.0 where the counts can't be read."""
    most = 0
    for process in [pid, *_descendants(pid)]:
        try:
            most = max(most, int(_read(f"/proc/{process}/schedstat").split()[1]))
        except (OSError, ValueError, IndexError):
            continue
    return most / 1e9


def idle(pid: int, files: OpenFiles | None = None) -> bool:
    """Whether the processes from `pid` down are all waiting: every thread blocked (on a socket, a
    lock, a timer), none running nor ready to run (R) nor in the kernel's uninterruptible wait (D).
    Code that still has work on its way shows a thread in R, however long a busy machine keeps it
    waiting for a CPU. True where /proc can't be read: the caller's own time limit decides there.

    Two looks, each thread blocked at both and none run in between (its run time the same): one
    look reads the threads one after another, and a thread seen blocked may run before the last is
    read, while the one it hands over to (the GIL) is then seen blocked, waiting for it. Both look
    at the same threads: a thread or process started in between was started by a thread that ran.
    `files`: those of this child, kept open from one call to the next (a caller that looks often)."""
    if files is None:
        return _idle(pid, _read)
    with files.lock:
        files.looked.clear()
        at_rest = _idle(pid, files.read)
        if at_rest:  # both looks read every thread's files: those not read are of threads that ended
            files.close_unlooked()
        return at_rest


def _idle(pid: int, read) -> bool:
    threads = []
    for process in [pid, *_descendants(pid, read)]:
        try:
            threads += [f"/proc/{process}/task/{task}" for task in os.listdir(f"/proc/{process}/task")]
        except OSError:
            continue
    first = _at_rest(threads, read)
    return first is not None and first == _at_rest(threads, read)


def _at_rest(threads: list[str], read) -> dict | None:
    """Each blocked thread's run time so far, by its folder in /proc; None if one is not blocked."""
    rest = {}
    for thread in threads:
        try:
            state = read(f"{thread}/stat").rsplit(")", 1)[1].split()[0]
        except (OSError, IndexError):
            continue
        if state in ("R", "D"):
            return None
        try:
            rest[thread] = read(f"{thread}/schedstat").split()[0]
        except (OSError, IndexError):
            rest[thread] = None  # no run time to compare here: its state alone
    return rest


class OpenFiles:
    """The /proc files of one child, kept open between looks at it: read again from the start
    (pread), a file costs a third of opening, reading and closing it, and day11's rounds look at a
    child of a dozen threads between every two calls. A look that finds the child idle closes the
    files it did not read (of threads that ended); MOST at most are kept open, others read as usual."""
    MOST = 256

    def __init__(self):
        self.lock = threading.Lock()  # one look at a time: a file is never closed while another reads it
        self.open: dict[str, int] = {}
        self.looked: set[str] = set()  # the files read since the look began

    def read(self, path: str) -> str:
        descriptor = self.open.get(path)
        if descriptor is None:
            if len(self.open) >= self.MOST:
                return _read(path)
            descriptor = self.open[path] = os.open(path, os.O_RDONLY)
        self.looked.add(path)
        try:
            return _read_whole(descriptor, os.pread)
        except OSError:  # its thread or process ended: the next look opens whatever has its name now
            os.close(self.open.pop(path))
            raise

    def close_unlooked(self) -> None:
        for path in set(self.open) - self.looked:
            os.close(self.open.pop(path))

    def close(self) -> None:
        with self.lock:
            self.looked.clear()
            self.close_unlooked()


class Limit:
    """`seconds` of a child's own time from now: its wall-clock `deadline` moves on by what it
    waits for a CPU meanwhile (read only when the deadline has passed, see `extended`), never past
    `backstop` times `seconds` of wall time."""

    def __init__(self, pid: int, seconds: float, backstop: float, waited_at_start: float | None = None):
        """waited_at_start: the child's wait so far, if known (0.0: count all its wait since it
        started, which spares a look at /proc for every call and errs only toward more time)."""
        self.pid, self.seconds, self.backstop = pid, seconds, backstop
        self.start = time.monotonic()
        self.waited_at_start = waited(pid) if waited_at_start is None else waited_at_start
        self.deadline = self.start + seconds

    def extended(self) -> bool:
        """The deadline has passed: move it on by the child's wait for a CPU since the start. False
        if that leaves it no more time (a moment more is not worth another look)."""
        later = min(self.start + self.seconds + waited(self.pid) - self.waited_at_start,
                    self.start + self.seconds * self.backstop)
        if later <= time.monotonic() + 0.1:
            return False
        self.deadline = later
        return True


class IdleCPUs:
    """The share of the machine's CPU time that went idle between two looks (Linux's /proc/stat):
    0.0 where it can't be read."""

    def __init__(self):
        self.last = _cpu_times()

    def share(self) -> float:
        now, last = _cpu_times(), self.last
        self.last = now
        if now is None or last is None or sum(now) <= sum(last):
            return 0.0
        return (now[1] - last[1]) / (sum(now) - sum(last))


def _cpu_times() -> tuple[int, int] | None:
    """(all but idle, idle and waiting for input) of every CPU since boot, in ticks."""
    try:
        with open("/proc/stat", encoding="ascii") as stat:
            ticks = [int(t) for t in stat.readline().split()[1:9]]
    except (OSError, ValueError):
        return None
    idle = ticks[3] + ticks[4]
    return sum(ticks) - idle, idle


def _descendants(pid: int, read=None) -> list[int]:
    """The processes below `pid`: from each thread's list of its children where Linux keeps one (a
    few small reads), else from every process's parent (a read of all of /proc)."""
    read = read or _read
    found, level = [], [pid]
    try:
        while level:
            level = [int(child) for process in level for task in os.listdir(f"/proc/{process}/task")
                     for child in read(f"/proc/{process}/task/{task}/children").split()]
            found += level
        return found
    except (OSError, ValueError):  # no such lists here, or a process that just ended
        return _descendants_by_parent(pid)


def _read(path: str) -> str:
    """A file of /proc, whole. By os.read: a look at a child reads dozens, and open()'s buffered
    text layers cost several times the read itself."""
    descriptor = os.open(path, os.O_RDONLY)
    try:
        return _read_whole(descriptor, lambda fd, size, _: os.read(fd, size))
    finally:
        os.close(descriptor)


def _read_whole(descriptor: int, read) -> str:
    """All of an open /proc file, by `read(descriptor, size, offset)`: os.read, or os.pread to read
    a file kept open from its start again."""
    chunks = [read(descriptor, READ_SIZE, 0)]
    while len(chunks[-1]) == READ_SIZE:  # in /proc a short read is the end: no read more to find it
        chunks.append(read(descriptor, READ_SIZE, READ_SIZE * len(chunks)))
    return b"".join(chunks).decode("ascii", "replace")  # a thread's name may be anything


def _descendants_by_parent(pid: int) -> list[int]:
    parents = {}
    try:
        entries = os.listdir("/proc")
    except OSError:
        return []
    for entry in filter(str.isdigit, entries):
        try:
            with open(f"/proc/{entry}/stat", encoding="ascii", errors="replace") as stat:
                parents[int(entry)] = int(stat.read().rsplit(")", 1)[1].split()[1])
        except (OSError, ValueError, IndexError):
            continue
    found, level = [], [pid]
    while level:
        level = [child for child, parent in parents.items() if parent in level]
        found += level
    return found
