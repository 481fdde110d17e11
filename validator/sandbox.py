"""The child process that runs a learner's file. Started by runner.py; never imported by the grader.

It needs only this file and wire.py. Messages, one JSON object per line (see wire.py):

    grader -> child   {"op": "load", "model_function": "llm_call", "sleep_given": false}   import the file
                      (and "file": "/course/work.py", its __file__ if not its path: a notebook's code)
    child  -> grader  {"op": "ready"}  or  {"op": "import_failed", "error": {...}}
    grader -> child   {"op": "call", "call": 3, "func": "react_agent", "args": [...], "hang_spots": [[line]]}
    child  -> grader  {"op": "model", "id": 7, "payload": ...}    the learner's code called the model
    grader -> child   {"id": 7, "reply": ...}  or {"id": 7, "refuse": why}: the call raises, the loop unwinds
    child  -> grader  {"op": "http", "id": 8, "method": "POST", "path": "/v1/chat/completions", "body": "..."}
    grader -> child   {"id": 8, "status": 200, "body": {...}}        the learner's openai client called
    child  -> grader  {"op": "tool", "id": 9, "name": "Weather", "args": [...], "kwargs": {}}
    grader -> child   {"id": 9, "output": ...}  or  {"id": 9, "raise": "...", "type": "KeyError"}
    child  -> grader  {"op": "done", "call": 3, "value": ...} | {..., "error": {...}} | ..., with "stdout"
                      | {..., "real_sleep": 7, "traceback": "..."}: it called time.sleep itself (sleep_given)
    grader -> child   {"op": "stop"}         the call ran out of time: say where it is stuck, then end it
    child  -> grader  {"op": "stuck", "where": "...", "spot": [line]}
    child  -> grader  {"op": "flood", "stdout": "..."}   the code printed too much; the child exits

The model and the tools answer from the grader's process, so the transcript and the score are kept
where the learner's code cannot reach them. Only JSON crosses: nothing the child sends is executed.
A reader thread takes every message from the grader, so learner code may call the model or tools
from several threads or tasks at once: each request has an id and waits for its own answer.
"""
import ast
import asyncio
import builtins
import ctypes
import functools
import importlib
import importlib.abc
import importlib.machinery
import importlib.util
import inspect
import itertools
import linecache
import os
import queue
import socket
import sys
import threading
import time
import tokenize
import traceback
import types
import warnings

from wire import LineReader, dump, encode  # wire.py sits next to this file

STDOUT_LIMIT = 4000  # characters of the learner's printing kept per call
FLOOD_LIMIT = 1_000_000  # characters printed in one call that end it: a print in an endless loop
SPOT_SAMPLES = 8  # a later call seen this many times in a row (every 15 ms) at a line where an
SAMPLE_EVERY = 0.015  # earlier call hung is hung again: ended at once, not after the full limit
_sleep = time.sleep  # the real one, for this file's own waits: a lesson may replace time.sleep


class ModelRefused(BaseException):
    """The grader's model refused (call budget spent, endpoint down). A BaseException, so that the
    learner's `except Exception` does not swallow it and their loop unwinds."""


class CallStopped(BaseException):
    """Raised in the learner's running call when the grader stops it (it ran out of time)."""


class SleptForReal(BaseException):
    """Raised where the learner's own code calls time.sleep in a lesson that gives it a `sleep`
    to call: the call ends at once, reported as a real wait (a BaseException, like ModelRefused)."""


class CappedText:
    """Stands in for sys.stdout/sys.stderr: keeps the first STDOUT_LIMIT characters, counts the rest."""

    def __init__(self, on_flood):
        self.on_flood = on_flood
        self.reset()

    def reset(self):
        self.kept, self.dropped, self.size = [], 0, 0

    def write(self, text):
        text = str(text)
        room = STDOUT_LIMIT - self.size
        if room > 0:
            self.kept.append(text[:room])
            self.size += len(text[:room])
        self.dropped += max(0, len(text) - max(room, 0))
        if self.size + self.dropped > FLOOD_LIMIT:
            self.on_flood(self.text())
        return len(text)

    def flush(self):
        pass

    def isatty(self):
        return False

    def text(self):
        more = f"\n… ({self.dropped} more characters not shown)" if self.dropped else ""
        return "".join(self.kept) + more


class Channel:
    """The socket to the grader. A reader thread sorts what arrives: answers go to the thread that
    asked (by id), calls go to the main thread's queue, a stop is handled at once."""

    def __init__(self, where, on_stop):
        if where.startswith("tcp:"):  # Windows: call the grader back on loopback, with its token
            self.sock = socket.create_connection(("127.0.0.1", int(where[4:])))
            self.sock.sendall(os.environ.pop("REACTLINGS_TOKEN", "").encode() + b"\n")
        else:
            self.sock = socket.socket(fileno=int(where))
        self.send_lock = threading.Lock()
        self.ids = itertools.count(1)
        self.waiting: dict[int, list] = {}  # id -> [event, answer]
        self.calls: queue.Queue = queue.Queue()
        self.on_stop = on_stop
        threading.Thread(target=self._read, daemon=True, name="reactlings-reader").start()

    def send(self, message):
        with self.send_lock:
            self.sock.sendall(dump(message))

    def ask(self, message):
        """Send a request and wait for its own answer."""
        number = next(self.ids)
        slot = self.waiting[number] = [threading.Event(), None]
        self.send(dict(message, id=number))
        slot[0].wait()
        answer = self.waiting.pop(number)[1]
        if "refuse" in answer:
            raise ModelRefused(answer["refuse"])
        return answer

    def _read(self):
        reader = LineReader()
        while True:
            try:
                chunk = self.sock.recv(65536)
            except OSError:
                chunk = b""
            if not chunk:
                os._exit(0)  # the grader is gone
            for message in reader.feed(chunk):
                slot = self.waiting.get(message.get("id"))
                if slot is not None:
                    slot[1] = message
                    slot[0].set()
                elif message.get("op") == "stop":
                    self.on_stop()
                else:
                    self.calls.put(message)


def learner_frames(error, path):
    """The learner's frames of `error` and of the exceptions it came from (a StopIteration that
    became a RuntimeError, say): only lines of the learner's file, oldest first."""
    frames, seen, current = [], set(), error
    while current is not None and id(current) not in seen:
        seen.add(id(current))
        mine = [f for f in traceback.extract_tb(current.__traceback__) if f.filename == path]
        frames = mine + [f for f in frames if (f.lineno, f.name) not in {(m.lineno, m.name) for m in mine}]
        current = _origin(current)
    return "".join(traceback.format_list(frames))


def describe(error, path):
    try:
        message = str(error)
    except Exception:
        message = f"<str() of {type(error).__name__} raised>"
    return {"type": type(error).__name__, "message": message, "traceback": learner_frames(error, path),
            "chain": _chain(error)}


def _chain(error):
    """The exceptions this one came from, as 'Type: message' (StopIteration -> RuntimeError)."""
    chain, seen, current = [], {id(error)}, _origin(error)
    while current is not None and id(current) not in seen:
        seen.add(id(current))
        chain.append(f"{type(current).__name__}: {current}")
        current = _origin(current)
    return chain


def _origin(error):
    """The exception this one came from, as Python's own traceback shows it: the cause, else the
    context unless `raise … from None` hid it (json hides a StopIteration that way)."""
    if error.__cause__ is not None:
        return error.__cause__
    return None if error.__suppress_context__ else error.__context__


class Child:
    def __init__(self, channel, path, output):
        self.channel, self.path, self.output = channel, path, output
        self.module = None
        self.created = self.awaited = 0  # model-call coroutines made / actually awaited
        self.loop = None  # the event loop of the running call, to say where its tasks wait
        self.running = False
        self.hang_spots: set[int] = set()
        self.stopped = False
        self.loops = None  # line -> its `while` loop's first line, read when first needed
        self.slept = None  # the call's own time.sleep: (seconds, the learner's lines), when refused

    # ------------------------------------------------------------ loading the file

    def load(self, request):
        install_mock_stubs(self)
        if request.get("sleep_given"):
            time.sleep = self.graded_sleep  # before the file loads: `sleep=time.sleep` defaults take it
        spec = importlib.util.spec_from_file_location("submission", self.path)
        self.module = importlib.util.module_from_spec(spec)
        if isinstance(request.get("file"), str):  # a notebook's code sees the .py it would be beside the notebook
            self.module.__file__ = request["file"]
        sys.modules["submission"] = self.module
        spec.loader.exec_module(self.module)
        # After import, the learner's own names for the model: the lesson's model function is
        # counted (a missing await is then named), and an openai client made any way reaches us.
        name = request.get("model_function")
        if name and callable(getattr(self.module, name, None)):
            setattr(self.module, name, self.counted_model_call(inspect.iscoroutinefunction(getattr(self.module, name))))
        for attr, value in list(vars(self.module).items()):
            if type(value).__module__.startswith("openai") and type(value).__name__ in ("OpenAI", "AsyncOpenAI"):
                setattr(self.module, attr, self.forwarding_client(asynchronous=type(value).__name__ == "AsyncOpenAI"))
        if "openai" in sys.modules:
            self.reroute_openai(sys.modules["openai"])

    def reroute_openai(self, openai):
        """From now on every openai.OpenAI (or AsyncOpenAI) the learner's code builds is built as
        they asked (base URL, key, timeout, max_retries, headers), except that its transport is
        the grader's: the requests reach the grader as they would reach a server."""
        for name, asynchronous in (("OpenAI", False), ("AsyncOpenAI", True)):
            original = getattr(openai, name)
            rerouted = type(name, (original,), {"__init__": self._rerouted_init(original, asynchronous),
                                                "__qualname__": original.__qualname__,
                                                "__module__": original.__module__})
            setattr(openai, name, rerouted)
            for attr, value in list(vars(self.module).items()):
                if value is original:
                    setattr(self.module, attr, rerouted)

    def _rerouted_init(self, original, asynchronous):
        child = self

        def __init__(client, *args, **kwargs):
            kwargs["http_client"] = child.forwarding_http(asynchronous)
            original.__init__(client, *args, **kwargs)
        return __init__

    def graded_sleep(self, seconds):
        """time.sleep in a lesson whose functions are given their `sleep` (lesson.yaml sleep_given),
        while a call runs: nothing waits for real. A library's wait (the openai SDK's own retries)
        passes at once; the learner's own code waiting for real, instead of calling the sleep it
        was given, ends the call (SleptForReal). What time.sleep refuses it refuses alike."""
        number = isinstance(seconds, (int, float)) and seconds == seconds and seconds > 0
        if not (self.running and number):
            return _sleep(seconds)
        caller = sys._getframe(1)
        if caller.f_code.co_filename != self.path:
            return None
        if self.slept is None:
            mine = [f for f in traceback.extract_stack(caller) if f.filename == self.path]
            self.slept = (seconds, "".join(traceback.format_list(mine)))
        raise SleptForReal(seconds)

    # ------------------------------------------------------------ the model and the tools

    def ask_model(self, payload):
        return self.channel.ask({"op": "model", "payload": encode(payload)})["reply"]

    def model_call(self, payload, *args, **kwargs):
        """The model, called and answered at once (counted as made and awaited)."""
        self.created += 1
        self.awaited += 1
        return self.ask_model(payload)

    def counted_model_call(self, is_async):
        def call_async(payload, *args, **kwargs):
            # A plain function returning a coroutine, so a missing `await` can be counted and named.
            self.created += 1

            async def model_call():
                self.awaited += 1
                return self.ask_model(payload)

            return model_call()

        return call_async if is_async else self.model_call

    def proxy_tool(self, name):
        def run(*args, **kwargs):
            answer = self.channel.ask({"op": "tool", "name": name, "args": [encode(a) for a in args],
                                       "kwargs": {str(k): encode(v) for k, v in kwargs.items()}})
            if "raise" in answer:  # the tool's own exception type, when it is a built-in one
                kind = getattr(builtins, str(answer.get("type")), None)
                usable = isinstance(kind, type) and issubclass(kind, Exception)
                raise (kind if usable else RuntimeError)(answer["raise"])
            return answer["output"]
        run.__name__ = run.__qualname__ = name
        return run

    def forwarding_client(self, *args, asynchronous: bool = False, **kwargs):
        """An openai client whose every request is answered by the grader (the mock model, or the
        real endpoint in --live mode): the learner's code is what it would be for a provider."""
        import openai

        kind = openai.AsyncOpenAI if asynchronous else openai.OpenAI
        return kind(api_key="graded-by-reactlings", base_url="http://grader.invalid/v1", max_retries=0,
                    http_client=self.forwarding_http(asynchronous))

    def forwarding_http(self, asynchronous: bool = False):
        """An httpx client whose every request the grader answers: with a status, a JSON body and
        headers, or with a network failure, raised as httpx raises a real one."""
        import httpx2

        def transport(request):
            answer = self.channel.ask({"op": "http", "method": request.method, "path": request.url.path,
                                       "url": str(request.url), "headers": dict(request.headers),
                                       "body": request.content.decode("utf-8", "replace")})
            if "network" in answer:
                failure = httpx2.ReadTimeout if answer["network"] == "timeout" else httpx2.ConnectError
                raise failure(str(answer.get("message", "")), request=request)
            return httpx2.Response(answer["status"], json=answer["body"], headers=answer.get("headers") or {})

        if not asynchronous:
            return httpx2.Client(transport=httpx2.MockTransport(transport))

        async def async_transport(request):  # the grader's answer, awaited as a server's would be
            await request.aread()
            return await asyncio.to_thread(transport, request)

        return httpx2.AsyncClient(transport=httpx2.MockTransport(async_transport))

    def build(self, value):
        """Arguments from the grader, with the objects they describe built here (see wire.py)."""
        if isinstance(value, list):
            return [self.build(v) for v in value]
        if not isinstance(value, dict):
            return value
        if "$tool" in value:
            return self.proxy_tool(str(value["$tool"]))
        if "$dict" in value:
            return {self.build(k): self.build(v) for k, v in value["$dict"]}
        if "$tuple" in value:
            return tuple(self.build(v) for v in value["$tuple"])
        if "$new" in value:
            kind = getattr(self.module, str(value["$new"]), None)
            if not isinstance(kind, type):
                raise LessonTypeMissing(str(value["$new"]))
            return kind(*self.build(value.get("args", [])),
                        **{k: self.build(v) for k, v in value.get("kwargs", {}).items()})
        if "$model" in value:
            module_name, _, class_name = str(value["$model"]).partition(":")
            if not module_name.startswith("openai."):
                raise ValueError(f"not a library type the grader may build: {value['$model']}")
            return getattr(importlib.import_module(module_name), class_name).model_validate(value["data"])
        return {k: self.build(v) for k, v in value.items()}

    # ------------------------------------------------------------ one call

    def call(self, request):
        self.output.reset()
        self.created = self.awaited = 0
        self.hang_spots = {int(spot[0]) for spot in request.get("hang_spots", [])}
        self.stopped = False
        self.slept = None
        try:
            function = getattr(self.module, request["func"], None)
            if not callable(function):
                return {"op": "done", "call": request.get("call"), "missing": request["func"], "stdout": "",
                        "unawaited": 0}
            args = self.build(request["args"])
            self.running = True
            if self.hang_spots:
                threading.Thread(target=self.watch, args=(threading.main_thread(),), daemon=True).start()
            result = function(*args)
            if inspect.iscoroutine(result) and result.__qualname__ != "Child.counted_model_call.<locals>.call_async.<locals>.model_call":
                result = asyncio.run(self.tracked(result))
            reply = {"value": encode(result)}
        except LessonTypeMissing as missing:
            reply = {"missing_type": missing.args[0]}
        except ModelRefused as refused:
            reply = {"refused": str(refused)}
        except CallStopped:
            reply = {"stopped": True}
        except BaseException as error:  # SystemExit and KeyboardInterrupt are learner errors here
            reply = {"stopped": True} if self.stopped else {"error": describe(error, self.path)}
        finally:
            self.running = False
        if self.stopped:  # the learner's code caught the stop: it still ran out of time
            reply = {"stopped": True}
        elif self.slept is not None:  # even if the learner's code caught it: it asked for a real wait
            reply = {"real_sleep": encode(self.slept[0]), "traceback": self.slept[1]}
        learner_threads = [t for t in threading.enumerate()
                           if t is not threading.main_thread() and not t.name.startswith("reactlings-")]
        reply.update(op="done", call=request.get("call"), stdout=self.output.text(),
                     unawaited=self.created - self.awaited,
                     clean=not (self.stopped and learner_threads))
        return reply

    async def tracked(self, coroutine):
        self.loop = asyncio.get_running_loop()
        return await coroutine

    # ------------------------------------------------------------ a call that runs out of time

    def stop(self):
        """The grader's time limit passed: say where the code is, then end the call."""
        where, spot = self.where_stuck()
        self.channel.send({"op": "stuck", "where": where, "spot": spot})
        if self.running:
            self.stopped = True
            ctypes.pythonapi.PyThreadState_SetAsyncExc(ctypes.c_ulong(threading.main_thread().ident),
                                                       ctypes.py_object(CallStopped))
            self._wake_loop()

    def where_stuck(self):
        """The learner's lines where the code is now: every thread's stack, and the suspended
        coroutines of the call's event loop. Also the innermost line, to know this hang again: the
        main thread's, else (async code, its loop idle) that of the task the call is stuck on."""
        frames, innermost = [], None
        for ident, frame in sys._current_frames().items():
            if ident == threading.get_ident():
                continue
            stack, line = self._steady(frame)
            if ident == threading.main_thread().ident:
                innermost = line
            frames.extend(traceback.FrameSummary(self.path, number, name,
                                                 line=linecache.getline(self.path, number).strip())
                          for name, number in stack)
        waiting = self._suspended_tasks()
        for task, chain in waiting:
            frames.extend(s for f in chain if f.f_code.co_filename == self.path
                          for s in traceback.extract_stack(f, limit=1))
        if innermost is None:
            innermost = self._stuck_task_line(waiting)
        unique = []
        for f in frames:
            if (f.lineno, f.name) not in {(g.lineno, g.name) for g in unique}:
                unique.append(f)
        return "".join(traceback.format_list(unique)), [innermost] if innermost else []

    def watch(self, thread):
        """While a call runs: if the main thread, or a task of the call's event loop suspended in an
        await, sits at a line where an earlier call hung, for SPOT_SAMPLES samples in a row, it is
        the same hang: stop it now. Code waiting for the grader's answer is never counted."""
        spots, streaks = self.hang_spots, {}
        while self.running and not self.stopped and self.hang_spots is spots:  # a new call: a new set
            _sleep(SAMPLE_EVERY)
            try:
                at_spots = self._at_hang_spots(thread, spots)
            except Exception:  # a moment it could not look (learner objects mid-change): not seen there
                at_spots = set()
            streaks = {key: streaks.get(key, 0) + 1 for key in at_spots}
            if any(n >= SPOT_SAMPLES for n in streaks.values()) and self.running and self.hang_spots is spots:
                self.channel.send({"op": "hang_again"})  # the grader answers with a stop
                return

    def _at_hang_spots(self, thread, spots):
        """Who sits at a known hang spot now: ("main", line) and (id(task), line) keys."""
        found = set()
        line = self._steady(sys._current_frames().get(thread.ident))[1]
        if line in spots:
            found.add(("main", line))
        for task, chain in self._suspended_tasks():
            line = self._learner_line(reversed(chain))
            if line in spots:
                found.add((id(task), line))
        return found

    def _steady(self, frame):
        """A running thread's learner frames as (function, line), outermost first, and its innermost
        learner line (see _learner_line), the same at every look: from the first frame inside a
        `while` loop on, a loop that spins is somewhere in its lines or in what they call, so that
        frame is given the loop's first line and the frames below it are left out. Called by the
        watchdog every SAMPLE_EVERY: it reads no source lines."""
        line = self._learner_line(_outward(frame))
        if self.loops is None:
            self.loops = _while_loops(self.path)
        stack = []
        for outer in reversed(list(_outward(frame))):
            if outer.f_code.co_filename != self.path:
                continue
            header = self.loops.get(outer.f_lineno)
            stack.append((outer.f_code.co_name, header or outer.f_lineno))
            if header is not None:
                return stack, header if line is not None else None
        return stack, line

    def _learner_line(self, frames):
        """The innermost learner line of a stack or await chain (`frames`, innermost first); None
        if there is none, or if below it the code waits for the grader's answer (a model, http or
        tool request): that is the grader's time, answered at once, never where code is stuck."""
        for frame in frames:
            code = frame.f_code
            if code.co_filename == self.path:
                return frame.f_lineno
            if code is Channel.ask.__code__ or (code.co_filename == _SANDBOX_FILE
                                                 and code.co_flags & inspect.CO_COROUTINE):
                return None
        return None

    def _suspended_tasks(self):
        """[(task, await chain)] for the unfinished tasks of the running call's event loop, each
        chain the frames of its coroutines awaiting one another, outermost first. Read from another
        thread while the loop runs: the set of tasks may change meanwhile, so a few tries."""
        loop = self.loop
        if loop is None or loop.is_closed():
            return []
        for _ in range(5):
            try:
                tasks = list(asyncio.all_tasks(loop))
                break
            except RuntimeError:  # "Set changed size during iteration": tasks came or went
                continue
        else:
            return []
        try:
            return [(task, _await_chain(task)) for task in tasks]
        except Exception:  # never fail the stop (the reader thread) or the watchdog
            return []

    def _stuck_task_line(self, waiting):
        """The innermost learner line of the task the call is stuck on. A task that awaits other
        tasks (gather, wait, a TaskGroup) is stuck because of them: theirs is the line. Then the
        call's own task before others (a heartbeat task, say). None when every task with a
        learner line waits for the grader's answer."""
        lines = []
        for task, chain in waiting:
            line = self._learner_line(reversed(chain))
            if line is not None:
                is_call = bool(chain) and chain[0].f_code is Child.tracked.__code__
                lines.append((_awaits_tasks(task, chain), not is_call, line))
        return min(lines)[2] if lines else None

    def _wake_loop(self):
        """A loop idle in its selector runs no Python code, so the stop raised in the main thread
        would wait there forever: a no-op callback wakes the loop, and the stop ends the call."""
        loop = self.loop
        try:
            if loop is not None and loop.is_running():
                loop.call_soon_threadsafe(_nothing)
        except RuntimeError:  # closed meanwhile: the call is over anyway
            pass


_SANDBOX_FILE = Channel.ask.__code__.co_filename
_COROUTINE_TYPES = (types.CoroutineType, types.GeneratorType, types.AsyncGeneratorType)
# Awaiting other tasks: a task suspended in these (or awaiting a task or a gather) is not itself stuck.
_TASK_WAITS = {getattr(f, "__code__", None) for f in (
    getattr(asyncio.tasks, "wait", None), getattr(asyncio.tasks, "_wait", None),
    getattr(asyncio.tasks, "wait_for", None), getattr(getattr(asyncio, "TaskGroup", None), "__aexit__", None))} - {None}
_GATHERING = getattr(asyncio.tasks, "_GatheringFuture", ())


def _nothing():
    pass


def _while_loops(path):
    """line -> the first line of the innermost `while` loop holding it in the same function."""
    try:
        with tokenize.open(path) as source:
            tree = ast.parse(source.read())
    except (OSError, SyntaxError, ValueError):
        return {}
    found = {}

    def visit(node, header):
        for child in ast.iter_child_nodes(node):
            if not hasattr(child, "end_lineno"):
                continue
            lines = range(child.lineno, child.end_lineno + 1)
            if isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda, ast.ClassDef)):
                for line in lines:  # a scope of its own: not in the loop around its definition
                    found.pop(line, None)
                visit(child, None)
                continue
            inner = child.lineno if isinstance(child, ast.While) else header
            if inner is not None:
                found.update(dict.fromkeys(lines, inner))
            visit(child, inner)

    visit(tree, None)
    return found


def _outward(frame):
    """A thread's frames, innermost first."""
    while frame is not None:
        yield frame
        frame = frame.f_back


def _await_chain(task):
    """The frames of a task's coroutines awaiting one another, outermost first. Only the built-in
    coroutine and generator types are followed: nothing of the learner's runs in this thread."""
    chain, awaiting = [], task.get_coro()
    if isinstance(awaiting, types.CoroutineType) and inspect.getcoroutinestate(awaiting) == inspect.CORO_CREATED:
        return []  # not started: it waits for its turn, not anywhere in the learner's code
    while isinstance(awaiting, _COROUTINE_TYPES) and len(chain) < 1000:
        frame = getattr(awaiting, "cr_frame", None) or getattr(awaiting, "gi_frame", None) or \
            getattr(awaiting, "ag_frame", None)
        if frame is not None:
            chain.append(frame)
        awaiting = getattr(awaiting, "cr_await", None) or getattr(awaiting, "gi_yieldfrom", None) or \
            getattr(awaiting, "ag_await", None)
    return chain


def _awaits_tasks(task, chain):
    """The task waits on other tasks: it awaits a task or a gather, or is in asyncio.wait,
    wait_for or a TaskGroup's end."""
    waiter = getattr(task, "_fut_waiter", None)
    return (isinstance(waiter, (asyncio.Task, _GATHERING)) or any(f.f_code in _TASK_WAITS for f in chain))


# ---------------------------------------------------------------- packages whose bodies run on first use

# openai.types and its sub-packages re-export, in __init__ files that do nothing else, hundreds of
# pydantic models a graded run never touches: building them is half of `import openai`, which every
# child from day07 on pays before the learner's file has loaded. Their bodies run on first use instead.
LAZY_PACKAGES = ("openai.types",)


class LazyBodyFinder(importlib.abc.MetaPathFinder):
    """Finds a package under LAZY_PACKAGES as Python would, with a loader that leaves its body to
    the first name asked of it that it lacks: a submodule of that name is imported alone, any other
    name runs the body. As Python imports a module, under the package's import lock: two threads
    wait for one body, and a circular wait is Python's own (a partly run body, as in an import)."""

    def find_spec(self, fullname, path, target=None):
        if not any(fullname == name or fullname.startswith(name + ".") for name in LAZY_PACKAGES):
            return None
        spec = importlib.machinery.PathFinder.find_spec(fullname, path)
        if spec is not None and spec.submodule_search_locations is not None and \
                isinstance(spec.loader, importlib.machinery.SourceFileLoader):
            spec.loader = LazyBody(spec.loader)
        return spec


class LazyBody(importlib.abc.Loader):
    def __init__(self, loader):
        self.loader = loader
        self.ran = False

    def create_module(self, spec):
        return self.loader.create_module(spec)

    def exec_module(self, module):
        # Kept once the body has run: a sub-package that `import openai` would have imported (by
        # way of another), the learner may use without importing it; here it is imported then.
        module.__getattr__ = functools.partial(self.first_use, module)

    def first_use(self, module, name):
        if not name.startswith("__") and _has_submodule(module, name):
            return importlib.import_module(f"{module.__name__}.{name}")
        from importlib import _bootstrap  # Python's import locks: _ModuleLockManager, _DeadlockError
        try:
            with _bootstrap._ModuleLockManager(module.__name__):
                if not self.ran:
                    self.ran = True
                    self.loader.exec_module(module)
        except _bootstrap._DeadlockError:  # another thread runs the body and waits on this one
            pass
        try:
            return module.__dict__[name]
        except KeyError:
            raise AttributeError(f"module {module.__name__!r} has no attribute {name!r}") from None


def _has_submodule(module, name):
    try:
        return importlib.machinery.PathFinder.find_spec(f"{module.__name__}.{name}", module.__path__) is not None
    except (ImportError, ValueError):
        return False


class LessonTypeMissing(Exception):
    """The checks build a class (Tool, AgentStep, …) that the learner's file does not define."""


def install_mock_stubs(child):
    """The kit's `mock_llm` as the learner's file sees it: every way a template reaches the model
    (mock_llm.reply, mock_llm.http.openai_client) ends at the grader. Installed in sys.modules
    before the file loads, so no folder of the submission's can shadow it."""
    package = types.ModuleType("mock_llm")
    package.__path__ = []  # a package, so `import mock_llm.http` finds the submodule below
    package.reply = lambda lesson, payload: child.model_call(payload)
    http = types.ModuleType("mock_llm.http")
    http.openai_client = child.forwarding_client
    http.MOCK_BASE_URL = "http://grader.invalid/v1"
    package.http = http
    sys.modules.update({"mock_llm": package, "mock_llm.http": http})


def only_open(keep):
    """Close every descriptor but stdin, stdout, stderr (/dev/null) and `keep`, the grader's
    socket. A child forked warm is not exec'd, so it would keep what was open where it was made:
    the pipes by which the jail's pid 1 tells the launcher how the sandbox ended, say, which learner
    code could write to choose the exit status the grader reports."""
    os.closerange(3, keep)
    os.closerange(keep + 1, os.sysconf("SC_OPEN_MAX"))


def main(where, path):
    if not where.startswith("tcp:"):
        only_open(int(where))
    path = os.path.abspath(path)
    # The file's folder, for a module of the learner's next to it, but last: a student's file named
    # random.py or json.py must not stand in for the standard module that openai imports.
    sys.path[0:1] = []
    sys.path.append(os.path.dirname(path))
    warnings.filterwarnings("ignore", message="coroutine .* was never awaited")
    sys.meta_path.insert(0, LazyBodyFinder())
    child = None
    channel = Channel(where, on_stop=lambda: child.stop())

    def flood(printed):
        channel.send({"op": "flood", "stdout": printed})
        os._exit(0)

    output = CappedText(on_flood=flood)
    sys.stdout = sys.stderr = output
    child = Child(channel, path, output)
    request = channel.calls.get()
    try:
        child.running = True
        child.load(request)
    except SyntaxError as error:
        channel.send({"op": "import_failed", "stdout": output.text(), "error": {
            "type": type(error).__name__, "message": error.msg, "line": error.lineno,
            "text": (error.text or "").rstrip(), "traceback": ""}})
        return
    except BaseException as error:
        channel.send({"op": "import_failed", "stdout": output.text(), "error": describe(error, path)})
        return
    finally:
        child.running = False
    channel.send({"op": "ready"})
    while True:
        channel.send(child.call(channel.calls.get()))


# ---------------------------------------------------------------- a warm fork server

# The kit's modules a learner's file imports are stubs (install_mock_stubs): what they use instead.
STUBS_USE = {"mock_llm": (), "mock_llm.http": ("openai",)}


def serve(control_fd, grader, preload):
    """Be a fork server (forkserver.py): this file and `preload`, the modules the lesson's files
    import, are loaded once; each submission's child is a fork of this process. Requests are read
    by a spare fork, never here: the memory a child starts from holds no request, so no other
    student's file name. Tells the grader how its forks ended: "exited PID WAIT_STATUS"."""
    import signal

    import jailer
    jailer.die_with(grader, 0)
    for name in preload:
        for module in STUBS_USE.get(name, (name,)):
            try:
                importlib.import_module(module)
            except Exception:  # noqa: BLE001 -- not there, or not importable alone: the child will say
                pass
    control = socket.socket(fileno=control_fd)

    def reap(*_):
        while True:
            try:
                pid, status = os.waitpid(-1, os.WNOHANG)
            except ChildProcessError:
                return
            if pid == 0:
                return
            try:
                control.send(f"exited {pid} {status}".encode())
            except OSError:
                os._exit(0)  # the grader is gone

    signal.signal(signal.SIGCHLD, reap)
    while True:
        taken_r, taken_w = os.pipe()
        if os.fork() == 0:
            signal.signal(signal.SIGCHLD, signal.SIG_DFL)
            os.close(taken_r)
            _spare(control, taken_w, os.getppid())
        os.close(taken_w)
        taken = os.read(taken_r, 1)  # the spare took a request: fork the next one
        os.close(taken_r)
        if not taken:  # the spare found the grader gone
            os._exit(0)


def _spare(control, taken_w, server):
    """A fork waiting for the next request; it becomes the submission's launcher (jailer.py's A,
    or unjailed, the sandbox itself). Never returns."""
    import marshal

    import jailer
    jailer.die_with(server, 0)
    try:
        message, fds, _, _ = socket.recv_fds(control, 1 << 20, 1)
    except OSError:
        message, fds = b"", []
    if not message or len(fds) != 1:
        os._exit(0)  # the grader closed the connection: it is done
    os.write(taken_w, b"1")
    request = marshal.loads(message)
    os.setsid()  # a process group of its own, as Popen(start_new_session=True) makes one
    socket.send_fds(control, [f"started {request['id']} {os.getpid()}".encode()], [os.pidfd_open(os.getpid())])
    where = fds[0]
    control.detach()
    only_open(where)  # nothing of the server's stays open: the learner gets only its socket

    def run():
        sys.modules.pop("jailer", None)  # as in a sandbox started cold
        sys.argv = [sys.argv[0], str(where), request["path"]]
        status = 0
        try:
            main(str(where), request["path"])
        except BaseException:  # noqa: BLE001 -- as an uncaught exception ends an interpreter
            status = 1
        os._exit(status)

    if request.get("jail"):
        jailer.start(dict(request["jail"], fds=[where], grader=server, continue_with=run), probe=False)
    jailer.set_rlimits(request["limits"])
    run()


if __name__ == "__main__":
    if sys.argv[1] == "--serve":
        serve(int(sys.argv[2]), int(sys.argv[3]), sys.argv[4:])
    else:
        main(sys.argv[1], sys.argv[2])
