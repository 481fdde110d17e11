"""A real terminal for the tests that need one: a command run in a tmux session, its screen read
back (capture-pane) until something appears, with a deadline on every wait."""
from __future__ import annotations

import contextlib
import os
import subprocess
import time


def pane(session: str) -> str:
    return subprocess.run(["tmux", "capture-pane", "-p", "-t", session], capture_output=True,
                          text=True).stdout


def wait_for(session: str, *texts: str, seconds: float = 20) -> str:
    """The screen once every one of `texts` is on it: a screen is drawn a piece at a time, and a
    busy machine may show the first piece long before the last."""
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        shown = pane(session)
        if all(text in shown for text in texts):
            return shown
        time.sleep(0.1)
    raise AssertionError(f"{texts!r} never all appeared; the screen:\n{pane(session)}")


@contextlib.contextmanager
def tmux(command: str, env: dict, name: str = "reactlings"):
    """`command` (a shell line) running in a new 100×40 tmux session; the session's name."""
    session = f"{name}-{os.getpid()}-{time.monotonic_ns()}"
    subprocess.run(["tmux", "new-session", "-d", "-s", session, "-x", "100", "-y", "40", command],
                   env=env, check=True)
    try:
        yield session
    finally:
        subprocess.run(["tmux", "kill-session", "-t", session], capture_output=True)
