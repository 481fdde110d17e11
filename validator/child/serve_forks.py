"""The fork server's own side (the grader's is forkserver.py): a warm sandbox whose forks become
submissions' children. Started as `python sandbox.py --serve` (or, a class run's one warm
sandbox whose forks are its workers' servers, `--warm`), so that the sandbox is this
process's __main__, as it is in a child started cold; a fork runs it in place (sandbox.main).
"""
import gc
import importlib
import os
import socket
import sys

import __main__ as sandbox  # sandbox.py: this server is `python sandbox.py --serve`

# The kit's modules a learner's file imports are stubs (sandbox.install_mock_stubs): what they use instead.
STUBS_USE = {"mock_llm": (), "mock_llm.http": ("openai",)}


def serve(control_fd, grader, preload):
    """Be a fork server (forkserver.py): this file and `preload`, the modules the lesson's files
    import, are loaded once; each submission's child is a fork of this process. Requests are read
    by a spare fork, never here: the memory a child starts from holds no request, so no other
    student's file name. Tells the grader how its forks ended: "exited PID WAIT_STATUS"."""
    import launching
    launching.die_with(grader, 0)
    _import(preload)
    _serve(socket.socket(fileno=control_fd))


def warm(door_fd, run, preload):
    """Be a class run's warm sandbox (forkserver.WarmSandbox): `preload` is imported once, then for
    each control socket a worker hands in through `door_fd`, a fork of this process serves that
    worker as a fork server started cold would (serve). It never reads a request: its memory,
    and so every server's and child's, holds nothing of any student's."""
    import signal

    import launching
    launching.die_with(run, 0)
    _import(preload)
    door = socket.socket(fileno=door_fd)
    signal.signal(signal.SIGCHLD, _reap)  # the servers that end
    me = os.getpid()
    while True:
        try:
            message, fds, _, _ = socket.recv_fds(door, 16, 1)
        except OSError:
            message, fds = b"", []
        if not message:
            os._exit(0)  # the run and its workers are gone
        if len(fds) == 1 and os.fork() == 0:
            door.close()
            signal.signal(signal.SIGCHLD, signal.SIG_DFL)
            launching.die_with(me, 0)
            _serve(socket.socket(fileno=fds[0]))
        for fd in fds:
            os.close(fd)


def _reap(*_):
    """Wait for every child that has ended (not for any other)."""
    try:
        while os.waitpid(-1, os.WNOHANG)[0]:
            pass
    except ChildProcessError:
        pass


def _import(preload):
    import enter_jail  # noqa: F401 -- and, through it, what each launcher runs: imported once here
    import linux
    linux.libc()  # ctypes, loaded once too: 2 ms of each launcher's CPU
    sandbox.lazy_bodies()  # as in a child started cold, and the server is ready sooner
    for name in preload:
        for module in STUBS_USE.get(name, (name,)):
            try:
                importlib.import_module(module)
            except Exception:  # noqa: BLE001 -- not there, or not importable alone: the child will say
                pass
    if "openai" in sys.modules:
        try:
            _first_request()
        except Exception:  # noqa: BLE001 -- another openai than the kit's: each fork pays it, no more
            pass
    gc.collect()
    gc.freeze()  # what is loaded is never walked by a fork's collector, which would copy every page it touches


# A reply with a tool call, as the mock sends one: what a first request parses into.
CANNED_REPLY = {
    "id": "warm", "object": "chat.completion", "created": 0, "model": "warm",
    "choices": [{"index": 0, "finish_reason": "tool_calls", "message": {
        "role": "assistant", "content": "", "tool_calls": [
            {"id": "call_1", "type": "function", "function": {"name": "tool", "arguments": "{}"}}]}}],
    "usage": {"prompt_tokens": 1, "completion_tokens": 1, "total_tokens": 2}}


def _first_request():
    """One chat request through openai's client, answered here: the first one imports the client's
    chat resources and builds the models it sends and parses (~30 ms). Done once in the server,
    every fork starts past it. Its data is canned: no student's is ever in this process."""
    import httpx2
    transport = httpx2.MockTransport(lambda request: httpx2.Response(200, json=CANNED_REPLY))
    client = sandbox.openai_client_over(httpx2.Client(transport=transport))  # as a learner's file gets it
    turn = CANNED_REPLY["choices"][0]["message"]
    reply = client.chat.completions.create(
        model="warm", temperature=0, max_tokens=1,
        messages=[{"role": "user", "content": "warm"}, turn, {"role": "tool", "tool_call_id": "call_1", "content": "{}"}],
        tools=[{"type": "function", "function": {"name": "tool", "description": "warm",
                                                 "parameters": {"type": "object", "properties": {}}}}])
    reply.choices[0].message.model_dump(exclude_none=True)
    client.close()


def _serve(control):
    """Serve one grader on `control` until it closes it; never returns."""
    import signal

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
    """A fork waiting for the next request; it becomes the submission's launcher (enter_jail.py's A,
    or unjailed, the sandbox itself). Never returns."""
    import marshal

    import enter_jail
    import launching
    launching.die_with(server, 0)
    try:
        message, fds, _, _ = socket.recv_fds(control, 1 << 20, 1)
    except OSError:
        message, fds = b"", []
    if not message or len(fds) != 1:
        os._exit(0)  # the grader closed the connection: it is done
    os.write(taken_w, b"1")
    request = marshal.loads(message)
    try:
        os.sched_setaffinity(0, request["cpus"])  # the grader's: before the jail's forks, which inherit them
    except (KeyError, OSError, TypeError, ValueError):
        pass
    os.setsid()  # a process group of its own, as Popen(start_new_session=True) makes one
    socket.send_fds(control, [f"started {request['id']} {os.getpid()}".encode()], [os.pidfd_open(os.getpid())])
    where = fds[0]
    control.detach()
    sandbox.only_open(where)  # nothing of the server's stays open: the learner gets only its socket

    def run():
        for name in ("enter_jail", "isolate_by_user", "launching", "linux", "serve_forks"):  # as started cold
            sys.modules.pop(name, None)
        sys.argv = [sys.argv[0], str(where), request["path"]]
        status = 0
        try:
            sandbox.main(str(where), request["path"])
        except BaseException:  # noqa: BLE001 -- as an uncaught exception ends an interpreter
            status = 1
        os._exit(status)

    if request.get("jail"):
        enter_jail.start(dict(request["jail"], fds=[where], grader=server, continue_with=run), probe=False)
    launching.set_rlimits(request["limits"])
    run()
