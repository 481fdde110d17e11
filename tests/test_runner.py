"""validator.grading.runner.Submission: a learner's file run in a child process, called function by function.

Each test writes a small "learner" file into tmp_path and calls its functions through Submission,
the way the lesson checks do.
"""
import os
import select
import subprocess
import textwrap
import threading
import time
from pathlib import Path

import processes
import pytest

from validator.grading import child_process, runner
from validator.child.wire import LineReader, Record, Unawaited
from validator.grading.runner import Submission
from validator.isolation import forkserver

LEARNER = '''
import asyncio
import os
import subprocess
import sys
import time
from dataclasses import dataclass
from typing import Callable


@dataclass
class Tool:
    name: str
    description: str
    func: Callable[[str], str]


@dataclass
class ToolResult:
    success: bool
    output: str


async def llm_call(prompt: str) -> str:
    return "the file's own model"


def echo(value):
    return value


def values():
    return ("text", 3, -1.5, True, None, [1, [2]], {"k": (4, None), 5: "int key"})


def result():
    return ToolResult(True, "13")


def pid():
    return os.getpid()


async def ask_forever():
    while True:
        await llm_call("again")


async def ask_forever_swallowing_everything():
    while True:
        try:
            await llm_call("again")
        except BaseException:
            pass


def echo_surrogate():
    return "half of a pair: \\ud800"


async def later(x):
    await asyncio.sleep(0)
    return x * 2


def helper(n):
    return 10 // n


def crash():
    return helper(0)


def spin():
    while True:
        pass


def block():
    time.sleep(10 ** 6)  # no Python code runs: it cannot be stopped in place


async def sleep_forever():
    await asyncio.sleep(10 ** 6)


def leave(code):
    sys.exit(code)


def hard_exit():
    os._exit(4)


def chatter():
    while True:
        print("debug: still looping")


def shout():
    print("hello from the learner")
    return "done"


def hog():
    return len(bytearray(4 * 1024 ** 3))


def spawn():
    return subprocess.Popen(["sleep", "1000"]).pid


async def ask():
    return await llm_call("hi")


def forget_await():
    llm_call("hi")
    return "no await"


def return_coroutine():
    return llm_call("hi")


async def ask_twice():
    return [await llm_call("one"), await llm_call("two")]


async def ask_with_a_list():
    return await llm_call(["not", "a", "str"])


def describe(tools):
    return [(type(t).__name__, t.name, t.description) for t in tools]


def use_tool(tools, text):
    return tools[0].func(text)


def use_tool_safely(tools, text):
    try:
        return tools[0].func(text)
    except Exception as error:
        return f"{type(error).__name__}: {error}"
'''


def write(tmp_path: Path, source: str, name: str = "learner.py") -> Path:
    path = tmp_path / name
    path.write_text(textwrap.dedent(source), encoding="utf-8")
    return path


@pytest.fixture
def learner(tmp_path):
    submission = Submission(write(tmp_path, LEARNER))
    yield submission
    submission.close()


@pytest.fixture
def load(tmp_path):
    """Submission on a file with this source; every one made is closed after the test."""
    made = []

    def make(source: str, **kwargs) -> Submission:
        made.append(Submission(write(tmp_path, source, f"file{len(made)}.py"), **kwargs))
        return made[-1]

    yield make
    for submission in made:
        submission.close()


def call(submission, func, *args, timeout=5.0, **kwargs):
    return submission.call(func, *args, timeout=timeout, **kwargs)


# ---------------------------------------------------------------- values cross back

@pytest.mark.parametrize("value", ["中文 text", "", 42, 2.5, True, None, [1, "a", [None]],
                                   {"a": 1, "b": [2]}])
def test_a_value_round_trips(learner, value):
    outcome = call(learner, "echo", value)
    assert outcome.problem is None and outcome.error is None
    assert outcome.value == value
    assert type(outcome.value) is type(value)


def test_a_lone_surrogate_crosses_as_an_escape_and_brackets_in_text_are_no_nesting(learner):
    """What the child sends is made printable (a lone surrogate can't be written as UTF-8) without
    changing anything else; text full of brackets is no deep nesting (test_grader_bounds: the real
    thing is refused)."""
    assert call(learner, "echo", ["ok \ud800", {"k": "\udcff"}]).value == ["ok \\ud800", {"k": "\\udcff"}]
    assert call(learner, "echo", "[{" * 300).value == "[{" * 300


def test_a_surrogate_sent_as_raw_bytes_is_made_printable_too():
    """The grader's reader skips printable() for a line that is ASCII with no surrogate escape
    (dump() writes every line so); json.loads reads any other bytes with 'surrogatepass', so a
    child that writes a surrogate's UTF-8 bytes itself gets them escaped all the same."""
    reader = LineReader(printable=True)
    assert reader.feed(b'{"a": "\xed\xa0\x80"}\n{"b": "\\udcff \\ud83d\\ude00"}\n{"c": "ok"}\n') == [
        {"a": "\\ud800"}, {"b": "\\udcff \U0001f600"}, {"c": "ok"}]
    assert LineReader().feed(b'{"a": "\\ud800"}\n') == [{"a": "\ud800"}]  # the child's side: as sent


def test_a_stand_in_replaces_a_learner_function_for_one_call_and_reaches_their_own(load):
    """A check grades one TODO's code around another TODO's mistake (day12: a build_request that
    types its model in): the lesson's stand-in takes the function's place for that call only, the
    learner's own reachable in it as `learners`; a function the file lacks gets none."""
    submission = load("def inner(x):\n    return x + 1\n\ndef outer(x):\n    return inner(x) * 10\n")
    wrapped = {"inner": "def inner(x):\n    return learners(x) + 100\n", "absent": "def absent():\n    return 0\n"}
    assert call(submission, "outer", 1).value == 20
    assert call(submission, "outer", 1, stand_ins=wrapped).value == 1020
    assert call(submission, "outer", 1).value == 20  # the learner's own again
    crashing = call(submission, "outer", 1, stand_ins={"inner": "def inner(x):\n    raise KeyError(x)\n"})
    assert crashing.error["type"] == "KeyError" and call(submission, "outer", 2).value == 30


def test_tuples_and_dict_keys_keep_their_kind(learner):
    outcome = call(learner, "values")
    assert outcome.value == ("text", 3, -1.5, True, None, [1, [2]], {"k": (4, None), 5: "int key"})
    assert isinstance(outcome.value[6]["k"], tuple)


def test_a_dataclass_becomes_a_record(learner):
    record = call(learner, "result").value
    assert isinstance(record, Record)
    assert record.type == "ToolResult"
    assert record.fields == {"success": True, "output": "13"}
    assert (record.success, record.output) == (True, "13")
    with pytest.raises(AttributeError):
        record.missing_field


def test_an_async_function_is_awaited(learner):
    assert call(learner, "later", 21).value == 42


def test_printing_is_captured(learner):
    outcome = call(learner, "shout")
    assert outcome.value == "done"
    assert outcome.stdout == "hello from the learner\n"


# ---------------------------------------------------------------- errors and problems

def test_an_exception_keeps_only_the_learners_frames(learner, tmp_path):
    outcome = call(learner, "crash")
    assert outcome.problem is None
    assert outcome.error["type"] == "ZeroDivisionError"
    assert "by zero" in outcome.error["message"]
    trace = outcome.error["traceback"]
    assert str(tmp_path / "learner.py") in trace
    assert "in crash" in trace and "in helper" in trace
    assert "sandbox.py" not in trace and "runner.py" not in trace


def test_the_same_child_serves_the_next_call_after_an_exception(learner):
    before = call(learner, "pid").value
    call(learner, "crash")
    assert call(learner, "pid").value == before


def test_an_endless_loop_is_a_hang_stopped_in_place(learner):
    before = call(learner, "pid").value
    outcome = call(learner, "spin", timeout=0.5)
    assert outcome.problem == "hang"
    assert outcome.detail == "0.5"
    assert "in spin" in outcome.error["traceback"]  # where it was stuck, in the learner's file
    after = call(learner, "pid")
    assert after.problem is None and after.value == before  # stopped, not killed: no restart


def test_a_blocked_call_is_a_hang_and_the_next_call_gets_a_fresh_child(learner):
    before = call(learner, "pid").value
    outcome = call(learner, "block", timeout=0.5)
    assert outcome.problem == "hang" and "in block" in outcome.error["traceback"]
    after = call(learner, "pid")
    assert after.problem is None and after.value != before


def test_a_function_that_hung_gets_the_shorter_limit_next_time(learner, monkeypatch):
    monkeypatch.setattr(runner, "HUNG_AGAIN_LIMIT", 0.3)
    assert call(learner, "spin", timeout=0.6).detail == "0.6"
    assert call(learner, "spin", timeout=0.6).detail == "0.3"
    assert call(learner, "later", 1, timeout=0.6).value == 2  # other functions keep their limit


def test_awaiting_forever_is_a_hang(learner):
    outcome = call(learner, "sleep_forever", timeout=0.5)
    assert outcome.problem == "hang"
    assert "in sleep_forever" in outcome.error["traceback"]  # the suspended coroutine's line


def test_a_module_level_loop_is_an_import_hang(load):
    submission = load("while True:\n    pass\n\ndef f():\n    return 1\n", import_timeout=1)
    outcome = call(submission, "f")
    assert (outcome.problem, outcome.detail) == ("import_hang", "1")
    assert "line 1, in <module>" in outcome.error["traceback"]
    assert call(submission, "f") is outcome  # a file that cannot load is not loaded again


def test_a_module_level_sleep_is_an_import_hang(load):
    outcome = call(load("import time\ntime.sleep(10 ** 6)\n\ndef f():\n    return 1\n", import_timeout=1), "f")
    assert (outcome.problem, outcome.detail) == ("import_hang", "1")
    assert "line 2, in <module>" in outcome.error["traceback"]


def waiting_for_a_cpu(monkeypatch, share):
    """As if the child waited for a CPU `share` of the wall time since now (a busy machine)."""
    start = time.monotonic()
    monkeypatch.setattr(runner.busy, "waited", lambda pid: (time.monotonic() - start) * share)


def test_a_file_loads_on_a_busy_machine_in_its_own_time(load, monkeypatch):
    """Its wait for a CPU is not the file's: 1.5 s of wall time, 0.15 s of its own, is in time."""
    waiting_for_a_cpu(monkeypatch, 0.9)
    submission = load("import time\ntime.sleep(1.5)\n\ndef f():\n    return 1\n", import_timeout=1)
    assert call(submission, "f").value == 1


def test_a_message_sent_in_time_is_read_though_the_grader_looks_late(load):
    """Past its deadline, the grader still reads what is already in the socket before it calls the
    child stuck: it may have been sent in time while the grader waited for a CPU."""
    submission = load("def f():\n    return 1\n")
    assert call(submission, "f").value == 1
    submission._send({"op": "call", "call": 99, "func": "f", "args": []})
    time.sleep(0.5)  # the child answers meanwhile; the grader looks only now, past a deadline
    message = submission._receive(time.monotonic() - 1)
    assert isinstance(message, dict) and message.get("op") == "done" and message.get("value") == 1


def test_however_long_it_waits_for_a_cpu_a_load_ends(load, monkeypatch):
    waiting_for_a_cpu(monkeypatch, 1.0)  # no time of its own passes at all
    outcome = call(load("import time\ntime.sleep(10 ** 6)\n\ndef f():\n    return 1\n", import_timeout=0.2), "f")
    assert (outcome.problem, outcome.detail) == ("import_hang", "0.2")  # stopped at the backstop


def test_sys_exit_in_a_function_is_an_error_not_an_exit(learner):
    outcome = call(learner, "leave", 3)
    assert outcome.problem is None
    assert outcome.error["type"] == "SystemExit"
    assert outcome.error["message"] == "3"
    assert call(learner, "later", 2).value == 4  # the child is still there


def test_os_exit_is_reported_with_its_status(learner):
    outcome = call(learner, "hard_exit")
    assert outcome.problem == "died"
    assert outcome.detail == "exit status 4"
    assert call(learner, "later", 2).value == 4


def test_module_level_os_exit_is_an_import_death(load):
    outcome = call(load("import os\nos._exit(5)\n"), "f")
    assert (outcome.problem, outcome.detail) == ("import_died", "exit status 5")


def test_printing_in_an_endless_loop_is_a_flood(learner):
    outcome = call(learner, "chatter", timeout=30)
    assert outcome.problem == "flood"
    assert outcome.stdout.startswith("debug: still looping\n")
    assert "more characters not shown" in outcome.stdout
    assert len(outcome.stdout) < 10_000


def test_printing_in_an_endless_loop_at_module_level_is_an_import_flood(load):
    submission = load("while True:\n    print('x' * 80)\n\ndef f():\n    return 1\n", import_timeout=30)
    outcome = call(submission, "f")
    assert outcome.problem == "import_flood"
    assert outcome.stdout.startswith("x" * 80)
    assert call(submission, "f") is outcome  # not loaded again


def test_a_syntax_error_names_its_line(load):
    outcome = call(load("def f():\n    return 1\n\ndef g(:\n    pass\n"), "f")
    assert outcome.problem == "import_failed"
    assert outcome.error["type"] == "SyntaxError"
    assert outcome.error["line"] == 4
    assert "def g(:" in outcome.error["text"]


def test_an_import_error_is_an_import_failure(load):
    outcome = call(load("import no_such_module_anywhere\n"), "f")
    assert outcome.problem == "import_failed"
    assert outcome.error["type"] == "ModuleNotFoundError"


def test_a_missing_function_is_missing_and_the_child_lives_on(learner):
    before = call(learner, "pid").value
    outcome = call(learner, "react_agent")
    assert (outcome.problem, outcome.detail) == ("missing", "react_agent")
    assert call(learner, "pid").value == before


def test_too_much_memory_fails_without_hanging_the_grader(learner):
    outcome = call(learner, "hog", timeout=30)
    assert outcome.problem != "hang"
    assert (outcome.error or {}).get("type") == "MemoryError" or outcome.problem == "died"


def test_close_kills_what_the_child_started(learner):
    outcome = call(learner, "spawn")
    assert isinstance(outcome.value, int)
    sleeper = processes.on_host(outcome.value, learner.process.pid)  # the pid the child saw is its namespace's
    assert sleeper is not None and processes.alive(sleeper)
    learner.close()
    assert learner.process is None
    assert processes.gone(sleeper)


def test_a_lone_surrogate_in_a_value_does_not_kill_the_child(learner):
    outcome = call(learner, "echo_surrogate")
    assert outcome.problem is None
    assert outcome.value == "half of a pair: \\ud800"  # escaped, so reports can print it


# ---------------------------------------------------------------- the model behind llm_call

def test_llm_call_is_answered_by_the_grader(learner):
    prompts = []

    def model(prompt):
        prompts.append(prompt)
        return prompt.upper()

    outcome = call(learner, "ask", model=model)
    assert outcome.value == "HI"
    assert prompts == ["hi"]
    assert outcome.unawaited == 0


def test_several_model_calls_in_one_run(learner):
    assert call(learner, "ask_twice", model=lambda p: p[::-1]).value == ["eno", "owt"]


def test_llm_call_without_await_is_counted(learner):
    outcome = call(learner, "forget_await", model=lambda p: p)
    assert outcome.value == "no await"
    assert outcome.unawaited == 1


def test_a_returned_coroutine_is_marked_unawaited(learner):
    outcome = call(learner, "return_coroutine", model=lambda p: p)
    assert isinstance(outcome.value, Unawaited)


def test_llm_call_where_no_model_is_expected(learner):
    assert call(learner, "ask").problem == "unexpected_llm"


def test_the_model_gets_the_payload_as_sent(learner):
    outcome = call(learner, "ask_with_a_list", model=lambda payload: payload)
    assert outcome.value == ["not", "a", "str"]


def test_a_model_that_refuses_ends_the_run(learner):
    from mock_llm import BudgetExceeded

    def model(prompt):
        raise BudgetExceeded("more than 0 model calls")

    outcome = call(learner, "ask", model=model)
    assert (outcome.problem, outcome.detail) == ("budget", "more than 0 model calls")


def budget_of(calls):
    from mock_llm import BudgetExceeded
    answered = []

    def model(prompt):
        if len(answered) == calls:
            raise BudgetExceeded(f"more than {calls} model calls")
        answered.append(prompt)
        return "another step"
    return model, answered


def test_past_the_budget_the_loop_unwinds_and_the_child_lives_on(learner):
    before = call(learner, "pid").value
    model, answered = budget_of(5)
    outcome = call(learner, "ask_forever", model=model)
    assert outcome.problem == "budget" and len(answered) == 5
    assert call(learner, "pid").value == before  # no restart: the refusal unwound the loop


def test_a_loop_that_swallows_the_refusal_is_stopped_anyway(learner):
    before = call(learner, "pid").value
    model, answered = budget_of(3)
    outcome = call(learner, "ask_forever_swallowing_everything", model=model, timeout=30)
    assert outcome.problem == "budget" and len(answered) == 3
    assert call(learner, "pid").value != before  # killed after the grace period, not at the timeout


# ---------------------------------------------------------------- tools that call back

TOOLS = [{"$new": "Tool", "args": [name, description, {"$tool": name}]}
         for name, description in (("Echo", "repeats its input"), ("Clock", "tells the time"))]


def test_tools_become_the_files_own_tool_objects(learner):
    outcome = call(learner, "describe", TOOLS)
    assert outcome.value == [("Tool", "Echo", "repeats its input"), ("Tool", "Clock", "tells the time")]


def test_a_tool_func_calls_back_into_the_grader(learner):
    ran = []

    def tools(name, *args, **kwargs):
        ran.append((name, args))
        return f"{name} got {args[0]}"

    outcome = call(learner, "use_tool", TOOLS, "北京", tools=tools)
    assert outcome.value == "Echo got 北京"
    assert ran == [("Echo", ("北京",))]


def test_a_failing_tool_raises_in_the_learners_code(learner):
    def tools(name, *args, **kwargs):
        raise ValueError("boom")

    outcome = call(learner, "use_tool_safely", TOOLS, "x", tools=tools)
    assert outcome.problem is None
    assert outcome.value == "ValueError: boom"  # a built-in exception keeps its type

    outcome = call(learner, "use_tool", TOOLS, "x", tools=tools)
    assert (outcome.error["type"], outcome.error["message"]) == ("ValueError", "boom")


def test_a_tool_error_of_a_non_builtin_type_arrives_as_runtime_error(learner):
    class ServiceDown(Exception):
        pass

    def tools(name, *args, **kwargs):
        raise ServiceDown("HTTP 503")

    assert call(learner, "use_tool_safely", TOOLS, "x", tools=tools).value == "RuntimeError: HTTP 503"


# ---------------------------------------------------------------- threads, loading, chains, repeat hangs

CONCURRENT = '''
import asyncio
from concurrent.futures import ThreadPoolExecutor


def in_threads(tools, inputs):
    with ThreadPoolExecutor(max_workers=8) as pool:
        return list(pool.map(lambda text: tools[0](text), inputs))


async def in_tasks(tools, inputs):
    return await asyncio.gather(*(asyncio.to_thread(tools[0], text) for text in inputs))
'''


@pytest.mark.parametrize("func", ["in_threads", "in_tasks"])
def test_tools_called_from_many_threads_get_their_own_answers(load, func):
    submission = load(CONCURRENT)
    inputs = [f"input {n}" for n in range(40)]

    def tools(name, text):
        time.sleep(0.001)  # long enough for the threads' requests to interleave
        return text.upper()

    outcome = call(submission, func, [{"$tool": "Echo"}], inputs, tools=tools, timeout=20)
    assert outcome.problem is None and outcome.error is None
    assert outcome.value == [text.upper() for text in inputs]


LEFT_RUNNING = '''
import os
import threading
from concurrent.futures import ThreadPoolExecutor

POOL = ThreadPoolExecutor(max_workers=4)  # kept between calls: its idle workers run nothing
results = []


def never_joined(tools, inputs):
    go = threading.Event()

    def work(text):
        go.wait()  # until the call has its value: the same every run
        results.append(tools[0](text))
        threading.Event().wait()  # and never ends

    for text in inputs:
        threading.Thread(target=work, args=(text,)).start()
    try:
        return list(results)
    finally:
        go.set()


def blocked_forever():
    threading.Thread(target=threading.Event().wait).start()
    return "returned"


def through_the_pool(tools, inputs):
    return list(POOL.map(lambda text: tools[0](text), inputs))


def pid():
    return os.getpid(), [t.name for t in threading.enumerate() if not t.name.startswith("reactlings-")]
'''


def test_threads_a_call_leaves_running_are_its_own_and_gone_by_the_next_call(load):
    """A call that returns while threads it started still run: what they ask for is answered
    within the call (a check then reads a settled round, day11), the outcome says how many were
    left, and the next call meets a new child, not them (the same report every run)."""
    submission = load(LEFT_RUNNING)
    asked = []

    def tools(name, text):
        asked.append(text)
        return text.upper()

    before = call(submission, "pid").value
    outcome = call(submission, "never_joined", [{"$tool": "Echo"}], ["a", "b", "c"], tools=tools)
    assert (outcome.problem, outcome.value, outcome.left_running) == (None, [], 3)
    assert sorted(asked) == ["a", "b", "c"]  # answered before the call ended
    after = call(submission, "pid").value
    assert after[0] != before[0] and after[1] == ["MainThread"]  # a new child, no thread of the last call

    outcome = call(submission, "blocked_forever")  # blocked on something else: nothing to wait for
    assert (outcome.value, outcome.left_running) == ("returned", 1)


def test_a_pool_kept_between_calls_is_no_work_left_running(load):
    submission = load(LEFT_RUNNING)
    outcome = call(submission, "through_the_pool", [{"$tool": "Echo"}], ["a", "b"], tools=lambda name, text: text)
    assert (outcome.value, outcome.left_running) == (["a", "b"], 0)
    before = call(submission, "pid").value[0]
    call(submission, "through_the_pool", [{"$tool": "Echo"}], ["c"], tools=lambda name, text: text)
    assert call(submission, "pid").value[0] == before  # the same child serves on


SMOKE_TEST = '''
import asyncio
import mock_llm


async def llm_call(prompt):
    return mock_llm.reply("day06", prompt)


async def agent(question):
    return await llm_call(question)


print("smoke test:", asyncio.run(agent("What is 3 + 5 * 2?")))
'''


def test_model_calls_while_loading_are_answered_and_the_file_is_graded(load):
    from mock_llm import Scenario, TextReactSession
    loading = Scenario("loading", "", [], "not while loading", [], repeat=False)
    submission = load(SMOKE_TEST, loading_session=lambda: TextReactSession(loading, budget=5))
    outcome = call(submission, "agent", "hi", model=lambda prompt: f"graded: {prompt}")
    assert outcome.value == "graded: hi"
    assert submission.loaded_with_model_calls


def test_a_file_that_fails_because_of_its_model_calls_while_loading_is_told_so(load):
    from mock_llm import Scenario, TextReactSession
    loading = Scenario("loading", "", [], "not while loading", [], repeat=False)
    source = SMOKE_TEST + "assert '13' in asyncio.run(agent('What is 3 + 5 * 2?'))\n"
    submission = load(source, loading_session=lambda: TextReactSession(loading, budget=5))
    outcome = call(submission, "agent", "hi", model=lambda prompt: prompt)
    assert (outcome.problem, outcome.error["type"]) == ("loads_model", "AssertionError")  # not a hang
    assert call(submission, "agent", "again") is outcome  # said once, not loaded again


CHAINED = '''
import asyncio


def first(items):
    return next(item for item in items if item == "wanted")


async def agent():
    return first(["other"])
'''


def test_a_chained_exception_shows_the_learners_lines_of_every_link(load, tmp_path):
    outcome = call(load(CHAINED), "agent")
    error = outcome.error
    assert error["type"] == "RuntimeError"  # StopIteration inside a coroutine
    assert error["chain"] == ["StopIteration: "]
    assert "in first" in error["traceback"] and "in agent" in error["traceback"]
    assert str(tmp_path) in error["traceback"]
    assert ".pyenv" not in error["traceback"] and "asyncio" not in error["traceback"]


HELPER_LOOP = '''
def parse(text):
    while True:
        pass


def first(text):
    return parse(text)


def second(text):
    return parse(text) + "!"
'''


def test_a_hang_in_a_shared_helper_is_recognised_quickly_in_other_functions(load):
    submission = load(HELPER_LOOP)
    assert call(submission, "first", "x", timeout=2).problem == "hang"
    again = call(submission, "second", "x", timeout=2)
    assert again.problem == "hang" and again.again  # not the full limit: the same line, seen again
    assert "in parse" in again.error["traceback"]


AWAITS = '''
import asyncio
import os

from openai import AsyncOpenAI

client = AsyncOpenAI(api_key="learner", base_url="http://example.invalid/v1", max_retries=0)


async def llm_call(prompt):
    return "the file's own model"


def waiting(how):
    """Something to await: an event nobody sets, or the model's answer (llm_call or the client)."""
    if how == "llm_call":
        return llm_call("may I?")
    if how == "client":
        return client.chat.completions.create(model="m", messages=[{"role": "user", "content": "may I?"}])
    return asyncio.Event().wait()


async def pause(how):
    return await waiting(how)  # PAUSE: forever, or until the model answers


async def first():
    return await pause("forever")


async def second():
    await llm_call("before the pause")
    return await pause("forever")


async def in_tasks():
    return await asyncio.gather(asyncio.sleep(0, "quick"), pause("forever"))


async def asking(how):
    reply = await pause(how)
    return reply if how == "llm_call" else reply.choices[0].message.content


async def churn(rounds):
    for _ in range(rounds):
        await asyncio.gather(*(asyncio.sleep(0) for _ in range(20)))
    return "done"


def pid():
    return os.getpid()
'''
PAUSE_LINE = next(n for n, text in enumerate(AWAITS.splitlines(), 1) if "# PAUSE" in text)


def chat_reply(content):
    return {"id": "chatcmpl-1", "object": "chat.completion", "created": 0, "model": "m",
            "choices": [{"index": 0, "finish_reason": "stop",
                         "message": {"role": "assistant", "content": content}}]}


def test_a_hang_in_an_await_is_recognised_again_in_another_call(load):
    """Async code stuck in an await leaves the main thread in the event loop: the hang spot is the
    innermost learner line of the suspended task, and a later call suspended there is the same hang."""
    submission = load(AWAITS)
    before = call(submission, "pid").value
    outcome = call(submission, "first", timeout=1)
    assert outcome.problem == "hang" and outcome.again is False
    assert submission.hang_spots == {PAUSE_LINE}
    again = call(submission, "second", timeout=5, model=lambda prompt: "go on")  # its own full limit
    assert again.problem == "hang" and again.again is True  # seen at the spot, not waited out
    assert "in pause" in again.error["traceback"]
    assert call(submission, "pid").value == before  # each stop ended the call in place: same child


def test_the_hang_spot_of_gathered_tasks_is_the_stuck_tasks_line(load):
    submission = load(AWAITS)
    assert call(submission, "in_tasks", timeout=1).problem == "hang"
    assert submission.hang_spots == {PAUSE_LINE}  # not the line that awaits the gather


# Appended to a learner file: `asking_once_watched(tools, *args)` calls its `asking(*args)` and, from
# a thread, calls the grader's tool once the watchdog (the sandbox's hangs.py) has looked three
# times SPOT_SAMPLES since; each look follows one sleep of its thread's (named after `watch`), by
# hangs.py's own `_sleep` (a lesson may replace time.sleep, so the sandbox keeps the real one).
WATCHED = """

import threading

import hangs

_sleep, _looked = hangs._sleep, threading.Semaphore(0)


def _counting_sleep(seconds):
    if threading.current_thread().name.endswith("(watch)"):
        _looked.release()
    _sleep(seconds)


hangs._sleep = _counting_sleep


def asking_once_watched(tools, *args):
    def tell():
        for _ in range(3 * hangs.SPOT_SAMPLES):
            _looked.acquire()
        tools[0]("watched")

    threading.Thread(target=tell, daemon=True).start()
    return asking(*args)
"""


def until_watched(submission):
    """The tools for WATCHED's call, and a wait for the model (or http) to call before it answers:
    it returns once the watchdog has looked at the waiting call several times SPOT_SAMPLES, however
    long that takes: when the tool has run, or the child says anything more (the tool call, or the
    watchdog's hang_again if it counted the wait)."""
    watched = threading.Event()

    def tools(name, text):
        watched.set()
        return text

    def wait():
        deadline = time.monotonic() + 60
        while not (watched.is_set() or submission.pending or select.select([submission.sock], [], [], 0.05)[0]):
            assert time.monotonic() < deadline, "the watchdog never looked at the waiting call"

    return tools, wait


@pytest.mark.parametrize("how", ["llm_call", "client"])
def test_awaiting_a_slow_model_at_a_hang_spot_is_not_a_hang(load, how):
    """The line where an earlier call hung also awaits the model: while the grader answers, the
    call is not stuck, however long the model takes (a live one takes seconds)."""
    submission = load(AWAITS + WATCHED)
    assert call(submission, "first", timeout=1).problem == "hang"
    assert submission.hang_spots == {PAUSE_LINE}
    tools, wait = until_watched(submission)
    outcome = call(submission, "asking_once_watched", [{"$tool": "Tell"}], how, timeout=120, tools=tools,
                   model=lambda prompt: wait() or "yes",
                   http=lambda method, url, body, headers=None: wait() or (200, chat_reply("yes")))
    assert outcome.problem is None and outcome.error is None and outcome.again is False
    assert outcome.value == "yes"


SYNC_PAUSE = '''
def llm_call(prompt):
    return "the file's own model"


def pause(ask):
    while not (ask and llm_call("may I?")): pass  # PAUSE: forever, or until the model answers
    return "asked"


def stuck():
    return pause(False)


def asking():
    return pause(True)
'''


def test_a_sync_call_waiting_for_a_slow_model_at_a_hang_spot_is_not_a_hang(load):
    submission = load(SYNC_PAUSE + WATCHED)
    assert call(submission, "stuck", timeout=1).problem == "hang"
    assert submission.hang_spots == {next(n for n, text in enumerate(SYNC_PAUSE.splitlines(), 1)
                                          if "# PAUSE" in text)}

    tools, wait = until_watched(submission)
    outcome = call(submission, "asking_once_watched", [{"$tool": "Tell"}], timeout=120, tools=tools,
                   model=lambda prompt: wait() or "yes")
    assert (outcome.problem, outcome.value, outcome.again) == (None, "asked", False)


def test_the_watchdog_follows_a_busy_event_loop_quietly(load):
    """Thousands of tasks come and go while the watchdog reads the loop's tasks from its thread."""
    submission = load(AWAITS)
    assert call(submission, "first", timeout=1).problem == "hang"
    outcome = call(submission, "churn", 1000, timeout=60)
    assert (outcome.problem, outcome.value, outcome.again) == (None, "done", False)
    assert outcome.stdout == ""  # no traceback of a failing watchdog thread


def test_a_context_python_hides_is_not_shown(load):
    """json raises JSONDecodeError `from None` over a StopIteration: only what Python shows counts."""
    outcome = call(load("import json\n\ndef parse(text):\n    return json.loads(text)\n"), "parse", "{oops")
    assert outcome.error["type"] == "JSONDecodeError" and outcome.error["chain"] == []


def test_tools_called_at_once_run_at_once_in_the_grader(load):
    """Eight calls from a thread pool to a tool that returns only once all eight run at the same time
    in the grader (one after another, the first would wait in vain and fail)."""
    submission = load(CONCURRENT)
    all_running = threading.Barrier(8)

    def tools(name, text):
        all_running.wait(timeout=30)
        return text

    outcome = call(submission, "in_threads", [{"$tool": "Slow"}], [str(n) for n in range(8)], tools=tools,
                   timeout=60)
    assert outcome.value == [str(n) for n in range(8)]



SLEEPER = """
import time
import helper

def wait(seconds=30):
    time.sleep(seconds)
    return "woke"

def wait_caught():
    try:
        time.sleep(30)
    except BaseException:
        return "caught"

def wait_given(sleep=time.sleep):
    sleep(30)

def library_waits():
    helper.wait(30)
    return "no wait"
"""


def sleeper(load, tmp_path, **kwargs):
    """SLEEPER, with the module of its own it imports (a library as far as the grader knows)."""
    helper = write(tmp_path, "import time\n\ndef wait(seconds):\n    time.sleep(seconds)\n", "helper.py")
    return load(SLEEPER, readable=[helper], **kwargs)


@pytest.mark.parametrize("func", ["wait", "wait_caught", "wait_given"])
def test_time_sleep_of_the_learners_own_ends_the_call_where_a_sleep_is_given(load, tmp_path, func):
    """sleep_given (day12): the learner's own time.sleep, even caught or taken as a default
    argument, ends the call at once as a real_sleep, with the learner's line; not a hang."""
    submission = sleeper(load, tmp_path, sleep_given=True)
    outcome = call(submission, func, timeout=20)
    assert (outcome.problem, outcome.detail) == ("real_sleep", "30")
    assert "sleep(" in outcome.error["traceback"]  # the learner's line that waits
    assert outcome.child_ok
    assert call(submission, "wait", 0).value == "woke"  # no wait at all: what time.sleep(0) does


def test_a_librarys_time_sleep_passes_at_once_where_a_sleep_is_given(load, tmp_path):
    """The openai SDK's own retry waits (code not in the learner's file) return at once."""
    assert call(sleeper(load, tmp_path, sleep_given=True), "library_waits", timeout=20).value == "no wait"


def test_time_sleep_is_left_alone_where_no_sleep_is_given(load, tmp_path):
    submission = sleeper(load, tmp_path)
    assert call(submission, "wait", 0.05).value == "woke"
    assert call(submission, "wait", "7").error["type"] == "TypeError"


# ---------------------------------------------------------------- started warm, by a fork server

@pytest.fixture(scope="module", params=["started cold", "forked from a warm sandbox"])
def server(request):
    """A fork server started by its worker, or forked from a class run's warm sandbox."""
    if not forkserver.available():
        pytest.skip("no fork server on this system: children start cold")
    warm = forkserver.WarmSandbox([]) if request.param != "started cold" else None
    started = forkserver.ForkServer(door=warm and warm.door)
    yield started
    started.close()
    if warm:
        warm.close()


@pytest.fixture
def warm(tmp_path, server):
    submission = Submission(write(tmp_path, LEARNER), forkserver=server)
    yield submission
    submission.close()


def test_a_warm_child_answers_as_a_cold_one(warm, learner):
    for func, args in (("crash", ()), ("hard_exit", ()), ("leave", (3,)), ("shout", ()), ("later", (21,))):
        hot, cold = call(warm, func, *args), call(learner, func, *args)
        assert (hot.value, hot.problem, hot.detail, hot.stdout, hot.error) == (
            cold.value, cold.problem, cold.detail, cold.stdout, cold.error), func


def test_a_warm_child_that_hangs_is_stopped_and_the_next_call_gets_a_fresh_one(warm):
    assert call(warm, "block", timeout=1).problem == "hang"
    assert call(warm, "later", 2).value == 4
    hog = call(warm, "hog", timeout=30)  # the memory limit holds as in a cold child
    assert (hog.error or {}).get("type") == "MemoryError" or hog.problem == "died"
    assert call(warm, "later", 3).value == 6


def test_a_warm_child_ends_with_its_signal(server, load):
    submission = load("import os, signal\n\ndef die():\n    os.kill(os.getpid(), signal.SIGKILL)\n",
                      forkserver=server)
    assert (call(submission, "die").problem, submission.import_failure) == ("died", None)
    assert call(submission, "die").detail == "signal SIGKILL"


def test_a_warm_child_runs_on_the_cpus_of_the_thread_that_starts_it(server, load):
    """A class worker runs on one CPU, and its children with it (workers.py): the fork server's
    child takes the CPUs of the thread that asks for it, before the jail's processes fork."""
    cpus = sorted(os.sched_getaffinity(0))
    if len(cpus) < 2:
        pytest.skip("one CPU: nothing to choose")
    os.sched_setaffinity(0, {cpus[-1]})  # this thread's: the child is spawned from it
    try:
        submission = load("import os\n\ndef cpus():\n    return sorted(os.sched_getaffinity(0))\n", forkserver=server)
        assert call(submission, "cpus").value == [cpus[-1]]
        submission.close()
    finally:
        os.sched_setaffinity(0, cpus)


def test_children_start_cold_when_the_fork_server_is_gone(load):
    gone = forkserver.ForkServer()
    gone.process.kill()
    gone.process.wait(timeout=30)
    submission = load(LEARNER, forkserver=gone)
    assert call(submission, "later", 5).value == 10
    assert isinstance(submission.process, subprocess.Popen)
    gone.close()


def test_a_warm_sandbox_serves_each_worker_with_a_fork_that_ends_with_its_socket(load):
    """A class run's workers each get a fork server forked from the run's one warm sandbox: it
    serves as one started cold would, and ends when its worker closes its side, the sandbox
    going on for the others."""
    if not forkserver.available():
        pytest.skip("no fork server on this system: children start cold")
    warm = forkserver.WarmSandbox([])
    first, second = forkserver.ForkServer(door=warm.door), forkserver.ForkServer(door=warm.door)
    assert first.process is None and second.process is None  # neither started cold
    submission = load(LEARNER, forkserver=first)
    assert call(submission, "later", 5).value == 10 and not isinstance(submission.process, subprocess.Popen)
    submission.close()
    first.close()
    submission = load(LEARNER, forkserver=second)
    assert call(submission, "later", 6).value == 12 and not isinstance(submission.process, subprocess.Popen)
    submission.close()
    second.close()
    for pid in processes.descendants(warm.process.pid):
        assert processes.gone(pid)  # the servers, their spares and children: all ended with their sockets
    warm.close()
    assert warm.process.returncode == 0  # it saw the door closed and ended


OPENAI_LEARNER = ("import sys\nfrom mock_llm.http import openai_client\n\nclient = openai_client('day07')\n\n"
                  "def chat_built():\n    return 'openai.resources.chat.completions.completions' in sys.modules\n")


def test_a_warm_sandbox_has_made_openais_first_request_for_its_forks(load):
    """The first request through openai's client imports its chat resources and builds the models it
    parses into (~30 ms): a warm sandbox whose lessons use openai does it once, with a canned reply,
    so no student's child of a class run does it again. A child started cold builds them on use."""
    if not forkserver.available():
        pytest.skip("no fork server on this system: children start cold")
    warm = forkserver.WarmSandbox(["mock_llm.http"])
    server = forkserver.ForkServer(door=warm.door)
    assert call(load(OPENAI_LEARNER, forkserver=server), "chat_built", timeout=30).value is True
    assert call(load(OPENAI_LEARNER), "chat_built", timeout=30).value is False
    server.close()
    warm.close()


def test_a_fork_server_starts_cold_when_the_warm_sandbox_is_gone(load):
    if not forkserver.available():
        pytest.skip("no fork server on this system: children start cold")
    warm = forkserver.WarmSandbox([])
    warm.process.kill()
    warm.process.wait(timeout=30)
    server = forkserver.ForkServer(door=warm.door)
    assert isinstance(server.process, subprocess.Popen)
    submission = load(LEARNER, forkserver=server)
    assert call(submission, "later", 5).value == 10
    server.close()
    warm.close()


# Python 3.12 warns of any fork of a process with threads: forking one that ran tools is the point
@pytest.mark.filterwarnings("ignore:This process .* is multi-threaded:DeprecationWarning")
def test_a_fork_of_the_grader_runs_tool_calls_on_threads_of_its_own(load):
    """A class-grading worker is a fork of a grader that may have run tools already."""
    submission = load(CONCURRENT)
    assert call(submission, "in_threads", [{"$tool": "Echo"}], ["a"] * 32, tools=lambda name, text: text,
                timeout=20).value == ["a"] * 32
    pid = os.fork()
    if pid == 0:
        try:
            fresh = Submission(submission.path)
            ran = call(fresh, "in_threads", [{"$tool": "Echo"}], ["b"], tools=lambda name, text: text, timeout=20)
            fresh.close()
            os._exit(0 if ran.value == ["b"] else 1)
        except BaseException:
            os._exit(2)
    assert os.waitstatus_to_exitcode(os.waitpid(pid, 0)[1]) == 0


LEAVES_TOOLS = '''
import json
import os
import sys


def ask_and_leave(count):
    """Tool requests written straight to the grader's socket, whose answers nobody awaits."""
    for n in range(count):
        request = {"op": "tool", "id": 10**6 + n, "name": "Slow", "args": [str(n)], "kwargs": {}}
        os.write(int(sys.argv[1]), json.dumps(request).encode() + b"\\n")
    return "left"
'''


def blocked_tools():
    """Tools that wait for `release`; `started` lists the calls that began."""
    started, release = [], threading.Event()

    def tools(name, text):
        started.append(text)
        release.wait(10)
        return text
    return tools, started, release


def test_tool_calls_a_child_leaves_queued_never_run_after_it(load):
    """Queued in the grader when the child ended, they ran on into what was graded next (the next
    student's tool calls waited behind them and timed out)."""
    tools, started, release = blocked_tools()
    submission = load(LEAVES_TOOLS)
    assert call(submission, "ask_and_leave", 30, tools=tools).value == "left"
    deadline = time.monotonic() + 30  # as many start as the grader has tool threads; the rest queue
    while len(started) < child_process.TOOL_THREADS:
        assert time.monotonic() < deadline, started
        time.sleep(0.01)
    runners = submission.tool_runners
    shutdown = runners.shutdown

    def shutdown_then_release(**how):  # the running ones end while close() waits for them
        shutdown(**how)
        release.set()

    runners.shutdown = shutdown_then_release
    submission.close()
    shutdown(wait=True)  # every call that could still start has started and ended
    assert len(started) == child_process.TOOL_THREADS  # only those that had started


def test_tool_calls_waiting_at_once_are_bounded(load):
    tools, started, release = blocked_tools()
    submission = load(LEAVES_TOOLS)
    outcome = call(submission, "ask_and_leave", 40, tools=tools)
    release.set()
    assert (outcome.problem, outcome.detail) == ("tools_waiting", str(runner.TOOLS_WAITING_LIMIT))


def test_a_tool_result_that_cannot_cross_is_the_tools_failure_not_a_hang(load):
    """multiply(10**4000, 10**4000) in day01: 8,001 digits, past what JSON may write (Python's
    int-to-text limit): before, the answer was never sent and the learner's call hung."""
    submission = load(CONCURRENT)
    outcome = call(submission, "in_threads", [{"$tool": "Multiply"}], ["x"], tools=lambda name, text: 10**8000)
    assert (outcome.error or {}).get("type") == "ValueError" and "digits" in outcome.error["message"], outcome


OPENAI_TYPES = '''
import threading

import openai
import openai.types as types
from openai.types.chat import ChatCompletion


def from_everywhere():
    """openai.types' names, reached every way Python offers, as an eager import would give them."""
    found = {"from": ChatCompletion.__name__, "attribute": types.chat.ChatCompletion.__name__,
             "package": types.ChatModel is not None, "submodule": types.shared_params.__name__}
    names = {}
    exec("from openai.types import *", names)
    found["star"] = "Batch" in names and "ChatModel" in names
    return found


def in_threads(count):
    """The first use of a package's names by several threads at once: each gets them."""
    start, got = threading.Barrier(count), []

    def look():
        start.wait()
        got.append(openai.types.beta.Assistant.__name__)

    threads = [threading.Thread(target=look) for _ in range(count)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    return got
'''


EAGER_NAMES = {"from": "ChatCompletion", "attribute": "ChatCompletion", "package": True,
               "submodule": "openai.types.shared_params", "star": True}


def test_openai_types_in_the_child_are_what_an_eager_import_gives(load):
    """The child runs openai.types' package bodies on first use (lazy_packages.LazyBodyFinder): every way
    of reaching their names still reaches them, from one thread or several at once."""
    submission = load(OPENAI_TYPES)
    assert call(submission, "from_everywhere").value == EAGER_NAMES
    assert call(submission, "in_threads", 8).value == ["Assistant"] * 8


def test_openai_types_in_a_warm_child_are_what_an_eager_import_gives(load):
    """A warm sandbox imports openai as a cold child does, the package bodies left to first use
    (it is ready sooner: a class run's first students wait less), and its forks reach every name."""
    if not forkserver.available():
        pytest.skip("no fork server on this system: children start cold")
    warm = forkserver.WarmSandbox(["mock_llm.http"])
    server = forkserver.ForkServer(door=warm.door)
    submission = load(OPENAI_TYPES + "\nimport sys\n\ndef finders():\n"
                      "    return [type(f).__name__ for f in sys.meta_path].count('LazyBodyFinder')\n", forkserver=server)
    assert call(submission, "finders").value == 1  # the server's, not a second one
    assert call(submission, "from_everywhere").value == EAGER_NAMES
    assert call(submission, "in_threads", 8).value == ["Assistant"] * 8
    submission.close()
    server.close()
    warm.close()


def test_a_message_that_is_no_object_is_a_protocol_error_and_is_not_kept():
    """The child's messages are JSON objects, one a line: a line of anything else ends the call as a
    protocol error, and nothing of that chunk is left to be taken as the next message."""
    import socket

    from validator.outcomes import Problem
    ours, theirs = socket.socketpair()
    child = child_process.ChildProcess(Path("day06.py"))
    child._connected(ours)
    try:
        theirs.sendall(b'{"op": "tool", "id": 1}\n[1, 2]\n')
        outcome = child._receive(time.monotonic() + 30)
        assert outcome.problem is Problem.PROTOCOL and outcome.detail == "unreadable message"
        assert child.pending == [] and child.all_received()
    finally:
        ours.close()
        theirs.close()


RUNS_TEXT = '''
import ast
import builtins
from collections import namedtuple


def hidden(text):
    run = getattr(builtins, "".join(map(chr, (101, 118, 97, 108))))
    return run(text)


def library_exec():
    Point = namedtuple("Point", "x y")  # the library execs its own code
    return list(Point(1, 2)) + [ast.literal_eval("[3]")[0]]
'''


def test_the_child_sees_text_run_as_code_however_reached(load):
    """eval() reached by a name built at run time is seen where it runs (an audit hook in the
    child), at its line of the learner's file; a library's exec, or ast, is not the learner's."""
    submission = load(RUNS_TEXT)
    outcome = call(submission, "hidden", "6 * 7")
    assert (outcome.value, outcome.ran_code) == (42, 9)
    outcome = call(submission, "library_exec")
    assert (outcome.value, outcome.ran_code) == ([1, 2, 3], 0)


CHANGES_ARGS = '''
def renames(registry):
    for name, info in registry.items():
        info["function"] = name
    return len(registry)


def reads(registry, items):
    return sorted(registry) + list(items)
'''


def test_a_watched_call_says_which_arguments_it_changed(load):
    submission = load(CHANGES_ARGS)
    registry = {"$dict": [["add", {"$dict": [["function", {"$tool": "add"}]]}]]}
    outcome = call(submission, "renames", registry, watch=True)
    assert (outcome.value, outcome.changed_args) == (1, [0])
    outcome = call(submission, "reads", registry, [1, 2], watch=True)
    assert (outcome.value, outcome.changed_args) == (["add", 1, 2], [])
    assert call(submission, "renames", registry).changed_args == []  # not watched: not looked at
