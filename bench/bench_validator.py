"""How long grading takes, as ratios to a bare `python -c pass` timed in the same run.

    python bench/bench_validator.py [--runs N]

Machines here are noisy, so every figure is a median of N runs and is printed next to the baseline
measured alongside it; compare ratios between runs, not seconds.
"""
from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
SOLUTION = ROOT / "solutions" / "day06.py"


def variant(folder: Path, name: str, old: str, new: str) -> Path:
    """The solution with one mistake put in: the submissions the validator must stop quickly."""
    text = SOLUTION.read_text(encoding="utf-8")
    assert old in text, f"{old!r} not in the solution"
    path = folder / f"{name}.py"
    path.write_text(text.replace(old, new), encoding="utf-8")
    return path


def median_seconds(command: list[str], runs: int) -> float:
    times = []
    for _ in range(runs):
        started = time.perf_counter()
        subprocess.run(command, cwd=ROOT, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        times.append(time.perf_counter() - started)
    return statistics.median(times)


def watch_save_to_result(runs: int) -> float:
    """`validate.py watch day06` in a pipe: the median time from writing the file to its result
    line, the template and a one-TODO variant in turn (a pass would move on to the next lesson)."""
    template = (ROOT / "lessons" / "day06" / "day06.py").read_text(encoding="utf-8")
    todo = 'raise NotImplementedError("TODO 1.2: describe the tools")'
    versions = [template.replace(todo, 'return "\\n".join(f"- {t.name}: {t.description}" for t in tools)'),
                template]
    with tempfile.TemporaryDirectory() as workspace:
        env = dict(os.environ, REACTLINGS_WORKSPACE=workspace)
        watch = subprocess.Popen([sys.executable, "validate.py", "watch", "day06"], cwd=ROOT, env=env,
                                 stdout=subprocess.PIPE, text=True)
        try:
            watch.stdout.readline()  # the first grading
            times = []
            for number in range(runs * 2):
                time.sleep(0.3)  # as a person would: the watcher is listening again
                started = time.perf_counter()
                Path(workspace, "day06.py").write_text(versions[number % 2], encoding="utf-8")
                watch.stdout.readline()
                times.append(time.perf_counter() - started)
        finally:
            watch.kill()
            watch.wait()
    return statistics.median(times)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=5)
    runs = parser.parse_args().runs
    grade = [sys.executable, "validate.py", "day06", "--file"]
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        cases = {
            "day06 reference solution": grade + [str(SOLUTION)],
            # The same unisolated: the difference is what the jail costs a submission (validator/jail.py).
            "day06 reference solution, no isolation": ["env", "REACTLINGS_SANDBOX=off"] + grade + [str(SOLUTION)],
            "day07 reference solution (openai client)": [sys.executable, "validate.py", "day07",
                                                         "--solution"],
            "untouched template": grade + [str(ROOT / "lessons" / "day06" / "day06.py")],
            "LLM-call loop, no max_steps": grade + [str(variant(
                folder, "no_limit", "for _ in range(max_steps):", "while True:"))],
            "CPU loop in react_agent (8 hangs)": grade + [str(variant(
                folder, "cpu_loop", "    steps: list[AgentStep] = []\n",
                "    steps: list[AgentStep] = []\n    while True:\n        pass\n"))],
            "CPU loop in the parser (hit by 12 checks)": grade + [str(variant(
                folder, "parser_loop", "def parse_react_response(response: str) -> tuple[str, str, str]:\n",
                "def parse_react_response(response: str) -> tuple[str, str, str]:\n    while True:\n        pass\n"))],
        }
        baseline = median_seconds([sys.executable, "-c", "pass"], runs * 2)
        print(f"baseline `python -c pass`: {baseline * 1000:.0f} ms (median of {runs * 2})")
        print(f"{'case':42} {'median':>9} {'× baseline':>11}")
        medians = {}
        for name, command in cases.items():
            medians[name] = seconds = median_seconds(command, runs)
            print(f"{name:42} {seconds:8.2f}s {seconds / baseline:10.1f}×")
        isolation = medians["day06 reference solution"] - medians["day06 reference solution, no isolation"]
        print(f"{'isolation, per submission':42} {isolation:+8.2f}s {isolation / baseline:+10.1f}×")
        seconds = watch_save_to_result(runs)
        print(f"{'watch: save -> result (warm process)':42} {seconds:8.2f}s {seconds / baseline:10.1f}×")


if __name__ == "__main__":
    main()
