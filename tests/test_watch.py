"""validate.py watch: grading again on every save, in a pipe and in a real terminal (tmux)."""
import os
import shutil
import subprocess
import sys
from pathlib import Path

import processes
import pytest
from terminal import tmux, wait_for

ROOT = Path(__file__).resolve().parent.parent
TEMPLATE = ROOT / "lessons" / "day06" / "day06.py"
SOLUTION = ROOT / "solutions" / "day06.py"
TODO = 'raise NotImplementedError("TODO 1.2: describe the tools")'
DONE = 'return "\\n".join(f"- {tool.name}: {tool.description}" for tool in tools)'

pytestmark = pytest.mark.slow


def environment(workspace: Path) -> dict:
    env = {k: v for k, v in os.environ.items() if k not in ("LANGUAGE", "LC_MESSAGES", "LANG")}
    env.update(LC_ALL="C.UTF-8", PYTHONIOENCODING="utf-8", REACTLINGS_WORKSPACE=str(workspace))
    return env


def test_in_a_pipe_each_save_gives_one_line_and_a_pass_moves_on(tmp_path):
    watch = subprocess.Popen([sys.executable, "validate.py", "watch", "day06"], cwd=ROOT,
                             env=environment(tmp_path), stdout=subprocess.PIPE, text=True)
    output = processes.Lines(watch.stdout)
    try:
        assert output.next().startswith("day06 0/")
        copy = tmp_path / "day06.py"
        copy.write_text(TEMPLATE.read_text(encoding="utf-8").replace(TODO, DONE), encoding="utf-8")
        # Saved in place: truncated, then written. A watcher woken in between grades the half-saved
        # file first (0 points) and the whole one next.
        graded, before = output.until(lambda line: not line.startswith("day06 0/"))
        assert graded.startswith("day06 2/"), before
        partial = tmp_path / "partial.tmp"  # as editors do: write elsewhere, then rename over it
        partial.write_text(SOLUTION.read_text(encoding="utf-8"), encoding="utf-8")
        partial.replace(copy)
        # The in-place save's last event may come late, and grade the same file once more.
        passed, before = output.until(lambda line: not line.startswith("day06 2/"))
        assert "every check passes" in passed, before
        assert "day07" in output.next()  # moving on
        assert output.next().startswith("day07 0/")
        assert (tmp_path / "day07.py").exists()
    finally:
        watch.kill()
        watch.wait(timeout=30)


@pytest.mark.skipif(shutil.which("tmux") is None, reason="needs tmux")
def test_in_a_terminal_h_shows_hints_and_q_quits(tmp_path):
    command = f"cd {ROOT} && {sys.executable} validate.py watch day06; echo WATCH-ENDED; sleep 30"
    with tmux(command, environment(tmp_path), "reactlings-watch") as session:
        wait_for(session, "score: 0/", "TODO 1.2", "not implemented yet", "h: a hint")
        subprocess.run(["tmux", "send-keys", "-t", session, "h"], check=True)
        wait_for(session, "• The model only knows the tools")
        (tmp_path / "day06.py").write_text(TEMPLATE.read_text(encoding="utf-8").replace(TODO, DONE),
                                           encoding="utf-8")
        wait_for(session, "score: 2/", "TODO 1.3")
        subprocess.run(["tmux", "send-keys", "-t", session, "q"], check=True)
        wait_for(session, "WATCH-ENDED")
