"""The child process that runs a learner's file. Started by runner.py; never imported by the grader.

It imports the file, then serves requests from the grader over a socket, one JSON object per line:

    grader -> child   {"op": "call", "func": "react_agent", "args": [...]}
    child  -> grader  {"op": "llm", "prompt": "..."}        the learner's code called llm_call
    grader -> child   {"reply": "..."}   or {"refuse": why}: llm_call raises, the learner's loop unwinds
    child  -> grader  {"op": "http", "method": "POST", "path": "/v1/chat/completions", "body": "..."}
    grader -> child   {"status": 200, "body": {...}}            the learner's openai client called
    child  -> grader  {"op": "tool", "name": "Weather", "args": ["北京"], "kwargs": {}}
    grader -> child   {"output": "..."}  or   {"raise": "..."}
    child  -> grader  {"op": "done", "value": ..., "stdout": "..."}   or   {"op": "done", "error": {...}}
    child  -> grader  {"op": "flood", "stdout": "..."}   the code printed too much; the child exits
    child  -> grader  {"op": "stuck", "where": "..."}    on SIGUSR1: where a hanging call is stuck

The model and the tools answer from the grader's process, so the transcript and the score are kept
where the learner's code cannot reach them. Only JSON crosses: nothing the child sends is executed.
"""
import asyncio
import builtins
import dataclasses
import importlib.util
import inspect
import json
import os
import signal
import socket
import sys
import traceback
import warnings

class ModelRefused(BaseException):
    """The grader's model refused (call budget spent, endpoint down). A BaseException, so that the
    learner's `except Exception` does not swallow it and their loop unwinds."""


STDOUT_LIMIT = 4000  # characters of the learner's printing kept per call
FLOOD_LIMIT = 1_000_000  # characters printed in one call that end it: a print in an endless loop


class CappedText:
    """Stands in for sys.stdout/sys.stderr: keeps the first STDOUT_LIMIT characters, counts the rest."""

    def __init__(self, on_flood):
        self.on_flood = on_flood
        self.reset()

    def reset(self):
        self.kept, self.dropped = [], 0
        self.size = 0

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
    def __init__(self, fd):
        self.sock = socket.socket(fileno=fd)
        self.buffer = b""

    def send(self, message):
        self.sock.sendall(json.dumps(message).encode() + b"\n")  # ASCII: a lone surrogate survives

    def receive(self):
        while b"\n" not in self.buffer:
            chunk = self.sock.recv(65536)
            if not chunk:
                os._exit(0)  # the grader is gone
            self.buffer += chunk
        line, self.buffer = self.buffer.split(b"\n", 1)
        return json.loads(line)

    def ask(self, message):
        self.send(message)
        answer = self.receive()
        if "refuse" in answer:
            raise ModelRefused(answer["refuse"])
        return answer


def learner_frames(error, path):
    """The traceback of `error` cut down to the frames in the learner's file (plus the last frame)."""
    frames = traceback.extract_tb(error.__traceback__)
    keep = [f for f in frames if f.filename == path]
    if frames and frames[-1] not in keep and frames[-1].filename != __file__:
        keep.append(frames[-1])  # where it broke, in a library the learner called
    return "".join(traceback.format_list(keep))


def describe(error, path):
    return {"type": type(error).__name__, "message": str(error), "traceback": learner_frames(error, path)}


def encode(value, depth=0):
    """A learner's return value as JSON. Tuples, dataclasses and coroutines keep their kind."""
    if depth > 20:
        return {"$repr": "…", "$type": type(value).__name__}
    if value is None or isinstance(value, (bool, int, float, str)):
        return value
    if isinstance(value, tuple):
        return {"$tuple": [encode(v, depth + 1) for v in value]}
    if isinstance(value, list):
        return [encode(v, depth + 1) for v in value]
    if isinstance(value, dict):
        return {"$dict": [[encode(k, depth + 1), encode(v, depth + 1)] for k, v in value.items()]}
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        fields = {f.name: encode(getattr(value, f.name), depth + 1) for f in dataclasses.fields(value)}
        return {"$dataclass": type(value).__name__, "fields": fields}
    if inspect.iscoroutine(value):
        value.close()
        return {"$coroutine": value.__qualname__}
    return {"$repr": repr(value)[:300], "$type": type(value).__name__}


class Child:
    def __init__(self, channel, path):
        self.channel, self.path = channel, path
        self.module = None
        self.created = self.awaited = 0  # llm_call coroutines made / actually awaited

    def load(self):
        self.route_mock_to_grader()
        spec = importlib.util.spec_from_file_location("submission", self.path)
        self.module = importlib.util.module_from_spec(spec)
        sys.modules["submission"] = self.module
        spec.loader.exec_module(self.module)
        # The learner's own names for the model, replaced after import: llm_call is counted (a
        # missing await is then named), and an openai client made some other way still reaches us.
        if hasattr(self.module, "llm_call"):
            self.module.llm_call = self.llm_call
        if type(getattr(self.module, "client", None)).__module__.startswith("openai"):
            self.module.client = self.forwarding_client()

    def route_mock_to_grader(self):
        """Templates reach the kit's mock through mock_llm.reply and mock_llm.http.openai_client.
        Replaced before the learner's file loads, every path to the model, under whatever name the
        learner keeps it, ends at the grader's mock session."""
        import mock_llm
        import mock_llm.http
        mock_llm.reply = self.reply_via_grader
        mock_llm.http.openai_client = lambda *args, **kwargs: self.forwarding_client()

    def ask_model(self, prompt):
        """The grader's model's reply to a prompt (a non-str prompt is described, for the message)."""
        sent = prompt if isinstance(prompt, str) else {"$type": type(prompt).__name__,
                                                       "$repr": repr(prompt)[:300]}
        return self.channel.ask({"op": "llm", "prompt": sent})["reply"]

    def reply_via_grader(self, lesson, prompt):
        self.created += 1
        self.awaited += 1
        return self.ask_model(prompt)

    def llm_call(self, prompt, *args, **kwargs):
        # A plain function returning a coroutine, so a missing `await` can be counted and named.
        self.created += 1

        async def call():
            self.awaited += 1
            return self.ask_model(prompt)

        return call()

    def proxy_tool(self, name):
        def run(*args, **kwargs):
            answer = self.channel.ask({"op": "tool", "name": name, "args": [encode(a) for a in args],
                                       "kwargs": {k: encode(v) for k, v in kwargs.items()}})
            if "raise" in answer:  # the tool's own exception type, when it is a built-in one
                kind = getattr(builtins, str(answer.get("type")), None)
                usable = isinstance(kind, type) and issubclass(kind, Exception)
                raise (kind if usable else RuntimeError)(answer["raise"])
            return answer["output"]
        run.__name__ = name
        return run

    def decode(self, value):
        """Arguments from the grader that become the file's own objects: tools that call back into
        the grader ({"$tools": ...} as Tool objects, {"$registry": ...} as a name -> function dict),
        {"$steps": ...} as AgentStep objects, {"$completion": ...} as an openai ChatCompletion."""
        if isinstance(value, list):
            return [self.decode(v) for v in value]
        if not isinstance(value, dict):
            return value
        if "$tools" in value:
            return [self.module.Tool(t["name"], t["description"], self.proxy_tool(t["name"]))
                    for t in value["$tools"]]
        if "$registry" in value:
            return {name: self.proxy_tool(name) for name in value["$registry"]}
        if "$steps" in value:
            return [self.module.AgentStep(**step) for step in value["$steps"]]
        if "$completion" in value:
            from openai.types.chat import ChatCompletion
            return ChatCompletion.model_validate(value["$completion"])
        return value

    def forwarding_client(self):
        """An openai.OpenAI client whose every request is answered by the grader (the mock model, or
        the real endpoint in --live mode): the learner's code is what it would be for a provider."""
        import httpx2
        import openai

        def transport(request):
            answer = self.channel.ask({"op": "http", "method": request.method, "path": request.url.path,
                                       "body": request.content.decode("utf-8", "replace")})
            return httpx2.Response(answer["status"], json=answer["body"])

        return openai.OpenAI(api_key="graded-by-reactlings", base_url="http://grader.invalid/v1",
                             max_retries=0, http_client=httpx2.Client(transport=httpx2.MockTransport(transport)))

    def call(self, request, output):
        output.reset()
        self.created = self.awaited = 0
        try:
            function = getattr(self.module, request["func"], None)
            if not callable(function):
                return {"op": "done", "missing": request["func"], "stdout": "", "unawaited": 0}
            result = function(*self.decode(request["args"]))
            if inspect.iscoroutine(result) and result.__qualname__ != "Child.llm_call.<locals>.call":
                result = asyncio.run(result)
            reply = {"value": encode(result)}
        except ModelRefused as refused:
            reply = {"refused": str(refused)}
        except BaseException as error:  # SystemExit and KeyboardInterrupt are learner errors here
            reply = {"error": describe(error, self.path)}
        reply.update(op="done", stdout=output.text(), unawaited=self.created - self.awaited)
        return reply


def where_stuck(frame, path):
    """The learner's frames where the code is now: the interrupted stack, or, when asyncio's loop
    is waiting, the suspended coroutines of its tasks."""
    frames = traceback.extract_stack(frame)
    loop = asyncio._get_running_loop()
    for task in asyncio.all_tasks(loop) if loop else ():
        for suspended in task.get_stack():
            frames.extend(traceback.extract_stack(suspended, limit=1))
    mine = [f for f in frames if f.filename == path]
    unique = [f for i, f in enumerate(mine) if (f.lineno, f.name) not in {(g.lineno, g.name) for g in mine[:i]}]
    return "".join(traceback.format_list(unique))  # a running task's frame is on the stack too


def main():
    fd, path = int(sys.argv[1]), os.path.abspath(sys.argv[2])
    sys.path[0] = os.path.dirname(path)  # imports resolve as when the learner runs the file
    sys.path.insert(1, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))  # mock_llm
    warnings.filterwarnings("ignore", message="coroutine .* was never awaited")
    channel = Channel(fd)

    def flood(printed):
        channel.send({"op": "flood", "stdout": printed})
        os._exit(0)

    # Before it stops a call that hangs, the grader asks where it is stuck (SIGUSR1).
    signal.signal(signal.SIGUSR1, lambda signum, frame: channel.send(
        {"op": "stuck", "where": where_stuck(frame, path)}))
    output = CappedText(on_flood=flood)
    sys.stdout = sys.stderr = output
    child = Child(channel, path)
    try:
        child.load()
    except SyntaxError as error:
        channel.send({"op": "import_failed", "stdout": output.text(), "error": {
            "type": type(error).__name__, "message": error.msg, "line": error.lineno,
            "text": (error.text or "").rstrip(), "traceback": ""}})
        return
    except BaseException as error:
        channel.send({"op": "import_failed", "stdout": output.text(), "error": describe(error, path)})
        return
    channel.send({"op": "ready"})
    while True:
        channel.send(child.call(channel.receive(), output))


if __name__ == "__main__":
    main()
