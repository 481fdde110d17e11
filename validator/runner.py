"""Runs a learner's file in a child process (sandbox.py) and calls its functions with a time limit.

The grader keeps the model and the tools: when the learner's code calls llm_call or a tool, the
child asks over a socket and this side answers. A call that runs past its limit, or a child that
dies, is killed and reported; the next call starts a fresh child.
"""
from __future__ import annotations

import json
import os
import signal
import socket
import subprocess
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable

SANDBOX = Path(__file__).with_name("sandbox.py")
MESSAGE_LIMIT = 8 * 1024 * 1024  # bytes in one message from the child; more is treated as abuse
MEMORY_LIMIT = 1024 * 1024 * 1024  # bytes of address space for the child
HUNG_AGAIN_LIMIT = 0.5  # seconds for a function that already hung once: fail fast, still check
WHERE_STUCK_WAIT = 0.3  # seconds a hanging child gets to say where it is stuck
REFUSAL_GRACE = 0.5  # seconds a refused call gets to unwind before its child is killed


@dataclass
class Outcome:
    """What one call did. Exactly one of value / error / problem describes how it ended."""
    value: object = None
    error: dict | None = None  # the learner's exception: type, message, traceback (their frames)
    problem: str | None = None  # hang, died, flood, missing, budget, bad_prompt,
    # unexpected_llm, protocol, import_failed, import_hang, import_died
    detail: str = ""  # for a problem: exit status, budget, ...
    stdout: str = ""
    unawaited: int = 0  # llm_call coroutines made but never awaited
    seconds: float = 0.0
    child_ok: bool = False  # the call ended cleanly: the child can serve the next one


@dataclass
class Record:
    """A dataclass instance from the learner's process: its class name and its fields."""
    type: str
    fields: dict

    def __getattr__(self, name):
        try:
            return self.__dict__["fields"][name]
        except KeyError:
            raise AttributeError(name) from None


@dataclass
class Opaque:
    """A value that does not cross as JSON: its type name and repr()."""
    type: str
    text: str


@dataclass
class Unawaited:
    """A coroutine returned where a value was expected: a missing `await`."""
    name: str


def decode(value):
    if isinstance(value, list):
        return [decode(v) for v in value]
    if not isinstance(value, dict):
        return value
    if "$tuple" in value:
        return tuple(decode(v) for v in value["$tuple"])
    if "$dict" in value:
        return {_hashable(decode(k)): decode(v) for k, v in value["$dict"]}
    if "$dataclass" in value:
        return Record(value["$dataclass"], {k: decode(v) for k, v in value["fields"].items()})
    if "$coroutine" in value:
        return Unawaited(value["$coroutine"])
    return Opaque(value.get("$type", "?"), value.get("$repr", ""))


def _printable(value):
    """The message with each lone surrogate (text no terminal or file can hold) as a \\ud800 escape."""
    if isinstance(value, str):
        return value.encode("utf-8", "backslashreplace").decode("utf-8")
    if isinstance(value, list):
        return [_printable(v) for v in value]
    if isinstance(value, dict):
        return {_printable(k): _printable(v) for k, v in value.items()}
    return value


def _hashable(key):
    return key if isinstance(key, (str, int, float, bool, tuple, type(None))) else repr(key)


def _limit_child():
    import resource  # POSIX only; the grader runs on Linux and macOS
    resource.setrlimit(resource.RLIMIT_AS, (MEMORY_LIMIT, MEMORY_LIMIT))
    resource.setrlimit(resource.RLIMIT_FSIZE, (64 * 1024 * 1024,) * 2)


@dataclass
class Submission:
    """A learner's file, loaded in a child process on first use."""
    path: Path
    import_timeout: float = 5.0
    process: subprocess.Popen | None = None
    sock: socket.socket | None = None
    import_failure: Outcome | None = None  # set once: a file that can't import never will
    hung: set[str] = field(default_factory=set)  # functions that ran past their limit
    ready: bool = False  # the child has loaded the file and waits for calls
    spawned: float = 0.0  # when the child started: loading it is timed from then
    buffer: bytes = field(default=b"", repr=False)

    def call(self, func: str, *args, timeout: float,
             model: Callable | None = None, tools: Callable | None = None) -> Outcome:
        """Call func(*args) in the child. `model` answers the learner's model calls: model(prompt)
        for llm_call, model(method, path, body) -> (status, json) for the openai client. A model
        that raises an exception with a `problem` attribute ends the call with that problem.
        tools(name, *args, **kwargs) runs a tool the learner's code called."""
        if self.import_failure:
            return self.import_failure
        started = time.monotonic()
        if self.process is None or not self.ready:
            failure = self._start()
            if failure:
                self.import_failure = failure
                return failure
        if func in self.hung:
            timeout = min(timeout, HUNG_AGAIN_LIMIT)
        deadline = time.monotonic() + timeout
        outcome = self._serve({"op": "call", "func": func, "args": list(args)}, deadline, model, tools)
        outcome.seconds = time.monotonic() - started
        if outcome.problem == "hang":
            outcome.detail, outcome.error = f"{timeout:g}", {"traceback": self._where_stuck()}
            self.hung.add(func)
        if not outcome.child_ok:
            self.close()  # the child is stuck, dead or mid-call: start afresh next time
        return outcome

    def spawn(self) -> None:
        """Start the child now, so it loads the file while the grader gets ready (pytest's startup)."""
        parent, child = socket.socketpair()
        self.process = subprocess.Popen(
            [sys.executable, "-X", "utf8", str(SANDBOX), str(child.fileno()), str(self.path)],
            pass_fds=[child.fileno()], stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL, start_new_session=True, preexec_fn=_limit_child,
            env={**os.environ, "PYTHONHASHSEED": "0", "PYTHONDONTWRITEBYTECODE": "1"})
        child.close()
        self.sock, self.buffer, self.ready = parent, b"", False
        self.spawned = time.monotonic()

    def _start(self) -> Outcome | None:
        """Wait for the child to have loaded the file; an Outcome if it never will."""
        if self.process is None:
            self.spawn()
        first = self._receive(self.spawned + self.import_timeout)
        if isinstance(first, Outcome):  # hang or death while importing
            if first.problem == "hang":
                first.detail, first.error = f"{self.import_timeout:g}", {"traceback": self._where_stuck()}
            first.problem = "import_" + first.problem if first.problem in ("hang", "died") else first.problem
            self.close()
            return first
        if first.get("op") == "flood":  # printed without end while loading
            self.close()
            return Outcome(problem="import_flood", stdout=str(first.get("stdout", "")))
        if first.get("op") == "import_failed":
            self.close()
            return Outcome(problem="import_failed", error=first.get("error"), stdout=first.get("stdout", ""))
        self.ready = True
        return None

    def _serve(self, request, deadline, model, tools) -> Outcome:
        self._send(request)
        stop: Outcome | None = None  # why the model refused; from then on it refuses every call
        while True:
            message = self._receive(deadline)
            if isinstance(message, Outcome):
                return stop or message  # a loop that swallows the refusal is stopped anyway
            op = message.get("op")
            if op in ("llm", "http"):
                stop = stop or self._answer(message, model)
                if stop:  # the learner's llm_call raises, so their loop unwinds: no restart needed
                    self._send({"refuse": stop.problem})
                    deadline = min(deadline, time.monotonic() + REFUSAL_GRACE)
            elif op == "tool":
                self._send(self._run_tool(tools, message))
            elif op == "done":
                outcome = self._finish(message)
                if stop:
                    stop.stdout, stop.child_ok = outcome.stdout, True
                return stop or outcome
            elif op == "flood":
                return Outcome(problem="flood", stdout=str(message.get("stdout", "")))
            else:
                return Outcome(problem="protocol", detail=f"unexpected message {op!r}")

    def _answer(self, message, model) -> Outcome | None:
        """Answer a model call: the learner's llm_call(prompt) (text protocol) or an HTTP request
        from their openai client (chat protocol). An Outcome instead when the model refuses."""
        if model is None:
            return Outcome(problem="unexpected_llm")
        if message["op"] == "http":
            request = (str(message.get("method")), str(message.get("path")), str(message.get("body", "")))
            return self._ask(model, request, lambda answer: {"status": answer[0], "body": answer[1]})
        prompt = message.get("prompt")
        if not isinstance(prompt, str):
            kind = prompt.get("$type", "?") if isinstance(prompt, dict) else type(prompt).__name__
            return Outcome(problem="bad_prompt", detail=kind)
        return self._ask(model, (prompt,), lambda reply: {"reply": reply})

    def _ask(self, model, question: tuple, wrap) -> Outcome | None:
        try:
            answer = model(*question)
        except Exception as error:
            if not hasattr(error, "problem"):  # BudgetExceeded, an unreachable endpoint: a refusal
                raise
            return Outcome(problem=error.problem, detail=str(error))
        self._send(wrap(answer))
        return None

    @staticmethod
    def _run_tool(tools, message) -> dict:
        if tools is None:
            return {"raise": "this check gives your code no tools to run"}
        try:
            args = [decode(a) for a in message.get("args") or []]
            kwargs = {str(k): decode(v) for k, v in (message.get("kwargs") or {}).items()}
            return {"output": tools(str(message.get("name")), *args, **kwargs)}
        except Exception as error:  # the tool's failure, told to the learner's code as an exception
            return {"raise": str(error.args[0]) if len(error.args) == 1 else str(error),
                    "type": type(error).__name__}

    @staticmethod
    def _finish(message) -> Outcome:
        common = dict(stdout=str(message.get("stdout", "")), unawaited=int(message.get("unawaited", 0)),
                      child_ok=True)
        if "missing" in message:
            return Outcome(problem="missing", detail=str(message["missing"]), **common)
        if "error" in message:
            return Outcome(error=message["error"], **common)
        return Outcome(value=decode(message.get("value")), **common)

    def _send(self, message):
        try:
            self.sock.sendall(json.dumps(message).encode() + b"\n")  # ASCII: a lone surrogate survives
        except OSError:
            pass  # the child is gone; _receive reports how it ended

    def _receive(self, deadline) -> dict | Outcome:
        while b"\n" not in self.buffer:
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                return Outcome(problem="hang")
            self.sock.settimeout(remaining)
            try:
                chunk = self.sock.recv(1 << 20)
            except socket.timeout:
                return Outcome(problem="hang")
            except OSError:
                chunk = b""
            if not chunk:
                return Outcome(problem="died", detail=self._exit_status())
            self.buffer += chunk
            if len(self.buffer) > MESSAGE_LIMIT:
                return Outcome(problem="protocol", detail="message too large")
        line, self.buffer = self.buffer.split(b"\n", 1)
        try:
            return _printable(json.loads(line))
        except ValueError:
            return Outcome(problem="protocol", detail="unreadable message")

    def _where_stuck(self) -> str:
        """The learner's lines where the hanging child is now, asked for before it is killed."""
        try:
            os.kill(self.process.pid, signal.SIGUSR1)
        except ProcessLookupError:
            return ""
        deadline = time.monotonic() + WHERE_STUCK_WAIT
        while isinstance(message := self._receive(deadline), dict):
            if message.get("op") == "stuck":
                return str(message.get("where", ""))
        return ""

    def _exit_status(self) -> str:
        try:
            code = self.process.wait(timeout=2)
        except subprocess.TimeoutExpired:
            return "?"
        return f"signal {signal.Signals(-code).name}" if code < 0 else f"exit status {code}"

    def close(self):
        """Kill the child and everything it started."""
        if self.process is not None:
            try:
                os.killpg(self.process.pid, signal.SIGKILL)
            except (ProcessLookupError, PermissionError):
                pass
            self.process.wait()
            self.process = None
        if self.sock is not None:
            self.sock.close()
            self.sock = None
