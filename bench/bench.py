"""How long grading takes, in one table: every figure a ratio to a bare `python -c pass` timed in
the same run (machines here are noisy: compare ratios between runs, not seconds).

    python bench/bench.py [--runs 3] [--sample N] [--lessons day06 day11] [--no-corpus] [--class-only]

Per lesson: the reference solution and the untouched template graded by `validate.py dayNN`
(median of --runs), and the slowest file of its corpus (tests/submissions/, each graded once).
Then `watch`'s save -> result, peak memory (the one-shot grader and the child that runs the
learner's file), and the class throughput of day06, day07 and day11: `validate.py grade` on 40
and on 200 students against one `validate.py --file` per student, each of whose reports must be
identical (every one of the 40, an even sample of 40 of the 200; --sample N times N instead), the
same run again with nothing changed (the bookkeeping of a resumed run), and the largest process
of a class run (a worker). A class is the lesson's corpus, each file under several names, but for
its files that hang: a hang costs its time limit graded alone or in a class, so a class of them
says how long the limit is, not how fast grading is; those files and what each costs are said
on a line of their own. The class runs are those of --lessons, if given; --class-only: them alone.
Every run has Python cache the kit's bytecode, as on a learner's machine (in a folder
of its own: PYTHONDONTWRITEBYTECODE, set here, would have each run compile the kit again).
"""
from __future__ import annotations

import argparse
import itertools
import json
import os
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
CORPUS = ROOT / "tests" / "submissions"
CLASS_LESSONS = ("day06", "day07", "day11")
PYTHON = sys.executable
BYTECODE = tempfile.TemporaryDirectory(prefix="reactlings-bench-pycache-")
ENV = {**{k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"},
       "PYTHONPYCACHEPREFIX": BYTECODE.name}


def seconds(command: list[str], env: dict | None = None) -> float:
    started = time.perf_counter()
    subprocess.run(command, cwd=ROOT, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, env=env or ENV)
    return time.perf_counter() - started


def median_seconds(command: list[str], runs: int) -> float:
    return statistics.median(seconds(command) for _ in range(runs))


def lessons() -> list[str]:
    return sorted(p.parent.name for p in (ROOT / "lessons").glob("day*/lesson.yaml"))


def slowest_corpus_file(lesson: str) -> tuple[float, str]:
    graded = [(seconds([PYTHON, "validate.py", lesson, "--file", str(path), "--format", "gradescope"]), path.name)
              for path in sorted((CORPUS / lesson).glob("*.py"))]
    return max(graded)


def watch_save_to_result(runs: int) -> float:
    """`validate.py watch day06` in a pipe: the median time from writing the file to its result
    line, the template and a one-TODO variant in turn (a pass would move on to the next lesson)."""
    template = (ROOT / "lessons" / "day06" / "day06.py").read_text(encoding="utf-8")
    todo = 'raise NotImplementedError("TODO 1.2: describe the tools")'
    versions = [template.replace(todo, 'return "\\n".join(f"- {t.name}: {t.description}" for t in tools)'),
                template]
    with tempfile.TemporaryDirectory() as workspace:
        env = dict(ENV, REACTLINGS_WORKSPACE=workspace)
        watch = subprocess.Popen([PYTHON, "validate.py", "watch", "day06"], cwd=ROOT, env=env,
                                 stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
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


def corpus_hangs(lesson: str, folder: Path) -> dict[str, float]:
    """The corpus files that hang (a check or the loading ends by its time limit), each with the
    seconds it takes graded alone. Found by grading the whole corpus as a class once."""
    out = folder / f"{lesson}-corpus-grades"
    subprocess.run([PYTHON, "validate.py", "grade", lesson, str(CORPUS / lesson), "--out", str(out)],
                   cwd=ROOT, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, env=ENV)
    hangs = {}
    for path in sorted(out.glob("students/*/record.json")):
        record = json.loads(path.read_text(encoding="utf-8"))
        if record["status"] == "timed out" or any(c["key"] in HANGS for c in record.get("checks", [])):
            alone = [PYTHON, "validate.py", lesson, "--file", str(CORPUS / lesson / record["file"]), "--format", "gradescope"]
            hangs[record["file"]] = seconds(alone)
    return hangs


HANGS = ("hang", "import_hang")  # the keys of a check or a loading stopped by its time limit (outcomes.Problem)


def make_class(folder: Path, lesson: str, count: int, leave_out=()) -> list[Path]:
    """`count` students made from the lesson's corpus but `leave_out`, each made unique by a comment."""
    sources = [path for path in sorted((CORPUS / lesson).glob("*.py")) if path.name not in leave_out]
    folder.mkdir(parents=True)
    made = []
    for number, source in zip(range(count), itertools.cycle(sources)):
        path = folder / f"student{number:03d}.py"
        path.write_text(source.read_text(encoding="utf-8") + f"\n# student {number}\n", encoding="utf-8")
        made.append(path)
    return made


class PeakMemory:
    """The largest peak resident size (VmHWM, Linux) of the processes below `pid`, sampled while
    it runs: a class run's workers and children, which end before anyone could ask them."""

    def __init__(self, pid: int):
        self.pid, self.peak, self.done = pid, 0, threading.Event()
        self.thread = threading.Thread(target=self._sample, daemon=True)
        self.thread.start()

    def stop(self) -> int:
        self.done.set()
        self.thread.join()
        return self.peak

    def _sample(self):
        while not self.done.wait(0.1):
            for pid in self._below(self.pid):
                try:
                    status = Path(f"/proc/{pid}/status").read_text()
                except OSError:
                    continue
                for line in status.splitlines():
                    if line.startswith("VmHWM:"):
                        self.peak = max(self.peak, int(line.split()[1]))

    @staticmethod
    def _below(pid: int) -> list[int]:
        found, todo = [], [pid]
        while todo:
            current = todo.pop()
            try:
                children = Path(f"/proc/{current}/task/{current}/children").read_text().split()
            except OSError:
                children = []
            found += [int(c) for c in children]
            todo += [int(c) for c in children]
        return found


def class_run(lesson: str, count: int, sample: int | None, folder: Path, hangs) -> tuple[float, float, int, int, float]:
    """(students per second, ratio to one by one, students timed one by one, the largest
    process's peak in kB, seconds of the run again with nothing changed). The class is the corpus
    but its `hangs`, each file under several names; one by one is every student's own run, or the
    mean of an even sample of `sample` of them times the class."""
    files = make_class(folder / f"{lesson}-{count}", lesson, count, leave_out=hangs)
    out = folder / f"{lesson}-{count}-grades"
    command = [PYTHON, "validate.py", "grade", lesson, str(folder / f"{lesson}-{count}"), "--out", str(out)]
    started = time.perf_counter()
    grading = subprocess.Popen(command, cwd=ROOT, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, env=ENV)
    memory = PeakMemory(grading.pid)
    grading.wait()
    whole, peak = time.perf_counter() - started, memory.stop()
    resumed = seconds(command)  # every record kept: the bookkeeping alone
    one_by_one = []
    sample = min(sample or len(files), len(files))
    for path in files[:: max(1, len(files) // sample)][:sample]:
        started = time.perf_counter()
        done = subprocess.run([PYTHON, "validate.py", lesson, "--file", str(path), "--format", "gradescope"],
                              cwd=ROOT, capture_output=True, text=True, env=ENV)
        one_by_one.append(time.perf_counter() - started)
        in_class = json.loads((out / "students" / path.stem / "results.json").read_text(encoding="utf-8"))
        assert json.loads(done.stdout) == in_class, f"{path.name}: the class run graded it differently"
    return count / whole, statistics.mean(one_by_one) * count / whole, sample, peak, resumed


def one_shot_memory(lesson: str) -> tuple[int, int]:
    """(the grader's peak, its largest child's peak) in kB, grading the lesson's solution."""
    script = ("import resource, runpy, sys\n"
              f"sys.argv = ['validate.py', {lesson!r}, '--solution']\n"
              "try:\n    runpy.run_path('validate.py', run_name='__main__')\nexcept SystemExit:\n    pass\n"
              "print(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss,"
              " resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss, file=sys.stderr)\n")
    done = subprocess.run([PYTHON, "-c", script], cwd=ROOT, capture_output=True, text=True, env=ENV)
    grader, child = done.stderr.split()[-2:]
    return int(grader), int(child)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--sample", type=int, default=None,
                        help="students graded one by one per class (default: every one of 40, 40 of 200)")
    parser.add_argument("--lessons", nargs="+", default=None)
    parser.add_argument("--no-corpus", action="store_true", help="leave out the slowest corpus file")
    parser.add_argument("--class-only", action="store_true", help="the class runs alone")
    args = parser.parse_args()
    seconds([PYTHON, "validate.py", "day01", "--solution"])  # Python caches the kit's bytecode
    baseline = median_seconds([PYTHON, "-c", "pass"], 10)
    print(f"machine: {os.cpu_count()} CPUs, Python {sys.version.split()[0]}, load average {load()}; "
          f"baseline `python -c pass`: {baseline * 1000:.0f} ms (median of 10)\n")
    if not args.class_only:
        lesson_table(args, baseline)
    print(f"\nclass runs: a class is its lesson's corpus (correct files and typical mistakes) under several "
          f"names each, but for the files that hang, whose cost is the time limit whichever way they are graded "
          f"(said apart); one by one: {'every student' if not args.sample else f'a sample of {args.sample}'} at 40, "
          f"a sample of {args.sample or 40} at 200", flush=True)
    with tempfile.TemporaryDirectory() as tmp:
        for lesson in [lesson for lesson in CLASS_LESSONS if lesson in (args.lessons or CLASS_LESSONS)]:
            hangs = corpus_hangs(lesson, Path(tmp))
            if hangs:
                costs = [f"{name} ({cost:.1f} s = {cost / baseline:.0f}× alone)" for name, cost in hangs.items()]
                print(f"class {lesson}: left out, as they hang: " + ", ".join(costs), flush=True)
            for size, sample in ((40, args.sample), (200, args.sample or 40)):
                rate, ratio, timed, peak, resumed = class_run(lesson, size, sample, Path(tmp), hangs)
                print(f"class {lesson}: {size} students, {rate:.1f}/s, {ratio:.1f}× one by one ({timed} timed); "
                      f"run again unchanged {resumed:.2f} s ({resumed / baseline:.0f}×); "
                      f"largest process {peak / 1024:.0f} MB", flush=True)
    print(f"\nload average at the end: {load()}")


def lesson_table(args, baseline: float) -> None:
    """Per lesson: the solution, the template, the slowest corpus file; watch; one-shot memory."""
    print(f"{'lesson':7} {'solution':>9} {'template':>9}   slowest corpus file")
    for lesson in args.lessons or lessons():
        solution = median_seconds([PYTHON, "validate.py", lesson, "--solution"], args.runs)
        template = median_seconds([PYTHON, "validate.py", lesson, "--file",
                                   str(ROOT / "lessons" / lesson / f"{lesson}.py")], args.runs)
        slowest = ""
        if not args.no_corpus:
            worst, name = slowest_corpus_file(lesson)
            slowest = f"{worst / baseline:.1f}×  {name}"
        print(f"{lesson:7} {solution / baseline:8.1f}× {template / baseline:8.1f}×   {slowest}", flush=True)
    watch = watch_save_to_result(args.runs)
    print(f"\nwatch day06: save -> result {watch / baseline:.1f}×")
    grader, child = one_shot_memory("day07")
    print(f"peak memory, one-shot day07: grader {grader / 1024:.0f} MB, learner's child {child / 1024:.0f} MB")


def load() -> str:
    """The machine's load average over 1, 5 and 15 minutes: ratios measured under load are not
    an idle machine's."""
    return " ".join(f"{figure:.1f}" for figure in os.getloadavg()) if hasattr(os, "getloadavg") else "?"


if __name__ == "__main__":
    main()
