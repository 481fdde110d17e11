"""Runs a learner's file in a child process (sandbox.py) and calls its functions with a time limit.

The grader keeps the model and the tools: when the learner's code calls the model or a tool, the
child asks over a socket and this side answers (see wire.py for the messages). A call that runs
past its limit is stopped, a child that dies is reported; a child that can't go on is replaced by a
fresh one for the next call. Anything the child sends that is not a well-formed answerable request
ends the call as a protocol violation: nothing it sends is executed or trusted. Starting the
child, its messages both ways and its end are child_process.py's; here, a call and its answers.
"""
from __future__ import annotations

import hashlib
import time
import tokenize
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Callable

from mock_llm import LessonWorld, Scenario, load_world
from validator.child.wire import decode, dump
from validator.grading import busy
from validator.grading.child_process import BACKSTOP, ChildProcess
from validator.outcomes import Outcome, Problem

if TYPE_CHECKING:
    from validator.lessons import Lesson

HUNG_AGAIN_LIMIT = 0.5  # seconds for a function that already hung once: fail fast, still check
WHERE_STUCK_WAIT = 0.3  # seconds a stopped child gets to say where it was and end the call
REFUSAL_GRACE = 0.5  # seconds a refused call gets to unwind before its child is killed
TOOL_CALLS_LIMIT = 200  # tool calls in one call of the learner's: more is a runaway loop
TOOL_INPUT_LIMIT = 64 * 1024  # characters of arguments to one tool call
LEFT_RUNNING_LOOK = 0.01  # seconds between looks at threads a call left running, for them to be done
TOOLS_WAITING_LIMIT = 32  # tool calls of one child's running or queued at once (a call makes 10 at most)


class Unanswerable(Exception):
    """A request the grader will not answer: the learner's call ends as a protocol violation. (A
    model that refuses a call raises any exception with a `problem` attribute, such as the mock's
    BudgetExceeded; the call then ends with that problem.)"""
    problem = Problem.PROTOCOL


class LoadingModel:
    """Answers the model calls a file makes while it loads (a smoke test left at module level):
    each gets a final answer at once, so the file loads and is graded; none is recorded."""

    def __init__(self, session_factory: Callable | None):
        self.session = session_factory() if session_factory else None
        self.used = False

    def __call__(self, op: str, *request, **extra):
        self.used = True
        if self.session is None:
            raise Unanswerable("no model while loading")
        return getattr(self.session, op)(*request, **extra)


def read_source(path: Path) -> str:
    """A Python file's text as Python reads it: a BOM or a `# coding:` line chooses the encoding."""
    try:
        with tokenize.open(path) as file:
            return file.read()
    except (SyntaxError, UnicodeDecodeError):  # an unknown or wrong encoding: Python can't read it either
        return Path(path).read_text(encoding="utf-8", errors="replace")


@dataclass
class Submission(ChildProcess):
    """A learner's file, loaded in a child process on first use.

    `model_function` names the file's own function that calls the model (llm_call): after loading,
    it is replaced by one the grader answers. `loading_session` makes a model session that answers
    model calls made while the file loads (see LoadingModel)."""
    loading_session: Callable | None = None
    import_failure: Outcome | None = None  # set once: a file that can't import never will
    loaded_with_model_calls: bool = False  # the file called the model while it loaded
    remembers_hangs: bool = True  # a function or line stuck once is stopped at once next time (--live: a slow model is no hang)
    hung: set[str] = field(default_factory=set)  # functions that ran past their limit
    hang_spots: set[int] = field(default_factory=set)  # learner lines where a call was stuck
    calls_made: int = 0  # each call's number: its result must name it

    def call(self, func: str, *args, timeout: float, model: Callable | None = None,
             http: Callable | None = None, tools: Callable | None = None, watch: bool = False,
             stand_ins: dict[str, str] | None = None) -> Outcome:
        """Call func(*args) in the child, within `timeout` seconds.

        model(payload) answers the learner's model function (llm_call(prompt), llm(messages));
        http(method, path, body) -> (status, json) answers the learner's openai client;
        tools(name, *args, **kwargs) runs a tool the learner's code called. A model that raises
        an exception with a `problem` attribute ends the call with that problem. `watch`: say which
        arguments the call changed (Outcome.changed_args). `stand_ins`: {name: source} of the
        lesson's, each defining a function `name` that stands in for the learner's own during this
        call only (reached there as `learners`): a check of one TODO grades its code around another
        TODO's mistake instead of charging it twice (sandbox.Child.stand_in)."""
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
        # The child's own time, so that a busy machine makes no hang: read only when it runs out
        limit = busy.Limit(self.process.pid, timeout, BACKSTOP, waited_at_start=0.0)
        self.calls_made += 1
        request = {"op": "call", "call": self.calls_made, "func": func, "args": list(args),
                   "hang_spots": [[line] for line in sorted(self.hang_spots)], **({"watch": True} if watch else {}),
                   **({"stand_ins": dict(stand_ins)} if stand_ins else {})}
        answer = {"model": model, "http": http, "tool": tools}
        try:
            outcome = self._serve(request, limit, answer)
        except BaseException:  # a bug of the grader's mid-call: the child waits for an answer that never comes
            self.close()
            raise
        outcome.seconds = time.monotonic() - started
        if outcome.problem is Problem.HANG:
            outcome.detail = f"{timeout:g}"
            if self.remembers_hangs:
                self.hung.add(func)
        if not outcome.child_ok:
            self.close()  # the child is stuck, dead or mid-call: start afresh next time
        return outcome

    def _start(self) -> Outcome | None:
        """Wait for the child to have loaded the file; an Outcome if it never will. Model calls
        made while it loads are answered by a LoadingModel; a file that loads and still fails
        because of them is told to move them under `if __name__ == "__main__":`."""
        if self.process is None:
            self.spawn()
        self.load()
        loading = LoadingModel(self.loading_session)
        while True:
            message = self._receive_within(self.loading)
            if isinstance(message, Outcome):  # hang or death while importing
                if message.problem is Problem.HANG:
                    message.detail = f"{self.import_timeout:g}"
                    message.error = {"traceback": self._stop()}
                message.problem = message.problem.while_loading()
                break
            op = message.get("op")
            if op in ("model", "http", "tool") and "id" in message:
                self._answer_request(message, {"model": lambda *r: loading("answer", *r),
                                               "http": lambda *r, **h: loading("http", *r, **h), "tool": None})
                continue
            if op == "ready":
                self.ready = True
                self.loaded_with_model_calls = loading.used
                return None
            if op == "flood":  # printed without end while loading
                message = Outcome(problem=Problem.IMPORT_FLOOD, stdout=str(message.get("stdout", "")))
            elif op == "import_failed":
                error = message.get("error") if isinstance(message.get("error"), dict) else {}
                problem = Problem.LOADS_MODEL if loading.used else Problem.IMPORT_FAILED
                if error.get("type") == "EOFError":  # input() at module level: nobody types during grading
                    problem = Problem.IMPORT_INPUT
                message = Outcome(problem=problem, error=error, stdout=str(message.get("stdout", "")))
            else:
                message = Outcome(problem=Problem.PROTOCOL, detail=f"unexpected message {op!r} while loading")
            break
        self.close()
        return message

    def _serve(self, request, limit: busy.Limit, answer) -> Outcome:
        self._send(request)
        deadline = limit.deadline
        stop: Outcome | None = None  # why the model refused; from then on it refuses every call
        grace: busy.Limit | None = None  # the refused call's time to unwind
        tool_calls = 0
        ended: Outcome | None = None  # the call's result, while threads it left running finish
        while True:
            if ended and self.idle() and not self.unanswered():
                return ended
            message = self._receive(min(deadline, time.monotonic() + LEFT_RUNNING_LOOK) if ended else deadline)
            if isinstance(message, Outcome) and message.problem is Problem.HANG and time.monotonic() >= deadline:
                if (grace or limit).extended():  # it waited for a CPU meanwhile: that time is not its own
                    deadline = (grace or limit).deadline
                    continue
            if ended and (isinstance(message, Outcome) or message.get("op") not in ("model", "http", "tool")):
                if isinstance(message, Outcome) and message.problem is Problem.HANG and time.monotonic() < deadline:
                    continue  # nothing came for a moment: look whether they are done
                return ended  # out of time, or the child ended: the result stands, the next call starts afresh
            if isinstance(message, Outcome):
                if message.problem is Problem.HANG and not stop:
                    return self._hang()
                return stop or message  # a loop that swallows the refusal is stopped anyway
            op = message.get("op")
            if op in ("model", "http", "tool") and "id" in message:
                if op == "tool":
                    tool_calls += 1
                    if tool_calls > TOOL_CALLS_LIMIT:
                        return Outcome(problem=Problem.TOO_MANY_TOOL_CALLS, detail=str(TOOL_CALLS_LIMIT))
                    if len(self.tools_waiting) >= TOOLS_WAITING_LIMIT:
                        return Outcome(problem=Problem.TOOLS_WAITING, detail=str(TOOLS_WAITING_LIMIT))
                if op != "tool" and stop:
                    self._send({"id": message["id"], "refuse": stop.problem})
                    continue
                refused = self._answer_request(message, answer)
                if refused:  # the learner's call raises, so their loop unwinds: no restart needed
                    stop, grace = refused, busy.Limit(self.process.pid, REFUSAL_GRACE, BACKSTOP)
                    deadline = min(deadline, grace.deadline)
            elif op == "done":
                if message.get("call") != request["call"]:  # a result for no call we made: forged
                    return Outcome(problem=Problem.PROTOCOL, detail="a result for another call")
                outcome = self._finish(message)
                if stop:
                    stop.stdout, stop.child_ok = outcome.stdout, True
                if not message.get("left_running"):
                    return stop or outcome
                # Threads the call started still run: what they ask for is this call's, answered now,
                # until they have all asked and been answered, so that the check reads a settled
                # round (day11), and the next call meets none of them: it starts a new child.
                ended = stop or outcome
                ended.child_ok = False
            elif op == "flood":
                return Outcome(problem=Problem.FLOOD, stdout=str(message.get("stdout", "")))
            elif op == "hang_again":  # the child saw the call stuck where an earlier one hung
                return self._hang(again=True)
            else:
                return Outcome(problem=Problem.PROTOCOL, detail=f"unexpected message {op!r}")

    def _answer_request(self, message, answer) -> Outcome | None:
        """Answer one request of the child's; an Outcome instead when the model refuses it."""
        op, number = message["op"], message["id"]
        handler = answer.get(op)
        if op == "tool" and handler is None:  # nothing to run: answered at once
            self._send(dict(self._run_tool(None, message), id=number))
            return None
        if op == "tool":  # its answer goes to the child that asked, never to a later one
            sock = self.sock
            self.run_tool_call(lambda: self._send(dict(self._run_tool(handler, message), id=number), sock))
            return None
        if handler is None:
            refusal = Outcome(problem=Problem.UNEXPECTED_LLM)
        else:
            try:
                if op == "http":
                    headers = message.get("headers")
                    extra = {"headers": {str(k): str(v) for k, v in headers.items()}} if isinstance(headers, dict) else {}
                    status, body, *more = handler(str(message.get("method")),
                                                  str(message.get("url") or message.get("path")),
                                                  str(message.get("body", "")), **extra)
                    answer = {"id": number, "status": status, "body": body}
                    if more and more[0]:
                        answer["headers"] = {str(k): str(v) for k, v in more[0].items()}
                    self._send(answer)
                else:
                    try:
                        payload = decode(message.get("payload"))
                    except (TypeError, ValueError, KeyError, AttributeError, RecursionError):
                        raise Unanswerable("malformed request") from None
                    self._send({"id": number, "reply": handler(payload)})
                return None
            except Exception as error:
                if op == "http" and getattr(error, "network", None) in ("timeout", "connect"):
                    # a network failure the mock plays: the child's transport raises it as httpx would
                    self._send({"id": number, "network": error.network, "message": str(error)})
                    return None
                if not hasattr(error, "problem"):  # a bug of the grader's: let it show
                    raise
                refusal = Outcome(problem=Problem(error.problem), detail=str(error))
        self._send({"id": number, "refuse": refusal.problem})
        return refusal

    @staticmethod
    def _run_tool(tools, message) -> dict:
        if tools is None:
            return {"raise": "this check gives your code no tools to run"}
        try:
            args = [decode(a) for a in message.get("args") or []]
            kwargs = {str(k): decode(v) for k, v in (message.get("kwargs") or {}).items()}
            if len(repr((args, kwargs))) > TOOL_INPUT_LIMIT:
                return {"raise": f"tool input too large (over {TOOL_INPUT_LIMIT} characters)",
                        "type": "ValueError"}
            answer = {"output": tools(str(message.get("name")), *args, **kwargs)}
            dump(answer)  # a result that can't cross (an int of 5,000 digits) is the tool's failure
            return answer
        except Exception as error:  # the tool's failure, told to the learner's code as an exception
            return {"raise": str(error.args[0]) if len(error.args) == 1 else str(error),
                    "type": type(error).__name__}

    @staticmethod
    def _finish(message) -> Outcome:
        try:
            return Submission._read_done(message)
        except (TypeError, ValueError, KeyError, AttributeError, RecursionError):
            return Outcome(problem=Problem.PROTOCOL, detail="malformed result")

    @staticmethod
    def _read_done(message) -> Outcome:
        common = dict(stdout=str(message.get("stdout", "")), unawaited=int(message.get("unawaited") or 0),
                      left_running=int(message.get("left_running") or 0),
                      ran_code=int(message.get("ran_code") or 0),
                      changed_args=[int(n) for n in message.get("changed_args") or []], child_ok=True)
        if "missing" in message:
            return Outcome(problem=Problem.MISSING, detail=str(message["missing"]), **common)
        if "missing_type" in message:
            return Outcome(problem=Problem.MISSING_TYPE, detail=str(message["missing_type"]), **common)
        if "real_sleep" in message:
            return Outcome(problem=Problem.REAL_SLEEP, detail=f"{float(message['real_sleep']):g}",
                           error={"traceback": str(message.get("traceback", ""))}, **common)
        if "error" in message and isinstance(message["error"], dict):
            return Outcome(error=message["error"], **common)
        if "refused" in message:  # refused by a model nobody here refused for: a forged message
            return Outcome(problem=Problem.PROTOCOL, detail="unexpected refusal")
        return Outcome(value=decode(message.get("value")), **common)

    def _hang(self, again: bool = False) -> Outcome:
        """The call ran out of time: stop it, learn where it was stuck."""
        outcome = Outcome(problem=Problem.HANG, again=again)
        outcome.error = {"traceback": self._stop(outcome)}
        return outcome

    def _stop(self, outcome: Outcome | None = None) -> str:
        """Ask the child where it is stuck and to end the call; the learner's lines it names, or ""
        if it can't say. When it ends the call cleanly, `outcome` notes that the child can go on."""
        self._send({"op": "stop"})
        limit, where, done = busy.Limit(self.process.pid, WHERE_STUCK_WAIT, BACKSTOP), None, outcome is None
        while (where is None or not done) and isinstance(message := self._receive_within(limit), dict):
            op = message.get("op")
            if op == "stuck" and where is None:
                spot = message.get("spot")
                if isinstance(spot, list) and spot and isinstance(spot[0], int) and self.remembers_hangs:
                    self.hang_spots.add(spot[0])
                where = str(message.get("where", ""))
            elif op == "done" and not done:  # ended by the stop; usable if nothing runs on
                done = True
                outcome.stdout = str(message.get("stdout", ""))
                outcome.child_ok = (message.get("clean") is True and "stopped" in message
                                    and message.get("call") == self.calls_made)
            elif op in ("model", "http", "tool") and "id" in message:
                self._send({"id": message["id"], "refuse": Problem.HANG})
        return where or ""


def open_submission(lesson: Lesson, world: LessonWorld | None, path: Path, forkserver=None,
                    live: bool = False) -> Submission:
    """The learner's file, to be run in a child process for this lesson. Model calls it makes while
    it loads (a smoke test left at module level) get an at-once final answer in the lesson's
    protocol, so the file still loads and is graded (world None: set by loading_session(world) once
    the world is loaded, before the file is). `live`: a real model answers, and the learner's code
    waits for real (time.sleep is theirs, as it is outside the grader); a question that ran out of
    time says nothing of the next (a slow model is no hang)."""
    return Submission(path, model_function=lesson.model_function, forkserver=forkserver, readable=lesson.files,
                      sleep_given=lesson.sleep_given and not live, remembers_hangs=not live,
                      loading_session=loading_session(world) if world else None)


def loading_session(world: LessonWorld) -> Callable:
    """What makes the session that answers a file's model calls while it loads: at once, finally."""
    loading = Scenario("loading", "", [], "(the grader's model does not answer while your file loads)",
                       [], repeat=False)
    return lambda: world.protocol(loading, world.seed, budget=5)


def submission_seed(secret: int, code: bytes) -> int:
    """The numbers one submission is graded at under an instructor's secret seed: drawn from the
    secret and the submission's own code. The same file gets the same numbers; a resubmission
    with answers copied in from an earlier grading's feedback is another file, and meets others."""
    return int.from_bytes(hashlib.sha256(b"reactlings submission seed %d\0" % secret + code).digest()[:8], "big")


def start_submission(lesson: Lesson, path: Path, seed: int, file: str | None = None) -> tuple[LessonWorld, Submission]:
    """The lesson's world at `seed`, and the learner's file at `path` started in its child: it
    loads the file while the grader gets ready (the world, its imports, pytest's start-up). `file`:
    its __file__, if not `path` (a notebook's code, written elsewhere to be graded)."""
    submission = open_submission(lesson, None, Path(path).resolve())
    submission.file = file
    submission.spawn()
    world = load_world(lesson.folder, seed)
    submission.loading_session = loading_session(world)
    return world, submission
