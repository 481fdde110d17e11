"""How a call into the learner's code can end without a value, and what each way means downstream.

One table instead of strings repeated in four places: each `Problem` the runner can report is also
the key of the message the learner reads (messages.yaml), and, when it means the file could not
load at all, names the `Status` its gradebook row gets. Both are `str` enums: they compare equal
to their values, go into JSON as them, and a lesson's check may still write `== "budget"`.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from enum import Enum


class _Text(str, Enum):
    """Printed, formatted and written as its value, as Python 3.11's StrEnum is (the kit runs on 3.10)."""
    __str__ = str.__str__
    __format__ = str.__format__
    __hash__ = str.__hash__  # a message catalogue keyed by "hang" finds Problem.HANG


class Status(_Text):
    """A student's row in a class gradebook."""
    GRADED = "graded"
    SYNTAX_ERROR = "syntax error"
    TIMED_OUT = "timed out"
    CRASHED = "crashed"
    GRADER_FAILED = "grader failed"
    MISSING = "missing"

    @property
    def message(self) -> str:
        """The key of the status's name in messages.yaml (class_status_timed_out …)."""
        return "class_status_" + self.value.replace(" ", "_")

    @property
    def scored(self) -> bool:
        """Whether the checks ran on the student's file (a missing one or a grader failure: no)."""
        return self not in (Status.MISSING, Status.GRADER_FAILED)


class Problem(_Text):
    """Why a call returned no value. `unloaded`: the Status of a file that fails this way before
    any function of it can be called (None: the file loaded; only this call went wrong)."""

    def __new__(cls, key: str, unloaded: Status | None = None):
        problem = str.__new__(cls, key)
        problem._value_ = key
        problem.unloaded = unloaded
        return problem

    # the call itself
    HANG = "hang"  # out of time
    DIED = "died"  # the child process ended
    FLOOD = "flood"  # printed past the limit
    MISSING = "missing"  # no such function in the file
    MISSING_TYPE = "missing_type"  # no such class for the checks to build
    REAL_SLEEP = "real_sleep"  # time.sleep in a lesson that hands the code its sleep
    TOO_MANY_TOOL_CALLS = "too_many_tool_calls"
    TOOLS_WAITING = "tools_waiting"  # tool calls left unanswered at once
    PROTOCOL = "protocol"  # the child said something the grader can't read
    # the model would not answer (a session's Refusal: mock_llm/session.py, validator/learner/live.py)
    REFUSED = "refused"
    BUDGET = "budget"
    BAD_PROMPT = "bad_prompt"
    UNEXPECTED_LLM = "unexpected_llm"
    UNREACHABLE = "unreachable"
    LIVE_TIMEOUT = "live_timeout"
    LIVE_HTTP_ERROR = "live_http_error"
    TOKEN_BUDGET = "token_budget"
    # the file could not load, so no call could be made
    IMPORT_SYNTAX = "import_syntax", Status.SYNTAX_ERROR
    IMPORT_HANG = "import_hang", Status.TIMED_OUT
    IMPORT_DIED = "import_died", Status.CRASHED
    IMPORT_FLOOD = "import_flood", Status.CRASHED
    IMPORT_FAILED = "import_failed", Status.CRASHED
    IMPORT_INPUT = "import_input", Status.CRASHED  # input() at load time
    LOADS_MODEL = "loads_model", Status.CRASHED  # failed after calling the model while loading

    def while_loading(self) -> Problem:
        """This problem met while the file loads: a hang or a death then means it never loaded."""
        return {Problem.HANG: Problem.IMPORT_HANG, Problem.DIED: Problem.IMPORT_DIED}.get(self, self)


@dataclass
class Outcome:
    """What one call did. Exactly one of value / error / problem describes how it ended."""
    value: object = None
    error: dict | None = None  # the learner's exception: type, message, traceback (their frames)
    problem: Problem | None = None  # why it returned no value (above)
    detail: str = ""  # for a problem: exit status, budget, ...
    stdout: str = ""
    unawaited: int = 0  # model-call coroutines made but never awaited
    left_running: int = 0  # threads the call started that still ran when it returned
    ran_code: int = 0  # the first line of the learner's file that ran text as code (eval, exec), if any
    changed_args: list[int] = field(default_factory=list)  # the arguments the call changed (when watched)
    seconds: float = 0.0
    child_ok: bool = False  # the call ended cleanly: the child can serve the next one
    again: bool = False  # a hang at a line where an earlier call hung: the same cause
