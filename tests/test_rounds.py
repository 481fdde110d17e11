"""day11's rounds of tool calls (lessons/day11/tools.py): a barrier tells calls made side by side
from calls made one after another by how many were held together, never by a clock."""
import os
import select
import subprocess
import sys
import threading
import time

import pytest
from processes import Lines

from mock_llm import load_world
from validator.outcomes import Problem

Round = load_world("day11").module.Round


def run_in_threads(held, workers: int, calls: int) -> None:
    """`calls` calls through `workers` threads, each making its share one after another."""
    def work(share):
        for n in share:
            held.call("get_news", f"T{n}", 0.1 + n / 100)
    threads = [threading.Thread(target=work, args=(range(w, calls, workers),)) for w in range(workers)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=30)
    assert not any(thread.is_alive() for thread in threads)


def test_calls_made_side_by_side_are_held_together():
    held = Round(10)
    run_in_threads(held, workers=10, calls=10)
    assert held.peak == 10 and len(held.calls) == 10


def test_calls_made_one_after_another_are_held_one_at_a_time():
    held = Round(10)
    run_in_threads(held, workers=1, calls=10)
    assert held.peak == 1 and len(held.calls) == 10
    assert held.serial() == round(sum(0.1 + n / 100 for n in range(10)), 1)  # the waits as set


def test_a_pool_of_two_is_held_two_at_a_time():
    held = Round(10)
    run_in_threads(held, workers=2, calls=10)
    assert held.peak == 2 and len(held.calls) == 10



def test_a_pool_wide_enough_settles_the_round_without_the_grace_period(monkeypatch):
    """asyncio.to_thread's default pool: six threads for ten calls. Once `enough` calls are held
    and none is on its way (every thread of the pool waits here), the round settles then, not
    after the grace period (made a minute here: a round that waited for it would fail the join);
    a pool narrower than `enough` still waits it out."""
    module = load_world("day11").module
    monkeypatch.setattr(module, "GRACE", 60.0)
    held = Round(10, idle=lambda: len(held.held) >= 6, enough=5)  # idle: all six threads hold a call
    run_in_threads(held, workers=6, calls=10)
    assert held.peak == 6 and len(held.calls) == 10
    monkeypatch.setattr(module, "GRACE", 0.05)
    narrow = Round(10, idle=lambda: True, enough=5)
    run_in_threads(narrow, workers=2, calls=10)
    assert narrow.peak == 2


def test_the_wait_for_the_first_call_does_not_stretch_the_grace_period(monkeypatch):
    """The grace period grows with the gaps between the calls that came; the time before the first
    (an agent's model turn, the learner's imports) is no gap: a round opened long before its first
    call still waits only its grace period for a second one."""
    module = load_world("day11").module
    monkeypatch.setattr(module, "GRACE", 0.05)
    held = Round(2, idle=lambda: True)
    held.last -= 600  # opened ten minutes ago: stretched by that wait, the round would outlast the join
    only = threading.Thread(target=held.call, args=("get_news", "T1", 0.1), daemon=True)
    only.start()
    only.join(timeout=30)
    assert not only.is_alive() and held.peak == 1 and held.grace == module.GRACE


class LearnerAtRest:
    """A world whose learner's process is idle once `threads` calls are held (its pool's width)."""

    def __init__(self, threads: int):
        self.threads, self.rounds = threads, None

    def learner_idle(self):
        return len(self.rounds.current.held) >= self.threads

    def learner_unanswered(self):
        return 0


def test_a_function_that_waited_out_its_grace_period_waits_it_no_more(monkeypatch):
    """A pool of two: its first round holds two calls and waits out the grace period. Its code runs
    two calls at most at once, so its next round settles once two are held and none is on its way
    (the grace period made a minute: a round that waited it would fail the join), still two
    together. Another function of the same file has its own first round, with the grace period."""
    module = load_world("day11").module
    world = LearnerAtRest(threads=2)
    world.rounds = module.Rounds(world)
    monkeypatch.setattr(module, "GRACE", 0.05)
    first = world.rounds.open(10, enough=5, func="run_calls")
    run_in_threads(first, workers=2, calls=10)
    assert first.peak == 2 and first.waited_grace
    monkeypatch.setattr(module, "GRACE", 60.0)
    again = world.rounds.open(10, enough=5, func="run_calls")
    run_in_threads(again, workers=2, calls=10)
    assert again.peak == 2 and len(again.calls) == 10
    assert world.rounds.open(10, enough=5, func="screen").enough == 5
    assert world.rounds.open(10, enough=5, func="run_calls").enough == 2


def test_a_call_still_on_its_way_is_waited_for_while_the_learners_process_is_busy():
    """A thread that has not made its call yet, on a machine too busy to run it soon: the process is
    not idle (that thread is running or ready to run), so the round waits for it, past the grace."""
    module = load_world("day11").module
    second_made = threading.Event()
    held = Round(2, idle=second_made.is_set)  # busy until the second call is made
    first = threading.Thread(target=held.call, args=("get_news", "T1", 0.1))
    first.start()
    assert not second_made.wait(timeout=module.GRACE * module.STRETCH)  # long past the grace period
    second_made.set()
    held.call("get_news", "T2", 0.2)
    first.join(timeout=30)
    assert not first.is_alive() and held.peak == 2


def test_a_process_that_never_idles_settles_the_round_at_the_longest_wait(monkeypatch):
    module = load_world("day11").module
    monkeypatch.setattr(module, "LONGEST", 0.3)
    held = Round(2, idle=lambda: False)  # a spin: never idle, and no second call
    held.call("get_news", "T1", 0.1)
    assert held.peak == 1


def test_a_sleeping_process_is_idle_and_a_spinning_one_is_not():
    import subprocess
    import sys

    from validator.grading import busy
    sleeper = subprocess.Popen([sys.executable, "-c", "import time; print('ready', flush=True); time.sleep(60)"],
                               stdout=subprocess.PIPE, text=True)
    spinner = subprocess.Popen([sys.executable, "-c", "print('ready', flush=True)\nwhile True: pass"],
                               stdout=subprocess.PIPE, text=True)
    try:
        assert Lines(sleeper.stdout).next() == Lines(spinner.stdout).next() == "ready\n"  # each within a deadline
        deadline = time.monotonic() + 30
        while not busy.idle(sleeper.pid) and time.monotonic() < deadline:  # it may still be printing
            time.sleep(0.01)
        assert busy.idle(sleeper.pid)
        assert not any(busy.idle(spinner.pid) for _ in range(20))
    finally:
        for process in (sleeper, spinner):
            process.kill()
            process.wait(timeout=30)


def test_a_held_call_ends_only_once_the_answer_before_it_is_taken(monkeypatch):
    """The calls held together end in the order of their waits, each once the learner's code has
    taken the answer before it (its process idle again, no answer but the held ones on its way):
    the order the answers reach the learner's code is the round's own, not a race."""
    module = load_world("day11").module
    monkeypatch.setattr(module, "TAKE_LONGEST", 60)  # only the learner's code taking the answer lets it go
    taken, ended = threading.Event(), []
    held = Round(2, idle=taken.is_set, unanswered=lambda: 2 - len(ended))

    def call(ticker, wait):
        held.call("get_news", ticker, wait)
        ended.append(ticker)
    slow = threading.Thread(target=call, args=("SLOW", 0.3))
    slow.start()
    call("FAST", 0.1)  # the shorter wait: ends first, at once
    slow.join(timeout=0.5)
    assert slow.is_alive() and ended == ["FAST"]  # its answer not taken yet: the next one is held
    taken.set()
    slow.join(timeout=30)
    assert not slow.is_alive() and ended == ["FAST", "SLOW"] and held.peak == 2


def test_a_process_is_idle_only_if_two_looks_find_it_at_rest_and_the_same(monkeypatch):
    """One look reads the threads one after another: a thread seen blocked may run before the last
    is read, and the thread it hands the GIL over to is then seen blocked too. A second look finds
    the first thread's run time moved on."""
    from validator.grading import busy
    looks = iter([{"/proc/1/task/1": "500", "/proc/1/task/2": "700"}, {"/proc/1/task/1": "650", "/proc/1/task/2": "700"}])
    monkeypatch.setattr(busy, "_descendants", lambda pid, read: [])
    monkeypatch.setattr(busy, "_at_rest", lambda threads, read: next(looks))
    assert not busy.idle(1)  # thread 1 ran between the looks
    looks = iter([{"/proc/1/task/1": "500"}, {"/proc/1/task/1": "500"}])
    assert busy.idle(1)
    looks = iter([None])
    assert not busy.idle(1)  # a thread running or ready to run at the first look


def test_a_file_of_proc_is_read_whole_however_long(tmp_path):
    """busy reads /proc by os.read, in 64 KiB reads: a longer file (a long list of children) is
    read to its end."""
    from validator.grading import busy
    long = tmp_path / "long"
    long.write_text("7" * 200_000, encoding="ascii")
    assert busy._read(str(long)) == "7" * 200_000
    files = busy.OpenFiles()
    assert files.read(str(long)) == "7" * 200_000 == files.read(str(long))  # read again from its start
    files.close()


@pytest.mark.skipif(not os.path.isdir("/proc/self/task"), reason="Linux's /proc")
def test_a_childs_proc_files_are_kept_open_between_looks_and_closed_with_their_threads():
    """busy.OpenFiles: a look reads each thread's files again from their start, so it sees them as
    they are now; a look that finds the child idle closes the files of threads that ended; close()
    closes the rest."""
    from validator.grading import busy
    code = ("import sys, threading\n"
            "go, end = threading.Event(), threading.Event()\n"
            "workers = [threading.Thread(target=end.wait) for _ in range(4)]\n"
            "[w.start() for w in workers]\n"
            "print('started', flush=True)\n"
            "sys.stdin.readline(); end.set(); [w.join() for w in workers]\n"
            "print('ended', flush=True)\n"
            "sys.stdin.readline()\n"
            "while True: pass\n")
    child = subprocess.Popen([sys.executable, "-c", code], stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
    files = busy.OpenFiles()
    try:
        assert child.stdout.readline() == "started\n"
        deadline = time.monotonic() + 30
        while not busy.idle(child.pid, files) and time.monotonic() < deadline:
            time.sleep(0.01)
        kept = dict(files.open)
        assert len(kept) >= 2 * 5  # the stat and schedstat of the main thread and the four workers
        child.stdin.write("\n")
        child.stdin.flush()
        assert child.stdout.readline() == "ended\n"
        while not busy.idle(child.pid, files) and time.monotonic() < deadline:
            time.sleep(0.01)
        assert busy.idle(child.pid, files)
        assert set(files.open) < set(kept)  # the workers' files are closed; the main thread's kept
        assert all(files.open[path] == kept[path] for path in files.open)  # and read again, not reopened
        child.stdin.write("\n")
        child.stdin.flush()  # now it spins: a file kept open shows it running
        assert not any(busy.idle(child.pid, files) for _ in range(20))
    finally:
        child.kill()
        child.wait()
        files.close()
    assert files.open == {}


def test_a_call_read_by_the_grader_but_not_yet_held_is_waited_for():
    """The learner's process idle, but the grader has read two calls and only one is at the barrier
    (the other waits for a thread to run it, on a busy machine): the round waits for it, past the
    grace period, and holds the two together."""
    module = load_world("day11").module
    second_held = threading.Event()
    held = Round(2, idle=lambda: True, unanswered=lambda: 2)
    first = threading.Thread(target=held.call, args=("get_news", "T1", 0.1))
    first.start()
    assert not second_held.wait(timeout=module.GRACE * module.STRETCH)  # long past the grace period
    assert held.together is None  # not settled
    second_held.set()
    held.call("get_news", "T2", 0.2)
    first.join(timeout=30)
    assert not first.is_alive() and held.peak == 2


def test_a_tool_call_the_grader_has_not_started_is_on_its_way():
    """Submission.idle asks all_received: a tool call the child sent is on its way while it is in
    the socket, read but waiting, or taken by the grader until its next message is asked for (by
    then the call has started, and counts as unanswered)."""
    import socket
    from pathlib import Path

    from validator.child.wire import dump
    from validator.grading.child_process import ChildProcess
    ours, theirs = socket.socketpair()
    child = ChildProcess(Path("day11.py"))
    child._connected(ours)
    try:
        assert child.all_received()
        theirs.sendall(dump({"op": "tool", "id": 1, "name": "get_news", "args": ["AAPL"]}))
        deadline = time.monotonic() + 30
        while not select.select([ours], [], [], 0)[0] and time.monotonic() < deadline:
            time.sleep(0.01)
        assert not child.all_received()  # in the socket
        theirs.sendall(dump({"op": "tool", "id": 2, "name": "get_news", "args": ["NVDA"]}))
        assert child._receive(time.monotonic() + 30)["id"] == 1
        assert not child.all_received()  # the first taken, not started; the second read or unread
        assert child._receive(time.monotonic() + 30)["id"] == 2
        assert not child.all_received()  # taken, not started
        assert child._receive(time.monotonic() + 0.01).problem is Problem.HANG  # nothing more: asked for the next
        assert child.all_received()
    finally:
        ours.close()
        theirs.close()


@pytest.mark.slow
def test_a_grader_slow_to_read_the_calls_still_holds_side_by_side_calls_together(monkeypatch):
    """The grader's reading of the child's messages kept off the CPU for longer than the grace
    period, every third one after a tool call (as a loaded machine may): the learner's process is
    idle, its ten calls sent, but the grader has read only some. A file that makes its calls side by
    side keeps full marks; one that makes them one after another still loses the same checks."""
    from pathlib import Path

    from validator.grading import child_process
    from validator.grading.grade import grade
    from validator.lessons import load_lesson
    receive, taken = child_process.ChildProcess._receive, {"tool calls": 0}

    def slow_receive(self, deadline):
        if self.taken_tool_call:
            taken["tool calls"] += 1
            if taken["tool calls"] % 3 == 0:
                time.sleep(0.4)
        return receive(self, deadline)

    monkeypatch.setattr(child_process.ChildProcess, "_receive", slow_receive)
    lesson, corpus = load_lesson("day11"), Path(__file__).parent / "submissions" / "day11"
    side_by_side = grade(lesson, corpus / "good_threads_by_id.py")
    assert side_by_side.score == side_by_side.max_score
    one_after_another = grade(lesson, corpus / "bad_one_after_another.py")
    assert [c.name for c in one_after_another.checks if not c.passed] == [
        "test_ten_calls_at_once", "test_agent_runs_them_at_once", "test_screen_runs_them_at_once"]
