"""The lesson authoring API: everything a lesson's checks.py uses, and nothing else of the kit.

A check is a plain pytest test. It calls the learner's functions through `learner` (they run in the
child process), looks at what came back and at the transcript, and fails with `Fail(key, ...)`:
a message key from lesson.yaml or validator/messages.yaml, so the report can speak en or zh.
The `world` fixture is the lesson's world for the seed being graded: its scenarios, its data
tables (`world.weather`), its tools (`world.tools["Calculator"]`) and `world.session(name)`, a
fresh mock session of the lesson's protocol.
"""
from __future__ import annotations

import ast
import inspect
import os
import random
import re
import sys
from dataclasses import dataclass, field
from functools import lru_cache
from typing import Callable, Iterable

import pytest

from mock_llm import (
    ACTION,
    ACTION_INPUT,
    OBSERVATION,
    LessonWorld,
    Scenario,
    answer_text,
    calculate,
    find_observations,
    first_number,
    imagined,
    message_text,
    names_tool,
    read_final,
    read_request,
    read_steps,
    request_text,
    same_call,
    sees_question,
    written_after_request,
)
from validator.child.wire import Opaque, Record, Unawaited
from validator.child.wire import (
    loads as parse_json,  # JSON text of the learner's: ValueError, never a crash, however deep
)
from validator.grading.runner import Submission, read_source
from validator.isolation.jail import LEARNER_UTC_HOURS
from validator.lessons import Lesson, LessonError
from validator.outcomes import Outcome, Problem, Status

__all__ = [
    # writing checks
    "AgentRun", "Fail", "Learner", "LessonError", "Record", "ToolBox", "ToolCall", "check", "expect", "parse_json",
    "shown", "quoted", "LEARNER_UTC_HOURS",
    # arguments built in the learner's process
    "completion_arg", "learner_object", "registry_arg", "steps_arg", "tool_arg", "tools_arg", "unseen",
    # shared tools and readers: what the tools compute, and the text protocol as the mock reads it
    "calculate", "first_number", "ACTION", "ACTION_INPUT", "OBSERVATION", "answer_text",
    "find_observations", "imagined", "names_tool", "read_final", "read_request", "read_steps", "request_text",
    "sees_question", "written_after_request",
    # readers of what the learner's loop sent: messages lists, and Chat Completions requests
    "content_text", "tool_call_text", "request_messages", "chat_text",
    # checks more than one lesson makes
    "expect_format_explained", "glued_on", "expect_question_asked", "expect_answer", "expect_step_limit",
    "expect_unknown_tool_said", "expect_own_fallback", "expect_turns_sent_back", "expect_accepted",
    "expect_history_kept", "expect_fresh_start", "expect_asked_tools_ran", "expect_requests_run",
    "expect_system_prompt_used",
    "expect_final_returned", "expect_observation_labelled", "labelled_twice", "argument_errors",
    "expect_bare_results",
]


FORMAT_LABELS = ("Thought", "Action:", "Action Input:", "Observation", "Final Answer:")  # the text protocol's


def expect_format_explained(first: str, later: str, parts: list[str]) -> None:
    """The text protocol's labels in the first prompt (no steps yet; else the lesson's
    "prompt_format_missing") and in a later one (else "prompt_dropped_format"), as a model reads a
    label: "**Action:**" or a full-width "Action：" shows it too. In the later prompt the steps'
    own lines show labels as well: only its instructions count, the lines the first prompt has too
    and any other that holds none of the steps' `parts`."""
    shared = set(first.splitlines())
    instructions = "\n".join(line for line in later.splitlines()
                             if line in shared or not any(part in line for part in parts))
    for prompt, key in ((first, "prompt_format_missing"), (instructions, "prompt_dropped_format")):
        for label in FORMAT_LABELS:
            expect(re.search(re.escape(label).replace(":", r"\**\s*[:：]"), prompt), key, line=label)


GLUED_LABEL = re.compile(r"(?:Thought|Action|Observation|Final[ _]?Answer|Question)\s*(?:\*+\s*)?[:：]", re.IGNORECASE)


def glued_on(observation: str, result: str) -> str | None:
    """The line of a step's Observation, as a model reads it, when the next label is glued onto the
    tool's result (`35°CThought: …`: a step written without its newline): the model reads that
    Thought as part of the result. None when the result ends its Observation's line."""
    at = observation.find(result)
    rest = observation[at + len(result):] if at >= 0 else ""
    if not GLUED_LABEL.match(rest.lstrip(" \t*")):
        return None
    return result + rest.split("\n", 1)[0]


LOAD_FAILURE = "the file does not load"  # the cause of every failure when the file can't load


CHECK_FIXTURES = ("learner", "world")  # all a check may ask for: the grader hands it these itself


def check(todo: str, points: int, en: str, zh: str):
    """Tag a check with its TODO, its points and its title in both languages."""
    return pytest.mark.todo(todo, points=points, title={"en": en, "zh": zh})


class Fail(Exception):
    """A failed check: a message key and its parameters; `detail` is shown verbatim (a traceback)."""

    def __init__(self, key: str, detail: str = "", **params):
        super().__init__(key)
        self.key, self.detail, self.params = key, detail, params
        self.cause: str | None = None  # set when other checks fail for the very same reason
        self.unloaded: Status | None = None  # set when the file could not load: its gradebook status

    def raised_a(self, name: str) -> bool:
        """Whether the learner's code raised an instance of the built-in exception `name` (a class
        of their own that subclasses it is one: class ParseError(ValueError))."""
        return self.raised and f"builtins.{name}" in (self.params.get("kinds") or [f"builtins.{self.params.get('type')}"])

    @property
    def raised(self) -> bool:
        """Whether the learner's code raised. (An exception json raises carries the StopIteration
        it replaced as its context, which the grader reports as a StopIteration.)"""
        return self.key in ("crashed", "stop_iteration")


# A frame of a traceback as the learner reads it: `  File "day01.py", line 51, in execute_tool`.
_FRAME = re.compile(r'^  File "[^\n]*", line \d+, in [^\n]*$', re.MULTILINE)


def raised_in(failure: Fail) -> str | None:
    """The frame of the learner's code that raised the exception `failure` reports (its
    traceback's last), or None when it reports none."""
    frames = _FRAME.findall(failure.detail or "")
    return frames[-1].strip() if frames and failure.params.get("type") else None


def expect(condition, key: str, **params):
    if not condition:
        raise Fail(key, **params)


def shown(value) -> str:
    """A value from the learner's process as the learner would write it in Python: a str as is
    (but a blank one in quotes, so that it shows), a dataclass as ToolResult(success=True, …),
    anything else by its repr()."""
    if isinstance(value, str):
        return value if value.strip() else repr(value)
    return _python(value)


def quoted(value) -> str:
    """A value for a message: a str in quotes (so an empty or blank one shows), anything else as
    shown() writes it."""
    return repr(value) if isinstance(value, str) else shown(value)


def _python(value) -> str:
    if isinstance(value, Record):
        return f"{value.type}({', '.join(f'{k}={_python(v)}' for k, v in value.fields.items())})"
    if isinstance(value, Opaque):
        return value.text
    if isinstance(value, list):
        return "[" + ", ".join(_python(v) for v in value) + "]"
    if isinstance(value, tuple):
        return "(" + ", ".join(_python(v) for v in value) + ("," if len(value) == 1 else "") + ")"
    if isinstance(value, dict):
        return "{" + ", ".join(f"{_python(k)}: {_python(v)}" for k, v in value.items()) + "}"
    return repr(value)


def tool_arg(name: str) -> dict:
    """A function for the learner's code that runs the grader's tool `name`."""
    return {"$tool": name}


def bind_error(tool, arguments: dict) -> str | None:
    """What binding these keyword arguments to the grader's `tool` says is wrong ("missing a
    required argument: 'a'"); None when it takes them, or has no signature to bind to."""
    if tool is None:
        return None
    try:
        inspect.signature(tool).bind(**arguments)
    except TypeError as error:
        return str(error)
    except ValueError:
        return None
    return None


@lru_cache(maxsize=256)
def tool_spec(tool) -> tuple[list, str | None] | None:
    """The parameters ([name, kind, has a default, the default when plain]) and docstring the child's
    function for `tool` shows; None for one without a signature. Read once per tool: every call of
    a grading, and of a class's, hands the world's same tools again."""
    try:
        parameters = inspect.signature(tool).parameters.values()
    except (TypeError, ValueError):  # a builtin without one: the child's function keeps *args, **kwargs
        return None
    plain = (str, int, float, bool, type(None))
    return ([[p.name, int(p.kind), p.default is not p.empty, p.default if isinstance(p.default, plain) else None]
             for p in parameters], tool.__doc__ if isinstance(tool.__doc__, str) else None)


def with_signatures(value, world: LessonWorld):
    """Arguments for the learner's code with each grader tool's signature (and docstring) beside
    its name: the function the child makes for it takes the same parameters as the real tool, so
    code that reads them (inspect.signature(func).parameters, .bind) sees what a tool of its own
    would show, not *args, **kwargs."""
    if isinstance(value, (list, tuple)):
        return [with_signatures(v, world) for v in value]
    if not isinstance(value, dict):
        return value
    found = {k: with_signatures(v, world) for k, v in value.items()}
    tool = world.tools.get(str(value["$tool"])) if "$tool" in value else None
    spec = tool_spec(tool) if tool is not None else None
    if spec:
        found["params"], found["doc"] = spec
    return found


def text_from(learner, func: str, *args) -> str:
    """What the learner's `func` returns for `args`, when it is text; "" when it raises or gives
    something else (for a diagnosis that looks at it: its own checks say what is wrong with it)."""
    try:
        got = learner.call(func, *args)
    except Fail:
        return ""
    return got if isinstance(got, str) else ""


def learner_object(type_name: str, *args, **kwargs) -> dict:
    """An instance of a class of the learner's file, built in their process (the lesson declares
    the classes its checks build in lesson.yaml `types:`)."""
    return {"$new": type_name, "args": list(args), "kwargs": kwargs}


def handed_tools(value) -> set[str]:
    """The names of the grader's tools in arguments for the learner's code (see tool_arg)."""
    if isinstance(value, (list, tuple)):
        return set().union(*map(handed_tools, value))
    if isinstance(value, dict):
        return ({str(value["$tool"])} if "$tool" in value else set()).union(*map(handed_tools, value.values()))
    return set()


def registry_arg(names: list[str]) -> dict:
    """A name -> function dict for the learner's code, each function run by the grader."""
    return {"$dict": [[name, tool_arg(name)] for name in names]}


def unseen(world: LessonWorld, tools: dict[str, str]) -> dict[str, str]:
    """Tools (name -> description) the learner's code has never seen, for the checks that it handles
    the ones it is given: the lesson's own at seed 0 (what its README shows), else each made the
    seed's own, a number in its name and in its description, so that no text or table typed into
    the file holds them."""
    if world.seed == 0:
        return dict(tools)
    rng = random.Random(f"unseen tools {world.seed}")
    made = {}
    for name, text in tools.items():
        number = rng.randint(2, 999)
        made[f"{name}{number}" if name[:1].isupper() else f"{name}_{number}"] = f"{text} (#{number})"
    return made


def completion_arg(response: dict) -> dict:
    """A Chat Completions response body, rebuilt in the child as an openai ChatCompletion."""
    return {"$model": "openai.types.chat:ChatCompletion", "data": response}


def tools_arg(world: LessonWorld, names: list[str], extra: dict[str, str] | None = None) -> list:
    """Tools for the learner's code: their own Tool(name, description, func) objects, whose func
    runs the grader's tool."""
    described = dict(world.tool_descriptions, **(extra or {}))
    return [learner_object("Tool", n, described[n], tool_arg(n)) for n in names]


def steps_arg(steps: list[dict]) -> list:
    """The learner's own AgentStep objects, from their fields."""
    return [learner_object("AgentStep", **step) for step in steps]


@dataclass
class ToolCall:
    name: str
    input: object  # the one positional argument (text protocol) or the keyword arguments (a dict)
    output: object
    failed: bool
    round: int  # how many model calls had been made when the tool ran


@dataclass
class ToolBox:
    """Runs the tools the learner's code calls, in the grader, and records every call. Only those
    the check handed it (`handed`, see tool_arg): the learner's process can name any tool to the
    grader, and one never handed (the grader's own clock of Beijing) must not answer it."""
    world: LessonWorld
    calls: list[ToolCall] = field(default_factory=list)
    rounds: Callable[[], int] = lambda: 0
    handed: set[str] = field(default_factory=set)

    def __call__(self, name: str, /, *args, **kwargs):  # a tool may take a `name` argument of its own
        given = args[0] if len(args) == 1 and not kwargs else (kwargs if not args else [*args, kwargs])
        tool = self.world.tools.get(name) if name in self.handed else None
        try:
            if tool is None:
                raise LookupError(f"no tool named {name!r} was handed to this code")
            output = tool(*args, **kwargs)
        except Exception as error:
            self.calls.append(ToolCall(name, given, str(error), True, self.rounds()))
            raise
        self.calls.append(ToolCall(name, given, output, False, self.rounds()))
        return output


@dataclass
class AgentRun:
    """One run of the learner's loop on a scenario: what it returned and everything it did."""
    scenario: Scenario
    answer: object = None
    exchanges: list = field(default_factory=list)  # text: Exchange(prompt, reply); chat: HttpExchange
    tool_calls: list[ToolCall] = field(default_factory=list)
    outcome: Outcome | None = None
    handed: set[str] = field(default_factory=set)  # the grader's tools the loop was given (tool_arg)
    earlier: list[ToolCall] = field(default_factory=list)  # the tool calls of the grading's agent runs before it
    tools: dict = field(default_factory=dict)  # the grader's tools by name (the world's)

    def model_said(self, text: str) -> bool:
        """Whether the model said `text`, from the results of tools this run really ran."""
        return self._said(text) and self.unrun_tool() is None

    def _said(self, text: str) -> bool:
        return any(text in exchange.texts(0)[1] for exchange in self.exchanges)

    def asked_for(self) -> list[ToolCall]:
        """This run's tool calls that the model asked for, in one of its replies before the tool
        ran: a loop runs what the model asks, not what the script would have it ask next."""
        return [ran for ran in self.tool_calls
                if any(same_call(asked, ran.name, ran.input)
                       for exchange in self.exchanges[:ran.round] for asked in exchange.asked())]

    def unrun_tool(self) -> str | None:
        """A call of the task's script (a tool the loop was given, with the arguments it names where
        they do not hang on earlier results) that no agent run ran when the model asked for it,
        this one or one before it in the grading (a history kept from the last run holds real
        results), as `tool(arguments)`; None when each did, or when the answer is made of no
        result. What the model read as the result then came from elsewhere: typed in, kept from
        the tools another check handed over, or run ahead of the model from the script. The
        model believes what it is told; the grader knows what ran."""
        if "{obs" not in self.scenario.answer:
            return None
        asked_for = self.asked_for()
        for turn in self.scenario.turns:
            for call in turn:
                if call.tool not in self.scenario.tools or call.tool not in self.handed:
                    continue  # a tool the agent lacks (its error is the result), or of its own making
                given = call.args if call.args is not None else call.input
                if "{obs" in str(given):  # it hangs on this run's results: only this run can have run it
                    if not any(ran.name == call.tool for ran in asked_for):
                        return f"{call.tool}(…)"
                    continue
                given = ({k: self.scenario.render(str(v), []) for k, v in given.items()} if isinstance(given, dict)
                         else self.scenario.render(given, []))
                if isinstance(given, dict) and bind_error(self.tools.get(call.tool), given):
                    continue  # arguments the tool does not take: its error, which a loop may give unrun
                if not any(same_call((call.tool, given), ran.name, ran.input) for ran in asked_for + self.earlier):
                    shown = ", ".join(f"{k}={v!r}" for k, v in given.items()) if isinstance(given, dict) else repr(given)
                    return f"{call.tool}({shown})"
        return None

    def returned_last_round(self, decision: dict) -> bool:
        """Whether the run returned what its last round gave (the tool's result, or a part of the
        model's decision asking for it), not a message of the loop's own: a loop that stopped one
        call early with its fallback did not return "before the final answer"."""
        if not isinstance(self.answer, str) or not self.answer.strip():
            return True
        text = self.answer.strip()
        outputs = [str(c.output).strip() for c in self.tool_calls if c.round == len(self.exchanges)]
        return text in outputs or text in str(decision)

    def expect_from_model(self, expected: str, answer: object = None) -> None:
        """An answer (the run's, or one of a conversation's) that holds `expected` must have it from
        the model, which says it only once the loop has fed it the tools' results: not from code
        that runs the tools itself and skips the model."""
        answer = self.answer if answer is None else answer
        if isinstance(answer, str) and expected in answer and not self._said(expected):
            raise Fail("answer_not_from_model", expected=expected, calls=len(self.exchanges))
        if isinstance(answer, str) and expected in answer and (tool := self.unrun_tool()):
            raise Fail("answer_without_tool", expected=expected, tool=tool)


@dataclass
class Learner:
    """The learner's file as the checks see it: call its functions, run its agent on a scenario."""
    submission: Submission
    lesson: Lesson
    world: LessonWorld
    runs: list[AgentRun] = field(default_factory=list)  # every agent run of the current check
    direct_calls: list[tuple[str, ToolBox]] = field(default_factory=list)  # its other calls, each with its tools
    printed: str = ""  # what the learner's code printed during the last call
    left_running: int = 0  # threads the last call started and left running when it returned
    ran_code: int = 0  # the line of the learner's file that ran text as code (eval, exec) in the last call
    changed_args: list[int] = field(default_factory=list)  # the arguments a watched call changed
    live_model: object = None  # validate.py --live: a real endpoint stands in for the mock
    limit: float | None = None  # seconds per call, if not the lesson's
    handed: set[str] = field(default_factory=set)  # the grader's tools this check handed the code so far

    def __post_init__(self):
        # for the tools that ask (day11's barrier)
        self.world.learner_idle, self.world.learner_unanswered = self.submission.idle, self.submission.unanswered

    @property
    def time_limit(self) -> float:
        return self.limit or self.lesson.time_limit

    def syntax_tree(self) -> ast.Module | None:
        """The file's syntax tree, for the checks that read the source (never to change it); None
        if it can't be read. Parsed once for a version of the file, not at every check's call."""
        try:
            info = os.stat(self.submission.path)
        except OSError:
            return None
        return _syntax_tree(self.submission.path, info.st_mtime_ns, info.st_size)

    def constant(self, name: str, kinds: tuple[type, ...]):
        """The value the file's last module-level assignment gives `name`, as written: a literal of
        one of `kinds` (a bool is no number); None when it gives none, or one computed as it runs."""
        tree, found = self.syntax_tree(), None
        for node in tree.body if tree else []:
            targets = (node.targets if isinstance(node, ast.Assign)
                       else [node.target] if isinstance(node, ast.AnnAssign) else [])
            if any(isinstance(t, ast.Name) and t.id == name for t in targets):
                value = getattr(node, "value", None)
                literal = value.value if isinstance(value, ast.Constant) else None
                boolean = isinstance(literal, bool) and bool not in kinds
                found = literal if isinstance(literal, kinds) and not boolean else None
        return found

    def call(self, func: str, *args, tools: ToolBox | None = None, watch: bool = False,
             stand_ins: dict[str, str] | None = None):
        """func(*args) in the learner's process; its value, or Fail with the reason there is none.
        Tools it calls run in `tools` (a ToolBox, to look at the calls afterwards), else in a new one.
        `watch`: note which arguments it changed in `changed_args`. `stand_ins`: the lesson's own
        versions of the learner's functions for this call (runner.Submission.call)."""
        self._check_types(args)
        self.handed |= handed_tools(args)  # an object made in an earlier call keeps the tools it was given
        tools = tools or ToolBox(self.world)
        tools.handed = self.handed
        self.direct_calls.append((func, tools))
        outcome = self.submission.call(func, *with_signatures(args, self.world), timeout=self.time_limit, tools=tools,
                                       watch=watch, stand_ins=stand_ins)
        return self.result(func, outcome)

    def _check_types(self, value) -> None:
        """A lesson's checks build only the classes its lesson.yaml declares: an author's slip
        is said plainly, not blamed on the learner."""
        if isinstance(value, (list, tuple)):
            for item in value:
                self._check_types(item)
        elif isinstance(value, dict):
            if "$new" in value and value["$new"] not in self.lesson.types:
                raise LessonError(f"{self.lesson.checks}: builds a {value['$new']} in the learner's "
                                  f"process, but lesson.yaml `types:` does not declare it")
            for item in value.values():
                self._check_types(item)

    def result(self, func: str, outcome: Outcome):
        """The value the call returned, or Fail with the reason it has none. Failures with one
        root cause (the file does not load, a hang at the same line) share a `cause`, so the
        report says it once."""
        self.printed, self.left_running = outcome.stdout, outcome.left_running
        self.ran_code, self.changed_args = outcome.ran_code, outcome.changed_args
        if outcome.unawaited or isinstance(outcome.value, Unawaited):
            error = outcome.error or {}
            if "running event loop" in str(error.get("message", "")):  # asyncio.run(llm_call(…)) in async code
                raise Fail("unawaited_nested_run", func=func, detail=error.get("traceback", ""))
            raise Fail("unawaited", func=func)
        if outcome.problem:
            error = outcome.error or {}
            problem = Problem.IMPORT_SYNTAX if "line" in error else outcome.problem
            failure = Fail(problem, detail=error.get("traceback", ""), func=func,
                           seconds=outcome.detail, status=outcome.detail, name=outcome.detail,
                           type=error.get("type", ""), message=error.get("message", ""),
                           line=error.get("line", "?"), text=error.get("text", ""))
            failure.unloaded = problem.unloaded
            if problem.unloaded:
                failure.cause = LOAD_FAILURE
            elif problem is Problem.HANG and error.get("traceback"):
                failure.cause = "hang at " + error["traceback"]
            raise failure
        if outcome.error:
            error = outcome.error
            message = error["message"]
            if error["type"] == "NotImplementedError" and message.startswith("TODO"):
                raise Fail("not_implemented", todo=message.split(":")[0])
            key = "exited" if error["type"] == "SystemExit" else "crashed"
            if "StopIteration" in [error["type"], *(c.split(":")[0] for c in error.get("chain", []))]:
                key = "stop_iteration"  # next() on an empty iterator; inside a coroutine, a RuntimeError
            raise Fail(key, detail=error.get("traceback", ""), func=func, type=error["type"],
                       message=message, chain=list(error.get("chain") or []),
                       kinds=[str(kind) for kind in error.get("kinds") or []])
        return outcome.value

    def run_agent(self, func: str, scenario: str, *args, watch: bool = False,
                  stand_ins: dict[str, str] | None = None) -> AgentRun:
        """Run func(question, *args) on a scenario, against a fresh session of the mock model
        speaking the lesson's protocol (or the live model); the run keeps the transcript and
        every tool call (and with `watch`, in run.outcome.changed_args, the arguments it changed).
        `stand_ins`: as for call."""
        self._check_types(args)
        story = self.world.scenarios[scenario]
        session = self.live_model or self.world.session(scenario, self.lesson.llm_call_budget)
        self.handed |= handed_tools(args)
        toolbox = ToolBox(self.world, rounds=lambda: len(session.transcript), handed=self.handed)
        run = AgentRun(story, exchanges=session.transcript, tool_calls=toolbox.calls, handed=handed_tools(args),
                       earlier=list(self.world.ran), tools=self.world.tools)
        self.runs.append(run)
        run.outcome = self.submission.call(func, story.question, *with_signatures(args, self.world),
                                           timeout=self.time_limit, model=session.answer, http=session.http,
                                           tools=toolbox, watch=watch, stand_ins=stand_ins)
        self.world.ran += run.asked_for()
        if run.outcome.problem is Problem.BUDGET:
            raise Fail("budget", func=func, budget=self.lesson.llm_call_budget,
                       limit=self.lesson.step_limit)
        run.answer = self.result(func, run.outcome)
        return run

    def tools_lost(self, todo: str) -> Fail | None:
        """Why a check of `todo` that failed did, when the tools it handed the learner's code never
        ran (a run whose model asked for some, or a function that calls execute_tool) and the
        learner's execute_tool (the function of another TODO) never reads the tools it is given:
        it ran tools of its own (the module's TOOLS). The loop, which may be right, is judged once
        it doesn't; the check's own message would blame the loop."""
        runner = next((t for t in self.lesson.todos if t.function == "execute_tool"), None)
        tree = self.syntax_tree()
        lost = ignored_parameter(tree, runner.function) if runner and runner.id != todo else None
        if not lost:
            return None
        asked = [call for run in self.runs if not run.tool_calls for exchange in run.exchanges
                 for call in exchange.asked() if str(call[0]).isidentifier()]  # not the format's lines echoed
        unran = [func for func, toolbox in self.direct_calls
                 if not toolbox.calls and calls_function(tree, func, runner.function)]
        if not asked and not unran:
            return None
        param, instead = lost
        return Fail("tools_lost_in_execute_tool" if asked else "tools_lost_in_execute_tool_call",
                    func=runner.function, param=param, instead=instead, todo=runner.id,
                    caller=f"{asked[0][0]}({asked[0][1]!r})" if asked else unran[0])


def calls_function(tree: ast.Module | None, caller: str, function: str) -> bool:
    """Whether the file's function (or method) `caller` calls `function` by name, itself or through
    the file's other functions it calls."""
    bodies: dict[str, list[ast.AST]] = {}
    for node in ast.walk(tree) if tree else ():
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            bodies.setdefault(node.name, []).append(node)
    seen, todo = set(), [caller.rsplit(".", 1)[-1]]
    while todo:
        name = todo.pop()
        seen.add(name)
        for body in bodies.get(name, []):
            called = {n.func.id if isinstance(n.func, ast.Name) else n.func.attr for n in ast.walk(body)
                      if isinstance(n, ast.Call) and isinstance(n.func, (ast.Name, ast.Attribute))}
            if function in called:
                return True
            todo += [c for c in called if c in bodies and c not in seen]
    return False


def ignored_parameter(tree: ast.Module | None, function: str) -> tuple[str, str | None] | None:
    """(its first parameter, the module's own name it reads instead) when the module-level
    `function` never reads its first parameter, or replaces it (`tools = TOOLS`), and reads a name
    of the module's (its TOOLS, its tool functions); else None."""
    found = next((node for node in (tree.body if tree else ())
                  if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) and node.name == function), None)
    params = (found.args.posonlyargs + found.args.args) if found else []
    if not params:
        return None
    name = params[0].arg
    replaced = any(isinstance(node, ast.Assign) and any(isinstance(t, ast.Name) and t.id == name for t in node.targets)
                   and not any(isinstance(n, ast.Name) and n.id == name for n in ast.walk(node.value))
                   for node in ast.walk(found))
    read = any(isinstance(node, ast.Name) and node.id == name and isinstance(node.ctx, ast.Load)
               for node in ast.walk(found))
    if read and not replaced:
        return None
    own = module_names(tree)
    read_names = sorted((node.lineno, node.col_offset, node.id) for statement in found.body
                        for node in ast.walk(statement)
                        if isinstance(node, ast.Name) and node.id in own and node.id != function)
    ranked = [n for kind in ("variable", "function", "import") for *_, n in read_names
              if own[n] == kind and n not in sys.stdlib_module_names]
    instead = ranked[0] if ranked else None
    return (name, instead) if instead else None  # reads nothing of the module's: a stub, not tools of its own


def module_names(tree: ast.Module) -> dict[str, str]:
    """The names a module's own statements bind, each with what binds it: "variable", "function",
    "class" or "import"."""
    names = {}
    for node in tree.body:
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            names[node.name] = "function"
        elif isinstance(node, ast.ClassDef):
            names[node.name] = "class"
        elif isinstance(node, (ast.Import, ast.ImportFrom)):
            names.update(((alias.asname or alias.name).split(".")[0], "import") for alias in node.names)
        elif isinstance(node, (ast.Assign, ast.AnnAssign)):
            targets = node.targets if isinstance(node, ast.Assign) else [node.target]
            names.update((t.id, "variable") for t in targets if isinstance(t, ast.Name))
    return names


@lru_cache(maxsize=4)
def _syntax_tree(path, modified: int, size: int) -> ast.Module | None:
    """The syntax tree of the file at `path` as it was when `modified`, `size`: a grading asks for
    it a score of times (day12's backoff reads the file's constants at every wait)."""
    try:
        return ast.parse(read_source(path))
    except (OSError, SyntaxError, ValueError, RecursionError, MemoryError):
        return None


# What an error for a tool the registry lacks says, in the words learners use ("unknown tool",
# "no such tool", "there is no 'x' tool", "there isn't any tool named x", "I don't have a tool called
# x", "not a registered tool", "not recognized", "unsupported", "is missing", "tool x is not
# defined", "unregistered", "undefined", "the registry has no x", "not found", "wasn't found", "not
# supported", "not a valid action", "does not exist", "use one of …", "available tools: …", 未知工具,
# 未找到, 未注册, 不在工具列表里, 不是可用的工具 …);
# "calculator failed: 'NoneType' object is not callable" (the lookup's None called) or "failed:
# 'calculator'" (a KeyError's) says none.
UNKNOWN_TOOL = re.compile(
    r"unknown|unrecogni[sz]ed|n[o']?t (?:a |an )?recogni[sz]ed?|n[o']?t ?(?:be )?found|n[o']?t known|no such|"
    r"not on the list|n[o']?t (?:been )?listed|(?:does|do) ?n[o']?t match|\bno match|n[o']?t (?:yet )?implemented|"
    r"(?:wrong|bad) (?:tool|action|function)|valid (?:tools|actions|functions|names|options)|"
    r"(?:cannot|can'?t) use\b|"
    r"unsupported|non-?existent|never (?:been )?(?:registered|defined)|"
    r"\bno\s+(?:[\w'\"“”‘’`-]+\s+)?(?:tool|function|action)s?\b|there(?: is|'s) no|there\s*(?:is|are)\s*n[o']?t\b|"
    r"(?:is|are) missing\b|missing from\b|\b(?:tool|function|action)\b[^.\n]{0,40}\bnot defined|"
    r"no implementation|unimplemented|hallucinat|n[o']?t (?:been )?(?:provided|available|registered|enabled|configured)\b|"
    r"\babsent\b|\bis invalid\b|correspond(?:s)? to (?:no|any)\b|n[o']?t one (?:i|we|you) have|"
    r"(?:cannot|can'?t) (?:be )?(?:run|call|called)\b|"
    r"n[o']?t (?:a|an)\s+(?:[\w-]+\s+){0,2}?(?:tool|action|function)|"
    r"n[o']?t (?:have|know|offer|provide|support(?:ed)?|in|among|part of|registered|contain)\b|"
    r"(?:cannot|can'?t|could ?n[o']?t|unable to|failed to) (?:find|locate)|does ?n[o']?t appear|one of\b|do(?:es)? ?n[o']?t exist|not exist|available|"
    r"invalid (?:tool|action|function)|(?:tools|actions|functions)(?: are)?\s*:|choose from|unregistered|"
    r"\bundefined\b|\bhas no (?!attribute)|nothing (?:is )?(?:registered|by that name|called|named)|"
    r"\bno\s+(?:[\w-]+\s+)?(?:entry|handler)\b|unexpected (?:tool|action|function)|can only (?:run|use|call)\b|"
    r"未知|不存在|没有|找不到|未找到|查不到|无法识别|不认识|无此|不支持|未注册|未定义|无效|不可用|可以用的|只能用|"
    r"(?:无法|未能|没能|不能)找到|没找到|没这个|查无|不认得|写错|"
    r"不是[^，。,.\n]{0,6}工具|可用的?工具|"
    r"不在[^，。,.\n]{0,10}(?:列表|工具|清单|注册)", re.IGNORECASE)


CRASH_WORDS = re.compile(r"\b\w+(?:Error|Exception)\b|\bfailed\b|not callable|Traceback|失败|出错")


def expect_unknown_tool_said(error, name: str, got, known: Iterable[str] = ()) -> None:
    """An unknown tool's error says there is no such tool, so the model picks another: not a
    failure of the tool (the validator's "unknown_tool_not_said"). Said in words (UNKNOWN_TOOL),
    or by naming the tools there are (`known`, two of them at least), with no word of a crash."""
    others = [tool for tool in known if tool != name]
    listed = isinstance(error, str) and len(others) > 0 and not CRASH_WORDS.search(error) and sum(
        bool(re.search(rf"(?<![\w-]){re.escape(tool)}(?![\w-])", error)) for tool in others) >= min(2, len(others))
    # "x failed: 'x'" (a KeyError's text) is a crash; "call to 'x' failed: no such tool" says why,
    # in words of its own (not the tool's name, "api_tools", nor an exception's: "TypeError: …")
    ran = isinstance(error, str) and re.search(rf"{re.escape(name)}\W{{0,3}}(?:failed|raised|crashed)(.*)", error)
    why = ran and ran.group(1).replace(name, "")
    ran = ran and (CRASH_WORDS.search(why) or not UNKNOWN_TOOL.search(why))
    expect(isinstance(error, str) and (UNKNOWN_TOOL.search(error) or listed) and not ran, "unknown_tool_not_said",
           name=name, got=shown(got))


def expect_final_returned(run) -> None:
    """A run whose model gave its Final Answer, and was asked no more, returned that answer (or part
    of the reply, which other checks judge): not a text of the loop's own, the step limit's
    message, which a `break` out of the loop reaches (text-protocol lessons)."""
    final = read_final(run.exchanges[-1].reply) if run.exchanges else None
    answer = run.answer.strip() if isinstance(run.answer, str) else ""
    own = bool(final and answer) and answer not in run.exchanges[-1].reply and final.strip() not in answer
    expect(not own, "final_answer_not_returned", round=len(run.exchanges), answer=final and final.strip(),
           got=repr(answer))


def labelled_twice(run: AgentRun):
    """The first tool call whose result a later prompt of the text protocol shows under the label
    twice ("Observation: Observation: 13"), with that step as read: (call, step), or None."""
    for call in run.tool_calls:
        twice = next((s for e in run.exchanges[call.round:] for s in read_steps(e.prompt)
                      if s.is_call(call.name, str(call.input)) and s.observation and OBSERVATION.match(s.observation)
                      and str(call.output).strip() in s.observation), None)
        if twice:
            return call, twice
    return None


def expect_observation_labelled(tool_calls, exchanges) -> None:
    """Each tool's result that reached a later request of a text model reached it after an
    "Observation:" label: the model reads what follows that label as the tool's answer, and
    without it takes the text for something else and asks again (day08, day12)."""
    prompts = ["\n\n".join(chat_text(m) for m in request_messages(e)) for e in exchanges]
    for call in (c for c in tool_calls if not c.failed and c.output is not None):
        output = str(call.output).strip()
        later = prompts[call.round:]
        if output and any(output in p for p in later) and not any(labelled(p, output[:40]) for p in later):
            raise Fail("observation_unlabelled", tool=call.name, output=output)


OBSERVATION_LABEL = re.compile(r"Observation\s*(?:\*+\s*)?[:：]", re.IGNORECASE)


def labelled(prompt: str, output: str) -> bool:
    """Whether `output` follows an Observation label on the label's line. Each line is read once,
    from its first label (a search from every label to its line's end was quadratic in a line of
    many labels)."""
    said = re.compile(re.escape(output), re.IGNORECASE)
    line_end = -1
    for label in OBSERVATION_LABEL.finditer(prompt):
        if label.end() > line_end:  # the first label of its line: what any later one reads, it reads
            line_end = prompt.find("\n", label.end())
            line_end = len(prompt) if line_end < 0 else line_end
            if said.search(prompt, label.end(), line_end + len(output)):
                return True
    return False


def expect_own_fallback(run: AgentRun, limit: int) -> None:
    """A run stopped by its step limit (`limit` model calls, every one without a final answer)
    returns a message of the agent's own that says so (is_own_message): not the question handed
    back, the model's words or a tool's result. A run that stopped sooner never met the limit: its
    message is not the one this asks for, whatever it says; nor did one that asked the model again
    without running what it asked for."""
    expect(len(run.exchanges) >= limit, "fallback_before_limit", limit=limit, got=len(run.exchanges))
    expect_asked_tools_ran(run)
    line = labelled_line(run.answer, run)
    expect(line is None, "fallback_model_words", got=run.answer, line=line)
    expect(is_own_message(run.answer, run), "fallback_not_own",
           got=repr(run.answer) if isinstance(run.answer, str) else shown(run.answer))


def expect_asked_tools_ran(run: AgentRun) -> None:
    """Each model call but the last that asked for one of the tools the loop was given was followed
    by a run of a tool before the next call: a loop that asks again without running anything
    counts its steps but takes none ("asked_again_without_tool")."""
    for number, exchange in enumerate(run.exchanges[:-1], start=1):
        if getattr(exchange, "layout", None) == "broken":  # a reply the loop can't read: nothing it asked for
            continue
        asked = [call for call in exchange.asked() if call[0] in run.handed]
        if asked and not any(call.round == number for call in run.tool_calls):
            raise Fail("asked_again_without_tool", call=f"{asked[0][0]}({asked[0][1]!r})", round=number)


def expect_requests_run(run: AgentRun) -> None:
    """Each tool call the model asked for (text protocol) ran, with the input it wrote, and its real
    result is in the prompts after it (none when the run ended there, out of steps)."""
    for index, exchange in enumerate(run.exchanges):
        if (request := read_request(exchange.reply)) is None:
            continue
        tool, tool_input = request
        calls = [c for c in run.tool_calls if c.name == tool and str(c.input).strip() == tool_input]
        expect(calls, "tool_not_run", tool=tool, input=tool_input)
        later = [e.prompt for e in run.exchanges[index + 1:]]
        if later:
            expect(any(str(calls[0].output) in p for p in later), "observation_not_real", output=calls[0].output)


def is_own_message(answer, run: AgentRun) -> bool:
    """Whether `answer` is a message of the agent's own: a str, not empty, not the question handed
    back, nor the model's words in one of its replies (or their first lines: a reply cut where a
    made-up Observation began, or what follows a label on one of its lines), nor the result of one
    of the run's tools (as it came, or as the JSON text of a tool message)."""
    if labelled_line(answer, run) is not None:
        return False
    answer = answer.strip() if isinstance(answer, str) else None
    said = [words.strip() for words in map(model_words, run.exchanges) if words and words.strip()]
    given = [run.scenario.question.strip()] + [str(call.output).strip() for call in run.tool_calls] + said
    try:
        as_json = parse_json(answer) if answer else None
    except ValueError:
        as_json = None
    tools_result = as_json is not None and any(as_json == call.output for call in run.tool_calls)
    cut_reply = bool(answer) and any(words.startswith(answer + "\n") for words in said)
    return bool(answer) and answer not in given and not tools_result and not cut_reply


# a line of the model's words: its label, then what follows it (group 1). Not Final Answer: what
# follows it is the answer the agent is to return.
REPLY_LINE = re.compile(r"^[\s>*#-]*(?:Thought|Action|Action[ _]?Input|Observation)\s*(?:\*+\s*)?[:：]\s*(?:\*+\s*)?(.*)$",
                        re.IGNORECASE)


def labelled_line(answer, run: AgentRun) -> str | None:
    """The line of one of the model's replies whose text after its label (Thought, Action, Action
    Input, Observation) is `answer`: the model's words handed back without their label ("42 * 42",
    the last Action Input); None when there is none."""
    answer = answer.strip() if isinstance(answer, str) else ""
    for words in map(model_words, run.exchanges):
        for line in (words or "").splitlines() if answer else ():
            label = REPLY_LINE.match(line)
            if label and label.group(1).strip() == answer:
                return line.strip()
    return None


def model_words(exchange) -> str | None:
    """What the model wrote in one exchange: a chat reply's content, a text reply; None for a decision."""
    response = getattr(exchange, "response", None)
    if isinstance(response, dict):
        try:
            content = response["choices"][0]["message"].get("content")
        except (KeyError, IndexError, TypeError, AttributeError):
            return None
        return content if isinstance(content, str) else None
    reply = getattr(exchange, "reply", None)
    return reply if isinstance(reply, str) else None


def argument_errors(world, name, args) -> list[str]:
    """What Python says of `args` for the tool `name`: the call's own TypeError ("unexpected keyword
    argument 'x'") or, for code that checks them first with inspect.signature(func).bind(**args),
    the signature's ("missing a required argument: 'a'"). Either tells the model what was wrong."""
    bound = bind_error(world.tools.get(name), args)
    return ["unexpected keyword argument", *([bound] if bound else [])]


def action_naming(tool: str) -> re.Pattern:
    """An Action label naming `tool`, written any way the mock reads one (bold, a full-width
    colon): the model's request for it, as a later request sends it back."""
    return re.compile(rf"Action\s*(?:\*+\s*)?[:：]\s*(?:\*+\s*)?{re.escape(tool)}", re.IGNORECASE)


def names_every_argument(result, args) -> bool:
    """An error text of the learner's own that names each argument the tool does not take, as code
    that checks them against the tool's parameters before calling it writes: it tells the model
    what was wrong as well as Python's "unexpected keyword argument 'x'" does."""
    return isinstance(result, str) and all(re.search(rf"(?<!\w){re.escape(key)}(?!\w)", result) for key in args)


def expect_bare_results(run, call_text: Callable[[ToolCall], str]) -> None:
    """Each tool message holds the result as execute_tool returns it, nothing around it: the model
    reads the message as the value itself ("Result: 30" becomes add(a='Result: 30', …)). A lesson
    may word `result_wrapped` its own way; `call_text` shows a call as the lesson writes calls."""
    for call in run.tool_calls:
        if call.failed or call.round >= len(run.exchanges):
            continue
        result = str(call.output)
        sent = [content_text(m) for m in run.exchanges[call.round].messages if m.get("role") == "tool"]
        wrapped = [text for text in sent if wraps_result(text, result)]
        if wrapped and result not in [text.strip() for text in sent]:
            failure = Fail("result_wrapped", call=call_text(call), got=repr(wrapped[-1]), result=repr(result))
            failure.cause = "the tool message wraps the result"
            raise failure


def wraps_result(text: str, result: str) -> bool:
    """Whether a tool message's `text` holds the number `result` with words around it ("Result: 30",
    "Observation: 30"): the model takes a tool message as the value itself."""
    return text.strip() != result and re.search(rf"(?<![\d.]){re.escape(result)}(?![\d.])", text) is not None


def expect_turns_sent_back(run: AgentRun) -> None:
    """Each assistant turn that asked for tools goes back, in the request after it, as the model
    wrote it: its content too (a null one as "" or left out: the forms servers take). A loop that
    blanks or rewrites the model's words leaves it a history it never wrote (the validator's
    "turn_altered")."""
    for number, (exchange, after) in enumerate(zip(run.exchanges, run.exchanges[1:]), start=2):
        reply = exchange.response["choices"][0]["message"] if exchange.status == 200 else {}
        ids = {call["id"] for call in reply.get("tool_calls") or []}
        messages = after.request.get("messages")
        for message in messages if ids and isinstance(messages, list) else []:
            calls = message.get("tool_calls") if isinstance(message, dict) else None
            if message.get("role") == "assistant" and isinstance(calls, list) and ids == {
                    call.get("id") for call in calls if isinstance(call, dict)}:
                expect((message.get("content") or "") == (reply.get("content") or ""), "turn_altered",
                       request=number, expected=repr(reply.get("content") or ""), got=repr(message.get("content")))


def expect_accepted(run: AgentRun, **described: Callable[[object], str]) -> None:
    """Every request of the run was accepted: the first the API refused with HTTP 400 fails the
    check in the API's own words, which the learner's client raised (the validator's
    "api_rejected"). `described`: more parameters of the lesson's own message, each made from
    the refused request's messages (day09 names their roles)."""
    for number, exchange in enumerate(run.exchanges, start=1):
        if exchange.status == 400:
            messages = exchange.request.get("messages")
            raise Fail("api_rejected", request=number, message=exchange.response["error"]["message"],
                       **{name: describe(messages) for name, describe in described.items()})


# Checks of the lessons whose model reads a messages list and answers with decisions (day01, day02).
# `explain(run, max_steps=…)` is the lesson's own: it fails with the first mistake the transcript
# shows, so a learner is told why, not only that.

def content_text(message) -> str:
    """A message's content as text: a str as is, anything else (a decision dict sent as content,
    none at all) as shown() writes it."""
    content = message.get("content") if isinstance(message, dict) else None
    return content if isinstance(content, str) else shown(content)


def tool_call_text(decision: dict) -> str:
    """A tool decision as the call it asks for: multiply(a=5, b=6)."""
    args = decision.get("args") or {}
    return f"{decision.get('name')}({', '.join(f'{k}={v!r}' for k, v in args.items())})"


def expect_question_asked(run: AgentRun) -> None:
    """The run called the model (the lesson's "no_llm_call"), its first messages holding the
    question as the user's (its "question_missing")."""
    expect(run.exchanges, "no_llm_call")
    question, first = run.scenario.question, run.exchanges[0].messages
    expect(any(m.get("role") == "user" and question in content_text(m) for m in first), "question_missing",
           question=question, got=shown(first))


def expect_answer(run: AgentRun, expected: str, explain: Callable, key: str = "answer_missing") -> None:
    """The run's answer holds `expected`, which the model said; if not, `explain(run)` says why
    when the transcript shows it, else the lesson's `key`."""
    if isinstance(run.answer, str) and expected in run.answer and run.model_said(expected):
        return
    explain(run)
    run.expect_from_model(expected)
    expect(False, key, expected=expected, got=shown(run.answer))


def expect_system_prompt_used(learner: Learner, content) -> None:
    """A system message's `content` is the file's SYSTEM_PROMPT, when the file sets it to a string
    as written (one built as the file runs is taken as it is): not "SYSTEM_PROMPT", the name in
    quotes, which leaves the model without its instructions. Its words are what count: a prompt
    sent stripped or dedented (textwrap.dedent(SYSTEM_PROMPT).strip()) is the same prompt."""
    prompt = learner.constant("SYSTEM_PROMPT", (str,))
    same_words = isinstance(content, str) and prompt is not None and content.split() == prompt.split()
    expect(prompt is None or content == prompt or same_words,  # stripped or dedented, it is the same prompt
           "system_prompt_not_used", got=quoted(content), expected=quoted(prompt))


def expect_system_prompt_sent(learner: Learner, run: AgentRun) -> None:
    """The run's first request holds a system message, the file's SYSTEM_PROMPT when it sets one as
    written (among others of the learner's own, if any): a loop that starts its messages from the
    question alone (not build_messages) leaves the model without its instructions, though a
    scripted mock answers all the same. A loop that sends what the file's build_messages returns
    did its part: a prompt missing there is build_messages' mistake, which its own check names."""
    first = messages_sent(run.exchanges[0]) if run.exchanges else []
    if not first:
        return  # no request, or a live model's text: what the run's other checks say
    try:
        built = learner.call("build_messages", run.scenario.question)
    except Fail:
        built = None
    if isinstance(built, list) and built and any(first[at:at + len(built)] == built for at in range(len(first))):
        return
    system = [m for m in first if isinstance(m, dict) and m.get("role") == "system"]
    expect(system, "system_prompt_not_sent", got=shown(first[0]))
    prompt = learner.constant("SYSTEM_PROMPT", (str,))
    if not any(chat_text(m) == prompt for m in system):
        expect_system_prompt_used(learner, chat_text(system[0]))


def expect_asked_once(run: AgentRun) -> None:
    """No request is the one before it again with no tool run between them: a loop that calls the
    model twice in one round (once to look at the answer's type, once more to use it) gets two
    answers to one question. (The same request after a tool ran: the messages were built anew.)"""
    def sent(exchange):  # its messages, or a text protocol's prompt
        return messages_sent(exchange) or getattr(exchange, "prompt", None)

    def answered(exchange):  # asked again after an answer: a loop that did not stop, which its checks say
        decision = getattr(exchange, "decision", None)
        return read_final(model_words(exchange) or "") is not None or (
            isinstance(decision, dict) and decision.get("type") == "final")
    for number, (before, after) in enumerate(zip(run.exchanges, run.exchanges[1:]), start=2):
        again = sent(before) and sent(before) == sent(after) and not answered(before)
        expect(not again or any(call.round == number - 1 for call in run.tool_calls), "model_asked_twice",
               request=number, previous=number - 1)


def expect_history_kept(run: AgentRun) -> None:
    """Each request of the run carries more messages than the one before it (the model's turn and
    its results come after them): a loop that builds its messages anew each round, or sends only
    the newest, shows the model nothing of its own earlier turns ("history_restarted")."""
    expect_asked_once(run)
    for number, (before, after) in enumerate(zip(run.exchanges, run.exchanges[1:]), start=2):
        sent = [len(messages_sent(exchange)) for exchange in (before, after)]
        expect(sent[1] > sent[0], "history_restarted", request=number, previous=number - 1, before=sent[0],
               after=sent[1])


def expect_fresh_start(world: LessonWorld, run: AgentRun) -> None:
    """A run's first request holds no earlier run's conversation: another task's question, with the
    model's turns or results after it, means one messages list outlives each call of the loop (a
    default argument, a module-level list): the lessons' "history_leaked"."""
    first = messages_sent(run.exchanges[0]) if run.exchanges else []
    questions = {story.question for story in world.scenarios.values()}
    asked = [m for m in first if isinstance(m, dict) and m.get("role") == "user"
             and message_text(m.get("content")).strip() in questions]
    earlier = asked[0] if len(asked) > 1 or any(message_text(m.get("content")).strip() != run.scenario.question
                                                for m in asked) else None
    stale = next((m for m in first if isinstance(m, dict) and m.get("role") in ("assistant", "tool")), None)
    expect(earlier is None or stale is None, "history_leaked", found=shown(earlier))


def messages_sent(exchange) -> list:
    """The messages of one model call: a decision exchange's own, or its Chat Completions request's."""
    request = getattr(exchange, "request", None)
    messages = getattr(exchange, "messages", None) or (request.get("messages") if isinstance(request, dict) else None)
    return messages if isinstance(messages, list) else []  # a live model's exchange: text (validate.py --live)


def expect_step_limit(run: AgentRun, max_steps: int, explain: Callable) -> None:
    """A run on a model that never finishes called it exactly `max_steps` times (the lesson's
    "wrong_step_count"; a run that stopped sooner is explained first), each time once the tool it
    asked for before had run, then returned a message (its "no_fallback")."""
    if len(run.exchanges) < max_steps:
        explain(run, max_steps=max_steps)
    expect(len(run.exchanges) == max_steps, "wrong_step_count", max_steps=max_steps, calls=len(run.exchanges))
    expect_asked_tools_ran(run)
    expect(isinstance(run.answer, str) and run.answer.strip(), "no_fallback", got=quoted(run.answer))


# Readers of a Chat Completions request, for the lessons whose learners send their own (day08, day09).

def request_messages(exchange) -> list[dict]:
    """The request's messages that are dicts (none if it sent no list)."""
    return [m for m in messages_sent(exchange) if isinstance(m, dict)]


def chat_text(message: dict) -> str:
    """A message's content as text: its parts' text joined, none as "" (as the mock reads it)."""
    return message_text(message.get("content"))
