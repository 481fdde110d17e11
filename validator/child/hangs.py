"""A call that runs out of time, in the child: where the learner's code is stuck, and a watchdog
that knows a hang seen before and ends it at once. Part of the sandbox (sandbox.Child is a
HangWatch), beside it in the jail.

Where code is stuck is read from outside it, by the reader thread (a stop) or the watchdog's
thread: every thread's stack, and the await chains of the running call's asyncio tasks. A line
where the code waits for the grader's answer (a model, http or tool request) is never "stuck".
"""
import ast
import asyncio
import ctypes
import inspect
import linecache
import sys
import threading
import time
import tokenize
import traceback
import types

SPOT_SAMPLES = 8  # a later call seen this many times in a row (every 15 ms) at a line where an
SAMPLE_EVERY = 0.015  # earlier call hung is hung again: ended at once, not after the full limit
_sleep = time.sleep  # the real one, for this file's own waits: a lesson may replace time.sleep


class CallStopped(BaseException):
    """Raised in the learner's running call when the grader stops it (it ran out of time)."""


class HangWatch:
    """The stop and the watchdog of sandbox.Child, which this reads the state of: channel, path,
    running, stopped, hang_spots, loop, loops, and tracked, the coroutine an async call runs in."""

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
        asking, kit = self.channel.ask.__code__, self.tracked.__code__.co_filename  # sandbox.py's
        for frame in frames:
            code = frame.f_code
            if code.co_filename == self.path:
                return frame.f_lineno
            if code is asking or (code.co_filename == kit and code.co_flags & inspect.CO_COROUTINE):
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
                is_call = bool(chain) and chain[0].f_code is self.tracked.__code__
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
