"""Finding the processes a grading started, through /proc (Linux), for the tests that check that
none of them outlives what started it; and reading what a process prints with a deadline."""
from __future__ import annotations

import os
import queue
import signal
import threading
import time
from pathlib import Path
from typing import Callable, IO


def _stat(pid: int) -> list[str]:
    """The fields of /proc/PID/stat after the command name (which may hold spaces): state first."""
    return Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()


def pids() -> list[int]:
    return [int(pid) for pid in os.listdir("/proc") if pid.isdigit()]


def alive(pid: int) -> bool:
    """True while pid exists and is not a zombie (a killed orphan is one until it is reaped)."""
    try:
        return _stat(pid)[0] != "Z"
    except OSError:
        return False


def living(text: str) -> list[int]:
    """Live processes other than this one whose command line holds `text`."""
    found = []
    for pid in pids():
        try:
            cmdline = Path(f"/proc/{pid}/cmdline").read_bytes().replace(b"\0", b" ")
        except OSError:
            continue
        if text.encode() in cmdline and alive(pid) and pid != os.getpid():
            found.append(pid)
    return found


def children(parent: int) -> list[int]:
    found = []
    for pid in pids():
        try:
            if int(_stat(pid)[1]) == parent:
                found.append(pid)
        except OSError:
            pass
    return found


def descendants(ancestor: int) -> list[int]:
    """Every live process whose chain of parents leads to `ancestor`."""
    found, parents = [], {ancestor}
    while True:
        new = [pid for parent in parents for pid in children(parent) if pid not in found]
        if not new:
            return found
        found += new
        parents = set(new)


def on_host(inner: int, ancestor: int) -> int | None:
    """The host pid of the process below `ancestor` that sees itself as pid `inner`: a jailed
    child lives in a pid namespace of its own, whose numbers mean other processes here. The last
    field of NSpid is the pid in the process's own (innermost) namespace."""
    for pid in descendants(ancestor):
        try:
            status = Path(f"/proc/{pid}/status").read_text()
        except OSError:
            continue
        nspid = next((line.split()[1:] for line in status.splitlines() if line.startswith("NSpid:")), [str(pid)])
        if int(nspid[-1]) == inner:
            return pid
    return None


def name(pid: int) -> str:
    try:
        return Path(f"/proc/{pid}/comm").read_text().strip()
    except OSError:
        return ""


def identity(pid: int) -> tuple[int, str]:
    """A pid and its start time: once a process is reaped, its pid may be given to a new one."""
    return pid, _stat(pid)[19]


def state(process: tuple[int, str]) -> str:
    """R, S, Z… for a process known by its identity(), or "gone"."""
    pid, started = process
    try:
        fields = _stat(pid)
    except OSError:
        return "gone"
    return fields[0] if fields[19] == started else "gone"


def gone(match: int | str, within: float = 5.0) -> bool:
    """Wait until the process `match` (a pid), or every live process whose command line holds it,
    has ended. Killed, a process may wait a moment for a CPU; one still there after `within`
    seconds is killed, so that a failing test leaves nothing behind."""
    def left() -> list[int]:
        return living(match) if isinstance(match, str) else [match] * alive(match)

    deadline = time.monotonic() + within
    while left():
        if time.monotonic() > deadline:
            for pid in left():
                os.kill(pid, signal.SIGKILL)
            return False
        time.sleep(0.05)
    return True


class Lines:
    """The lines a process prints on `stream`, read by a thread so that every wait for one has a
    deadline: a process that prints nothing fails the test instead of blocking it."""

    def __init__(self, stream: IO[str]):
        self.lines: queue.Queue = queue.Queue()
        threading.Thread(target=lambda: [self.lines.put(line) for line in iter(stream.readline, "")],
                         daemon=True).start()

    def next(self, seconds: float = 60) -> str:
        return self.until(lambda line: True, seconds)[0]

    def until(self, wanted: Callable[[str], bool], seconds: float = 60) -> tuple[str, list[str]]:
        """The first line that is `wanted`, and the lines read before it."""
        deadline, before = time.monotonic() + seconds, []
        while True:
            try:
                line = self.lines.get(timeout=max(0.0, deadline - time.monotonic()))
            except queue.Empty:
                raise AssertionError(f"no line wanted within {seconds} s; read: {before}") from None
            if wanted(line):
                return line, before
            before.append(line)
