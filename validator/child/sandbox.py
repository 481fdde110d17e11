"""The child process that runs a learner's file. Started by the grader's
child_process.py; never imported by the grader.

It needs only the files beside it in SANDBOX_FILES (validator/child/__init__.py): wire.py, the
messages; hangs.py, where a call that ran out of time is stuck; tracebacks.py, the learner's
errors. Messages, one JSON object per line (see wire.py):

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
                      and "left_running": 2, the threads the call started that still run (never joined)
                      and "ran_code": 14, the first line of the learner's file that ran text as code
                      (eval, exec: however reached, seen by an audit hook)
                      and "changed_args": [0], the arguments the call changed (asked with "watch": true)
    grader -> child   {"op": "stop"}         the call ran out of time: say where it is stuck, then end it
    child  -> grader  {"op": "stuck", "where": "...", "spot": [line]}
    child  -> grader  {"op": "flood", "stdout": "..."}   the code printed too much; the child exits

The model and the tools answer from the grader's process, so the transcript and the score are kept
where the learner's code cannot reach them. Only JSON crosses: nothing the child sends is executed.
A reader thread takes every message from the grader, so learner code may call the model or tools
from several threads or tasks at once: each request has an id and waits for its own answer.
"""
import asyncio
import builtins
import importlib
import importlib.util
import inspect
import itertools
import keyword
import linecache
import os
import queue
import random
import socket
import sys
import threading
import time
import traceback
import types
import warnings

from hangs import CallStopped, HangWatch  # the child's files sit next to each other
from lazy_packages import LazyBodyFinder
from tracebacks import describe
from wire import LineReader, dump, encode

STDOUT_LIMIT = 4000  # characters of the learner's printing kept per call
FLOOD_LIMIT = 1_000_000  # characters printed in one call that end it: a print in an endless loop
_sleep = time.sleep  # the real one, for this file's own waits: a lesson may replace time.sleep


class ModelRefused(BaseException):
    """The grader's model refused (call budget spent, endpoint down). A BaseException, so that the
    learner's `except Exception` does not swallow it and their loop unwinds."""


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


# Files of the standard library that make classes by exec (namedtuple's, a dataclass's methods)
CLASS_MAKERS = (os.path.join("collections", "__init__.py"), "dataclasses.py")


class Child(HangWatch):
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
        self.ran_code = None  # the call's first line of the learner's file that ran code from text

    # ------------------------------------------------------------ loading the file

    def load(self, request):
        install_mock_stubs(self)
        random.seed("reactlings:load")  # the same draws at every grading: a fork is reseeded from the OS
        if request.get("sleep_given"):
            time.sleep = self.graded_sleep  # before the file loads: `sleep=time.sleep` defaults take it
        check_encoding(self.path)
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

    def audit(self, event, args):
        """sys.addaudithook's hook: note the first line of the learner's file that runs code made
        from text during a call. eval() and exec() raise "exec" however the learner reached them
        (another name, getattr with a built string), and a function made from a code object
        (types.FunctionType(compile(…))) "function.__new__"; so does a library that evals text for
        the learner's code (typing.ForwardRef(text)._evaluate): the learner's nearest line on the
        stack is noted. The classes namedtuple and dataclasses make with exec are not code from
        text, nor is an import. Code in the learner's process can reach this hook's state: a check
        of what is written, not proof against a determined cheat."""
        if event in ("exec", "function.__new__") and self.running and self.ran_code is None:
            caller = sys._getframe(1)
            if caller.f_code.co_filename.endswith(CLASS_MAKERS) or caller.f_code.co_name == "_call_with_frames_removed":
                return
            while caller is not None and caller.f_code.co_filename != self.path:
                caller = caller.f_back
            if caller is not None:
                self.ran_code = caller.f_lineno

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

    def proxy_tool(self, name, params=None, doc=None):
        """The grader's tool `name` as a function here, with the tool's own parameters (`params`,
        see checking.with_signatures) and docstring."""
        def run(*args, **kwargs):
            answer = self.channel.ask({"op": "tool", "name": name, "args": [encode(a) for a in args],
                                       "kwargs": {str(k): encode(v) for k, v in kwargs.items()}})
            if "raise" in answer:  # the tool's own exception type, when it is a built-in one
                kind = getattr(builtins, str(answer.get("type")), None)
                usable = isinstance(kind, type) and issubclass(kind, Exception)
                raise (kind if usable else RuntimeError)(answer["raise"])
            return answer["output"]
        run.__name__ = run.__qualname__ = name
        run.__doc__ = doc if isinstance(doc, str) else None
        if params:
            empty = inspect.Parameter.empty
            run.__signature__ = inspect.Signature([inspect.Parameter(str(n), inspect._ParameterKind(int(kind)),
                                                                     default=default if has else empty)
                                                   for n, kind, has, default in params])
        return run

    def forwarding_client(self, *args, asynchronous: bool = False, **kwargs):
        """An openai client whose every request is answered by the grader (the mock model, or the
        real endpoint in --live mode): the learner's code is what it would be for a provider."""
        return openai_client_over(self.forwarding_http(asynchronous), asynchronous)

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
            return self.proxy_tool(str(value["$tool"]), value.get("params"), value.get("doc"))
        if "$dict" in value:
            return {self.build(k): self.build(v) for k, v in value["$dict"]}
        if "$tuple" in value:
            return tuple(self.build(v) for v in value["$tuple"])
        if "$function" in value:
            return made_function(value["$function"])
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
        before = set(threading.enumerate())
        self.output.reset()
        self.created = self.awaited = 0
        self.hang_spots = {int(spot[0]) for spot in request.get("hang_spots", [])}
        self.stopped = False
        self.slept = self.ran_code = given = replaced = None
        random.seed(f"reactlings:{request.get('call')}")  # the learner's random draws: the same report every run
        try:
            function = getattr(self.module, request["func"], None)
            if not callable(function):
                return {"op": "done", "call": request.get("call"), "missing": request["func"], "stdout": "",
                        "unawaited": 0}
            args = self.build(request["args"])
            given = [shape(arg) for arg in args] if request.get("watch") else None
            replaced = self.stand_in(request.get("stand_ins") or {})
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
            for name, own in (replaced or {}).items():
                setattr(self.module, name, own)
        if self.stopped:  # the learner's code caught the stop: it still ran out of time
            reply = {"stopped": True}
        elif self.slept is not None:  # even if the learner's code caught it: it asked for a real wait
            reply = {"real_sleep": encode(self.slept[0]), "traceback": self.slept[1]}
        learner_threads = [t for t in threading.enumerate()
                           if t is not threading.main_thread() and not t.name.startswith("reactlings-")]
        let_pools_end(learner_threads)
        reply.update(op="done", call=request.get("call"), stdout=self.output.text(),
                     unawaited=self.created - self.awaited,
                     clean=not (self.stopped and learner_threads),
                     left_running=len(working([t for t in learner_threads if t not in before])))
        if self.ran_code is not None:
            reply["ran_code"] = self.ran_code
        if given is not None:
            reply["changed_args"] = [n for n, (arg, was) in enumerate(zip(args, given)) if shape(arg) != was]
        return reply

    def stand_in(self, sources) -> dict:
        """Put the grader's stand-ins in place of the module's functions of their names, for this
        call: each source (the lesson's, not the learner's) defines the function, and reaches the
        learner's own as `learners`. The learner's, to put back afterwards, by name. A function
        the file lacks gets none: its callers fail as they would."""
        replaced = {}
        for name, source in sources.items():
            own = getattr(self.module, str(name), None)
            if not callable(own):
                continue
            namespace = {"learners": own}
            exec(compile(str(source), f"<the grader's {name}>", "exec"), namespace)
            replaced[name] = own
            setattr(self.module, name, namespace[name])
        return replaced

    async def tracked(self, coroutine):
        self.loop = asyncio.get_running_loop()
        return await coroutine


def shape(value, depth=0):
    """What a value holds, to tell whether a call changed an argument: containers by content,
    objects by identity and their attributes, numbers and text by value."""
    if depth > 12:
        return "…"
    if isinstance(value, dict):
        return "dict", tuple((repr(key), shape(item, depth + 1)) for key, item in value.items())
    if isinstance(value, (list, tuple, set)):
        return type(value).__name__, tuple(shape(item, depth + 1) for item in value)
    if value is None or isinstance(value, (bool, int, float, str, bytes)):
        return repr(value)
    attributes = getattr(value, "__dict__", None)
    return id(value), shape(dict(attributes), depth + 1) if isinstance(attributes, dict) else None


PARAMETER_TYPES = {"integer": int, "number": float, "string": str, "boolean": bool, "array": list, "object": dict}


def made_function(spec):
    """A function with the name, parameters (annotated, the optional ones with a default) and
    docstring the grader gives, defined from source as a file's would be (inspect.getsource finds
    it): one the learner's describe_tool has never seen. Calling it raises."""
    names = [spec["name"], *(param[0] for param in spec["params"])]
    if not all(isinstance(n, str) and n.isidentifier() and not keyword.iskeyword(n) for n in names):
        raise ValueError(f"not a function the grader may make: {names}")
    namespace = {"__name__": "described", **{kind.__name__: kind for kind in PARAMETER_TYPES.values()}}
    params = []
    for number, (name, kind, optional, default) in enumerate(spec["params"]):
        params.append(f"{name}: {PARAMETER_TYPES[kind].__name__}" + (f" = _default{number}" if optional else ""))
        namespace[f"_default{number}"] = default
    body = [f"    {spec['doc']!r}"] if spec.get("doc") is not None else []
    source = "\n".join([f"def {spec['name']}({', '.join(params)}) -> str:", *body,
                        "    raise NotImplementedError('a function to describe, not to call')", ""])
    filename = f"<described {spec['name']}>"
    linecache.cache[filename] = (len(source), None, source.splitlines(True), filename)
    exec(compile(source, filename, "exec"), namespace)
    return namespace[spec["name"]]


def check_encoding(path):
    """`python file.py` refuses a file whose bytes don't decode as its declared encoding (UTF-8
    unless a BOM or a `# coding:` line says otherwise); the importer lets bad bytes in a comment
    through. The learner's file is graded as it runs: the same SyntaxError."""
    with open(path, "rb") as file:
        source = file.read()
    try:
        importlib.util.decode_source(source)
    except UnicodeDecodeError as error:
        line = source[:error.start].count(b"\n") + 1
        declared = error.encoding.replace("-", "").lower() != "utf8" or source.startswith(b"\xef\xbb\xbf")
        message = (f"{error.reason} in {error.encoding} on line {line}" if declared else
                   f"Non-UTF-8 code starting with '\\x{source[error.start]:02x}' on line {line}, but no "
                   "encoding declared; see https://peps.python.org/pep-0263/ for details")
        raise SyntaxError(message, (path, line, 1, None)) from None


def let_pools_end(threads, within=2.0):
    """Wait, `within` seconds at most, for the idle workers of thread pools that were shut down
    (shutdown(wait=False), or the pool dropped) to end, as each does once it runs: on a busy
    machine they may not have yet, and a file that makes a pool per call would outgrow the jail's
    threads (PROCESSES) by the next call, "can't start new thread", on some runs only."""
    ending = []
    for thread, frame in idle_pool_workers(threads).items():
        reference = frame.f_locals.get("executor_reference")
        executor = reference() if callable(reference) else None
        if executor is None or getattr(executor, "_shutdown", False):
            ending.append(thread)
    deadline = time.monotonic() + within
    for thread in ending:
        thread.join(max(0.0, deadline - time.monotonic()))


def working(threads):
    """Those of `threads` that run something: all but a thread pool's idle workers, which wait
    for work in the pool's own loop (a pool kept between calls is no work left running)."""
    idle = idle_pool_workers(threads)
    return [t for t in threads if t.is_alive() and t not in idle]


def idle_pool_workers(threads) -> dict:
    """Those of `threads` that are a thread pool's idle workers, each with its frame: waiting for
    work in the pool's own loop (concurrent.futures.thread's _worker)."""
    pool = sys.modules.get("concurrent.futures.thread")
    waiting = getattr(getattr(pool, "_worker", None), "__code__", None)
    frames = sys._current_frames()
    return {t: frames[t.ident] for t in threads
            if waiting is not None and t.ident in frames and frames[t.ident].f_code is waiting}


GRADER_URL = "http://grader.invalid/v1"  # never reached: the http client hands every request to the grader


def openai_client_over(http_client, asynchronous: bool = False):
    """The openai client a learner's file is given, its requests made through `http_client`: the
    grader's (Child.forwarding_http), or a warm sandbox's canned one (serve_forks)."""
    import openai

    kind = openai.AsyncOpenAI if asynchronous else openai.OpenAI
    return kind(api_key="graded-by-reactlings", base_url=GRADER_URL, max_retries=0, http_client=http_client)


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
    http.MOCK_BASE_URL = GRADER_URL
    package.http = http
    sys.modules.update({"mock_llm": package, "mock_llm.http": http})


def only_open(keep):
    """Close every descriptor but stdin, stdout, stderr (/dev/null) and `keep`, the grader's
    socket. A child forked warm is not exec'd, so it would keep what was open where it was made:
    the pipes by which the jail's pid 1 tells the launcher how the sandbox ended, say, which learner
    code could write to choose the exit status the grader reports."""
    os.closerange(3, keep)
    os.closerange(keep + 1, os.sysconf("SC_OPEN_MAX"))


def lazy_bodies():
    """Packages' bodies run on first use from now on (lazy_packages.py); once per process: a fork
    server's children are forks of one that did it already."""
    if not any(isinstance(finder, LazyBodyFinder) for finder in sys.meta_path):
        sys.meta_path.insert(0, LazyBodyFinder())


def main(where, path):
    if not where.startswith("tcp:"):
        only_open(int(where))
    path = os.path.abspath(path)
    # The file's folder, for a module of the learner's next to it, but last: a student's file named
    # random.py or json.py must not stand in for the standard module that openai imports.
    sys.path[0:1] = []
    sys.path.append(os.path.dirname(path))
    warnings.filterwarnings("ignore", message="coroutine .* was never awaited")
    lazy_bodies()
    child = None
    channel = Channel(where, on_stop=lambda: child.stop())

    def flood(printed):
        channel.send({"op": "flood", "stdout": printed})
        os._exit(0)

    output = CappedText(on_flood=flood)
    sys.stdout = sys.stderr = output
    child = Child(channel, path, output)
    sys.addaudithook(child.audit)  # in this process only (a fork server's children each add their own)
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


if __name__ == "__main__":
    if sys.argv[1] in ("--serve", "--warm"):  # a fork server (forkserver.py): serve_forks.py, beside this file
        import serve_forks
        (serve_forks.serve if sys.argv[1] == "--serve" else serve_forks.warm)(
            int(sys.argv[2]), int(sys.argv[3]), sys.argv[4:])
    else:
        main(sys.argv[1], sys.argv[2])
