"""A warm start for children: a fork server, so that a child costs a fork, not a cold interpreter.

Grading a class starts hundreds of children. Cold, each one starts Python, imports the sandbox's
modules and, from day07 on, the `openai` library the learner's file imports: 0.1 s of CPU, 0.6 s
with openai. A fork server (`python sandbox.py --serve`, see serve_forks.py) has the sandbox and
what the lesson's own files import (imports_of) loaded once; for each submission the grader sends it the child's socket and the jail's spec, and a fork
of it builds the jail and runs the sandbox in place (enter_jail.py's A, B and C, without an exec).
What the learner's code meets is the same as in a cold child: the same jail, limits, environment,
modules on its path and socket. Linux only; elsewhere children start cold.

A class run has several workers, each with a fork server of its own (a worker that dies takes its
server and children with it). They are forks of the run's one warm sandbox (`--warm`, see
serve_forks.warm, WarmSandbox), which loaded those modules once: a worker hands it one end of a new
control socket through the sandbox's door, and a fork of it serves that worker.

    grader -> server   marshal {"id": 3, "path": ..., "jail": spec or None, "limits": {...}, "cpus": [0]}
                       with the child's socket passed along (SCM_RIGHTS)
    server -> grader   "started 3 PID" with a pidfd of the new process: signals reach only it
    server -> grader   "exited PID WAIT_STATUS" when it ends
"""
from __future__ import annotations

import ast
import atexit
import itertools
import marshal
import os
import select
import signal
import socket
import subprocess
import sys
import threading
import time
from pathlib import Path

from validator.child import SANDBOX
from validator.isolation import jail

START_WAIT = 10  # seconds for the server to say a child started before it counts as gone


def available() -> bool:
    return sys.platform == "linux" and hasattr(os, "pidfd_open") and hasattr(socket, "send_fds")


def imports_of(*paths: Path) -> list[str]:
    """The modules these files import (a lesson's exercise file and solution): what learners'
    files of the lesson import too, so the fork server loads them once."""
    found = set()
    for path in paths:
        try:
            tree = ast.parse(path.read_text(encoding="utf-8"))
        except (OSError, SyntaxError, ValueError):
            continue
        for node in ast.walk(tree):
            if isinstance(node, ast.Import):
                found.update(alias.name for alias in node.names)
            elif isinstance(node, ast.ImportFrom) and node.module and not node.level:
                found.add(node.module)
    return sorted(found - {"__future__"})


def _sandbox(*arguments: str, fd: int) -> subprocess.Popen:
    """`python sandbox.py ARGUMENTS`, with nothing of the grader's but the descriptor `fd`: this
    Python by the path a jail shows it at, as a child started cold is (jail.interpreter)."""
    return subprocess.Popen([jail.interpreter(), "-X", "utf8", str(SANDBOX), *arguments], pass_fds=[fd],
                            stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                            start_new_session=True, env=jail.environment())


class WarmSandbox:
    """A class run's one warm sandbox (serve_forks.warm): what the lesson's files import, loaded once
    for the whole run; each worker's fork server is a fork of it (ForkServer(door=...)), not a
    cold start that imports them again (`openai`: 0.6 s of CPU per worker). Started by the run's
    process before its workers, which inherit `door`; it ends when the run closes it."""

    def __init__(self, preload: list[str]):
        self.preload = list(preload)
        self.door, theirs = socket.socketpair(socket.AF_UNIX, socket.SOCK_SEQPACKET)
        self.process = _sandbox("--warm", str(theirs.fileno()), str(os.getpid()), *preload, fd=theirs.fileno())
        theirs.close()

    @classmethod
    def take(cls, preload: list[str]) -> WarmSandbox:
        """The one warm_early started, if it preloads the same and still runs; else a new one."""
        global _early
        early, _early = _early, None
        if early is not None:
            if early.preload == list(preload) and early.process.poll() is None:
                return early
            early.close(kill=True)
        return cls(preload)

    def close(self, kill: bool = False) -> None:
        """End it: once every worker is gone (it sees the door closed), or at once (`kill`), its
        servers and their children with it."""
        self.door.close()
        if kill:
            self.process.kill()
        self.process.wait()


_early: WarmSandbox | None = None  # started by warm_early, not yet taken by a run's workers


def warm_early(lesson_name: str, argv: list[str]) -> None:
    """Start a class run's warm sandbox now: `validate.py grade LESSON` calls this before it
    imports the rest of the kit, whose imports and the run's look at its submissions then hide
    the sandbox's own (from day07 on, openai's), which the first students waited for. The run's
    workers take it (WarmSandbox.take). Not for a run into gradebooks that hold students already
    (`argv`'s --out): run again, it may have nobody to grade, and a sandbox started for nothing
    cost a resumed run of 200 unchanged students 0.4 s of its 1.3 s; there the run starts it once
    it has students to grade."""
    global _early
    out = _option(argv, "--out")
    if not available() or _early is not None or (out and os.path.isdir(os.path.join(out, "students"))):
        return
    from validator.lessons import load_lesson
    try:
        lesson = load_lesson(lesson_name)
    except Exception:  # noqa: BLE001 -- a lesson that can't load: the command itself says why
        return
    _early = WarmSandbox(imports_of(lesson.exercise, lesson.solution))
    atexit.register(_end_early)


def _option(argv: list[str], name: str) -> str | None:
    """The value of option `name` in a command line not parsed yet (as `--out X` or `--out=X`)."""
    for given, following in zip(argv, argv[1:] + [None]):
        if given == name:
            return following
        if given.startswith(name + "="):
            return given.split("=", 1)[1]
    return None


def _end_early() -> None:
    if _early is not None:
        _early.close(kill=True)


class ForkServer:
    """The grader's side: start children as forks of a warm sandbox. Start it from a thread that
    lasts as long as it is used (the server dies with that thread, as the children with it)."""

    def __init__(self, preload: list[str] = (), door: socket.socket | None = None):
        """preload: modules the server imports once, for its children (see imports_of). door: a
        WarmSandbox's, whose fork then serves here, with what it preloaded (the server ends when
        this side closes); when that sandbox is gone, the server starts cold."""
        self.control, theirs = socket.socketpair(socket.AF_UNIX, socket.SOCK_SEQPACKET)
        self.process = None  # the server, when this side started it (cold)
        try:
            if door is None:
                raise OSError("no warm sandbox")
            socket.send_fds(door, [b"serve"], [theirs.fileno()])
        except OSError:
            self.process = _sandbox("--serve", str(theirs.fileno()), str(os.getpid()), *preload, fd=theirs.fileno())
        theirs.close()
        self.ids = itertools.count(1)
        self.changed = threading.Condition()
        self.started: dict[int, tuple[int, int]] = {}  # request id -> (pid, pidfd)
        self.exited: dict[int, int] = {}  # pid -> wait status
        self.gone = False  # the server ended: no more starts, no more exit statuses
        self.send_lock = threading.Lock()
        threading.Thread(target=self._read, daemon=True, name="reactlings-forkserver").start()

    def start(self, sock: socket.socket, path: Path, spec: dict | None, limits: dict) -> WarmProcess:
        """A child that runs the sandbox on `sock` for the file at `path`: jailed by `spec` (see
        jail.spec), or, None, with `limits` only. Raises OSError if the server is gone."""
        number = next(self.ids)
        # the CPUs this process may run on (a class worker's one): the child takes them before it
        # forks the jail, so the messages between the two never cross from one CPU to another
        request = marshal.dumps({"id": number, "path": str(path), "jail": spec, "limits": limits,
                                 "cpus": sorted(os.sched_getaffinity(0))})
        with self.send_lock:
            socket.send_fds(self.control, [request], [sock.fileno()])
        with self.changed:
            if self.gone:
                raise OSError("the fork server is gone")
            if not self.changed.wait_for(lambda: number in self.started or self.gone, START_WAIT):
                self.gone = True  # stuck: children start cold from now on
                self._shut()
                if self.process:  # a warm sandbox's fork ends when it sees the socket shut, or with the run
                    self.process.kill()
                raise OSError("the fork server did not start the child")
            if number not in self.started:
                raise OSError("the fork server is gone")
            pid, pidfd = self.started.pop(number)
        return WarmProcess(self, pid, pidfd)

    def close(self) -> None:
        self._shut()
        self.control.close()
        if self.process:
            self.process.wait()

    def _shut(self) -> None:
        """Shut the control socket (not just close it: the reader thread's recv would keep it
        open): the spare fork reads the end and exits, then the server."""
        try:
            self.control.shutdown(socket.SHUT_RDWR)
        except OSError:
            pass

    def _read(self) -> None:
        while True:
            try:
                message, fds, _, _ = socket.recv_fds(self.control, 256, 1)
            except OSError:
                message, fds = b"", []
            with self.changed:
                words = message.decode(errors="replace").split()
                if words[:1] == ["started"] and len(words) == 3 and fds:
                    self.started[int(words[1])] = (int(words[2]), fds.pop(0))  # kept: the pidfd
                elif words[:1] == ["exited"] and len(words) == 3:
                    self.exited[int(words[1])] = int(words[2])
                elif not message:
                    self.gone = True
                for fd in fds:
                    os.close(fd)
                self.changed.notify_all()
                if self.gone:
                    return


class WarmProcess:
    """A child the fork server started: what runner.py and jail.py use of subprocess.Popen."""

    def __init__(self, server: ForkServer, pid: int, pidfd: int):
        self.server, self.pid, self.pidfd = server, pid, pidfd
        self.returncode: int | None = None

    def poll(self) -> int | None:
        if self.returncode is None:
            with self.server.changed:
                self._settle()
        return self.returncode

    def wait(self, timeout: float | None = None) -> int:
        deadline = None if timeout is None else time.monotonic() + timeout
        with self.server.changed:
            while not self._settle():
                remaining = None if deadline is None else deadline - time.monotonic()
                if remaining is not None and remaining <= 0:
                    raise subprocess.TimeoutExpired(str(SANDBOX), timeout)
                # with the server gone no news comes: look at the process itself now and then
                self.server.changed.wait(min(remaining or 0.05, 0.05) if self.server.gone else remaining)
        return self.returncode

    def send_signal(self, number: int) -> None:
        if self.returncode is None:
            try:
                signal.pidfd_send_signal(self.pidfd, number)
            except ProcessLookupError:
                pass

    def kill(self) -> None:
        self.send_signal(signal.SIGKILL)

    def _settle(self) -> bool:
        """Whether the process has ended (its return code then set); the server's lock held."""
        if self.returncode is not None:
            return True
        status = self.server.exited.pop(self.pid, None)
        if status is None and self.server.gone and select.select([self.pidfd], [], [], 0)[0]:
            status = signal.SIGKILL  # ended, and the server that knew how is gone: say killed
        if status is None:
            return False
        self.returncode = os.waitstatus_to_exitcode(status)
        os.close(self.pidfd)
        return True
