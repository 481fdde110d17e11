"""The learner's terminal: Ctrl-C pressed in each long-running command, in a real terminal (tmux)."""
import os
import re
import shutil
import subprocess
import sys
import time
from pathlib import Path

import pytest

import processes
from terminal import tmux, wait_for

ROOT = Path(__file__).resolve().parent.parent
TEMPLATE = ROOT / "lessons" / "day06" / "day06.py"


def environment(workspace: Path) -> dict:
    env = {k: v for k, v in os.environ.items() if k not in ("LANGUAGE", "LC_MESSAGES", "LANG")}
    env.update(LC_ALL="C.UTF-8", PYTHONIOENCODING="utf-8", REACTLINGS_WORKSPACE=str(workspace))
    return env


def hanging_day06(path: Path) -> Path:
    """day06's exercise with each TODO an endless loop at a line of its own: grading it takes
    each check's time limit in turn, a while."""
    lines = iter(range(1, 100))
    text = re.sub(r'( *)raise NotImplementedError\("TODO [^"]*"\)',
                  lambda m: f"{m.group(1)}while True:  # hang {next(lines)}\n{m.group(1)}    pass",
                  TEMPLATE.read_text(encoding="utf-8"))
    path.write_text(text, encoding="utf-8")
    return path


def wait_until_graded(path: Path, seconds: float = 30) -> set[int]:
    """Until the child that runs the file is there, the grading under way: its pids."""
    deadline = time.monotonic() + seconds
    while not (children := set(processes.living(str(path))) & set(processes.living("sandbox.py"))):
        assert time.monotonic() < deadline, f"no child ever ran {path}"
        time.sleep(0.1)
    return children


@pytest.mark.slow
@pytest.mark.skipif(shutil.which("tmux") is None, reason="needs tmux")
@pytest.mark.parametrize("command", ["grade a lesson", "hint", "watch, grading", "watch, waiting", "mock server"])
def test_ctrl_c_is_one_line_and_exit_130(tmp_path, command):
    """Never a traceback, never "the checks could not run": "stopped", and the shell's status for
    Ctrl-C (128 + SIGINT), as `grade` ends."""
    copy = tmp_path / "day06.py"
    if command == "watch, waiting":
        shutil.copyfile(TEMPLATE, copy)
    else:
        hanging_day06(copy)
    line = {"grade a lesson": f"validate.py day06 --file {copy}", "hint": "validate.py hint day06",
            "watch, grading": "validate.py watch day06", "watch, waiting": "validate.py watch day06",
            "mock server": "-m mock_llm serve --port 0"}[command]
    shell = f"cd {ROOT} && {sys.executable} {line}; echo EXIT-STATUS $?; sleep 60"
    children = set()
    with tmux(shell, environment(tmp_path), "reactlings-ctrl-c") as session:
        if command == "mock server":
            wait_for(session, "mock LLM for day07")
        elif command == "watch, waiting":
            wait_for(session, "score: 0/", seconds=60)
        else:
            children = wait_until_graded(copy)
        subprocess.run(["tmux", "send-keys", "-t", session, "C-c"], check=True)
        screen = wait_for(session, "EXIT-STATUS", seconds=30)
        assert all(processes.gone(pid) for pid in children), "the child that ran the file outlived the command"
    assert "EXIT-STATUS 130" in screen, screen
    assert "Traceback" not in screen and "could not run" not in screen, screen
    said = screen.split("EXIT-STATUS")[0].rstrip().splitlines()[-1]
    assert said.replace("^C", "") == "stopped", screen
