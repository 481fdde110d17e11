"""A learner's file in a child process, as the grader runs it: started cold, or warm from a fork
server (forkserver.py), jailed or not (jail.py); told to load the file; messages both ways, each
one JSON object a line (wire.py); ended with all it started. runner.Submission is one, and adds
the calls and their answers.
"""
from __future__ import annotations

import os
import select
import signal
import socket
import subprocess
import sys
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

from validator.child import SANDBOX, SANDBOX_FILES
from validator.child.wire import LineReader, dump
from validator.grading import busy
from validator.isolation import jail
from validator.outcomes import Outcome, Problem

if TYPE_CHECKING:
    from concurrent.futures import ThreadPoolExecutor

MEMORY_LIMIT = 1024 * 1024 * 1024  # bytes of address space for the child
TOOL_THREADS = 16  # a child's tool calls run side by side on this many threads of the grader's
TOOL_DRAIN_WAIT = 5.0  # seconds the tool calls still running when a child ends get to finish
READ_SIZE = 64 * 1024  # bytes read from the child at once (less than malloc's mmap threshold: no mmap per read)
SEND_WAIT = 5.0  # seconds a message to the child may wait for room in its socket (a child that reads nothing)
# The limits on a child's loading, on saying where it is stuck and on unwinding a refused call
# count its own time, not its wait for a CPU on a busy machine (busy.py): how it ends, and so its
# report, must not depend on the machine's load. Whatever it waits for, never more than this many
# times the limit of wall time.
BACKSTOP = 12
# Handing a socket to a child needs POSIX; elsewhere (Windows) the child connects back over
# loopback. REACTLINGS_TRANSPORT=tcp tries that path on any system (the kit's tests do).
CONNECT_BY_TCP = os.name == "nt" or os.environ.get("REACTLINGS_TRANSPORT") == "tcp"


def _readable(sock: socket.socket, wait: float = 0.0) -> bool:
    """Whether data waits in the socket, now or within `wait` seconds (it is left there). By poll
    where there is poll: select takes no descriptor numbered past 1023."""
    if hasattr(select, "poll"):
        poller = select.poll()
        poller.register(sock, select.POLLIN)
        return bool(poller.poll(wait * 1000))
    return bool(select.select([sock], [], [], wait)[0])


def _limit_child():
    jail.limit_process(MEMORY_LIMIT)  # unjailed children only: a jailed one sets its own


@dataclass
class ChildProcess:
    """The child that runs the sandbox (validator/child/sandbox.py) for the file at `path`."""
    path: Path
    import_timeout: float = 5.0
    model_function: str | None = "llm_call"
    sleep_given: bool = False  # the lesson hands its functions a `sleep`: time.sleep waits for nobody
    file: str | None = None  # the file's __file__, if not its path: a notebook's code, the .py beside the notebook
    process: subprocess.Popen | None = None
    sock: socket.socket | None = None
    load_sent: bool = False  # the child was told to import the file
    send_lock: threading.Lock = field(default_factory=threading.Lock, repr=False)
    ready: bool = False  # the child has loaded the file and waits for calls
    loading: busy.Limit | None = None  # the load's time limit, from when the child was told to load
    reader: LineReader = field(default_factory=LineReader, repr=False)
    pending: list = field(default_factory=list, repr=False)  # messages read but not handled yet
    taken_tool_call: bool = False  # a tool call is out of the socket, not yet started (see all_received)
    taking: threading.Lock = field(default_factory=threading.Lock, repr=False)  # held while a message leaves the socket
    forkserver: object = None  # a forkserver.ForkServer: children start warm (class grading)
    jailed: bool = False  # the running child is jailed (jail.stop ends it)
    readable: list = field(default_factory=list)  # the lesson's files it may read (data it loads)
    jail_spec: dict | None = None  # the running child's jail (jail.spec)
    tool_runners: ThreadPoolExecutor | None = field(default=None, repr=False)  # the child's own, from its first tool call
    tools_waiting: set = field(default_factory=set, repr=False)  # its tool calls not finished yet
    proc_files: busy.OpenFiles = field(default_factory=busy.OpenFiles, repr=False)  # what idle() reads of it

    def spawn(self, load: bool = True) -> None:
        """Start the child now, so it loads the file while the grader gets ready (pytest's startup).
        load=False: the child waits, interpreter ready, until load() (watch keeps one in reserve)."""
        if CONNECT_BY_TCP:
            self._spawn_connecting()
        else:
            self._spawn_with_socket_pair()
        if load:
            self.load()

    def _spawn_with_socket_pair(self) -> None:
        parent, child = socket.socketpair()
        self.jailed = jail.isolating()  # raises jail.Unavailable if isolation is required and impossible
        command = [sys.executable, "-X", "utf8", str(SANDBOX), str(child.fileno()), str(self.path)]
        spec = jail.spec(command, files=[*SANDBOX_FILES, self.path, *self.readable],
                         fds=[child.fileno()], memory=MEMORY_LIMIT) if self.jailed else None
        self.jail_spec = spec  # its copies are removed when the child has ended (close)
        self.process = None  # a jailed child dies with the thread that spawns it: spawn from a lasting one
        if self.forkserver is not None:
            try:
                self.process = self.forkserver.start(child, spec["argv"][-1] if spec else os.path.abspath(self.path),
                                                     spec, jail.process_limits(MEMORY_LIMIT))
            except OSError:
                pass  # the server is gone: start this child cold
        if self.process is None:
            command, env = jail.command(spec) if spec else (command, jail.environment())  # nothing of the grader's
            self.process = subprocess.Popen(
                command, pass_fds=[child.fileno()], stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                stderr=subprocess.DEVNULL, start_new_session=True, preexec_fn=None if spec else _limit_child,
                env=env)
        child.close()
        self._connected(parent)

    def _spawn_connecting(self) -> None:
        """Where a socket can't be handed to a child (Windows): the child connects back to a
        loopback port and proves with a one-time token that it is ours. No jail, no rlimits there."""
        jail.isolating()  # raises jail.Unavailable if isolation is required
        import secrets  # here only: Windows' way
        token = secrets.token_hex(16)
        with socket.create_server(("127.0.0.1", 0)) as listener:
            listener.settimeout(self.import_timeout + 5)
            command = [sys.executable, "-X", "utf8", str(SANDBOX), f"tcp:{listener.getsockname()[1]}",
                       str(self.path)]
            self.process = subprocess.Popen(
                command, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                env=dict(jail.environment(), REACTLINGS_TOKEN=token, SYSTEMROOT=os.environ.get("SYSTEMROOT", "")),
                **({"creationflags": subprocess.CREATE_NEW_PROCESS_GROUP} if os.name == "nt" else
                   {"start_new_session": True}))
            try:
                while True:
                    connection, _ = listener.accept()
                    connection.settimeout(5)
                    if connection.recv(len(token) + 1) == token.encode() + b"\n":
                        break
                    connection.close()  # not our child
            except OSError:
                connection = socket.socket()  # the child never called back: _start reports it died
        connection.settimeout(None)
        self._connected(connection)

    def _connected(self, sock: socket.socket) -> None:
        sock.settimeout(SEND_WAIT)  # sending only: _receive waits for the child's messages by poll
        self.sock, self.reader, self.pending, self.ready, self.load_sent = sock, LineReader(printable=True), [], False, False
        self.taken_tool_call = False
        # Tool calls run here, in the grader, side by side (as the learner's threads or tasks make
        # them), on threads of this child's own: what it leaves queued ends with it (see close).
        self.tool_runners, self.tools_waiting = None, set()

    def load(self) -> None:
        """Tell the child to import the file (once); loading is timed from now."""
        if not self.load_sent:
            self.load_sent = True
            self._send({"op": "load", "model_function": self.model_function, "sleep_given": self.sleep_given,
                        **({"file": self.file} if self.file else {})})
            self.loading = busy.Limit(self.process.pid, self.import_timeout, BACKSTOP)

    def _send(self, message, sock: socket.socket | None = None):
        sock = sock or self.sock
        if sock is None:
            return  # closed while a tool ran: nobody waits for the answer
        with self.send_lock:  # tool answers come from the tool threads
            try:
                sock.sendall(dump(message))
            except OSError:
                pass  # the child is gone; _receive reports how it ended

    def _receive_within(self, limit: busy.Limit) -> dict | Outcome:
        """The next message, or Outcome(problem=Problem.HANG) once the limit is out of the child's own time."""
        while True:
            message = self._receive(limit.deadline)
            if not (isinstance(message, Outcome) and message.problem is Problem.HANG and limit.extended()):
                return message

    def _receive(self, deadline) -> dict | Outcome:
        """The child's next message. A tool call it sent is always where `all_received` looks: in the
        socket, in `pending`, taken (until the next message is asked for), or started."""
        self.taken_tool_call = False
        while not self.pending:
            remaining = deadline - time.monotonic()
            # Past the deadline, a message already there is still read: it may have come in time
            # while this process waited for a CPU (a loaded machine).
            try:
                if not _readable(self.sock, max(remaining, 0.0)):  # wait for it, left in the socket
                    return Outcome(problem=Problem.HANG)
                with self.taking:
                    chunk = self.sock.recv(READ_SIZE)
                    messages = self.reader.feed(chunk)
                    if not all(isinstance(m, dict) for m in messages):
                        raise ValueError("unreadable message")
                    self.pending.extend(messages)
            except socket.timeout:
                return Outcome(problem=Problem.HANG)
            except OSError:
                chunk = b""
            except ValueError as error:
                return Outcome(problem=Problem.PROTOCOL, detail=str(error) or "unreadable message")
            if not chunk:
                return Outcome(problem=Problem.DIED, detail=self._exit_status())
        with self.taking:
            message = self.pending.pop(0)
            self.taken_tool_call = message.get("op") == "tool"
        return message

    def all_received(self) -> bool:
        """Whether every tool call the child has sent so far has started (and counts in `unanswered`
        until its answer is sent): none in the socket, none read and waiting, none just taken."""
        sock = self.sock
        if sock is None:
            return True
        with self.taking:
            try:
                unread = _readable(sock)
            except (OSError, ValueError):  # closed meanwhile: the child is gone
                return True
            return not (self.taken_tool_call or self.pending or unread)

    def _exit_status(self) -> str:
        try:
            code = self.process.wait(timeout=2)
        except subprocess.TimeoutExpired:
            return "?"
        if code < 0:
            try:
                return f"signal {signal.Signals(-code).name}"
            except ValueError:
                return f"signal {-code}"
        return f"exit status {code}"

    def run_tool_call(self, job):
        """Start `job`, a tool call and the sending of its answer, on this child's tool threads,
        made at its first call (concurrent.futures is imported then: not before the child starts)."""
        if self.tool_runners is None:
            from concurrent.futures import ThreadPoolExecutor
            self.tool_runners = ThreadPoolExecutor(TOOL_THREADS, thread_name_prefix="reactlings-tool")
        future = self.tool_runners.submit(job)
        self.tools_waiting.add(future)
        future.add_done_callback(self.tools_waiting.discard)

    def unanswered(self) -> int:
        """How many of the child's tool calls have no answer sent yet (day11's barrier asks)."""
        return len(self.tools_waiting)

    def idle(self) -> bool:
        """Whether the learner's code now waits, each thread of its process blocked (busy.idle), with
        every call it made received: one the grader has yet to read is no less made (a busy
        machine may keep the grader from reading for a while)."""
        process = self.process
        return (process is None or busy.idle(process.pid, self.proc_files)) and self.all_received()

    def close(self):
        """Kill the child and everything it started (jailed: its whole pid namespace), and end
        the tool calls it asked for: those still queued never run, those running are waited for."""
        if self.tool_runners is not None:
            self.tool_runners.shutdown(wait=False, cancel_futures=True)
        if self.process is not None:
            if self.jailed:
                jail.stop(self.process)
            else:
                try:
                    if hasattr(os, "killpg"):
                        os.killpg(self.process.pid, signal.SIGKILL)
                    else:  # Windows: no process groups to kill; the child itself
                        self.process.kill()
                except (ProcessLookupError, PermissionError):
                    pass
            self.process.wait()
            self.process = None
        self.proc_files.close()
        jail.remove_copies(self.jail_spec)
        self.jail_spec = None
        if self.sock is not None:
            self.sock.close()
            self.sock = None
        if self.tool_runners is not None:  # nothing the child asked for runs on into what comes next
            from concurrent import futures
            futures.wait(list(self.tools_waiting), timeout=TOOL_DRAIN_WAIT)
            self.tool_runners = None
