"""Grading a class: `validate.py grade` against one `validate.py --file` per submission.

    python bench/bench_class.py [--day06 200] [--day07 100] [--sample 20]

Submissions are made from the kit's corpus (correct, buggy, looping, crashing files), each made
unique by a comment. The class is graded once with `validate.py grade`; one `validate.py --file`
per submission is timed on a sample and scaled up, and the sample's reports (Gradescope's
results.json) must equal the class run's. Figures are printed as submissions per second and as a
ratio, with `python -c pass` timed in the same run as the baseline.
"""
from __future__ import annotations

import argparse
import itertools
import json
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
CORPUS = ROOT / "tests" / "submissions"


def make_class(folder: Path, lesson: str, count: int) -> list[Path]:
    sources = sorted((CORPUS / lesson).glob("*.py"))
    folder.mkdir(parents=True)
    made = []
    for number, source in zip(range(count), itertools.cycle(sources)):
        path = folder / f"student{number:03d}.py"
        path.write_text(source.read_text(encoding="utf-8") + f"\n# student {number}\n", encoding="utf-8")
        made.append(path)
    return made


def seconds(command: list[str]) -> float:
    started = time.perf_counter()
    subprocess.run(command, cwd=ROOT, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    return time.perf_counter() - started


def bench(lesson: str, count: int, sample: int, folder: Path) -> None:
    files = make_class(folder / lesson, lesson, count)
    out = folder / f"{lesson}-grades"
    whole = seconds([sys.executable, "validate.py", "grade", lesson, str(folder / lesson), "--out", str(out)])
    one_by_one = []
    for path in files[:: max(1, len(files) // sample)][:sample]:
        started = time.perf_counter()
        done = subprocess.run([sys.executable, "validate.py", lesson, "--file", str(path), "--format", "gradescope"],
                              cwd=ROOT, capture_output=True, text=True)
        one_by_one.append(time.perf_counter() - started)
        in_class = json.loads((out / "students" / path.stem / "results.json").read_text(encoding="utf-8"))
        assert json.loads(done.stdout) == in_class, f"{path.name}: the class run graded it differently"
    alone = statistics.mean(one_by_one) * count
    print(f"{lesson}: {count} submissions in {whole:.1f} s = {count / whole:.1f}/s; one by one "
          f"≈ {alone:.1f} s; class run {alone / whole:.1f}× faster (reports identical on {len(one_by_one)})")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--day06", type=int, default=200)
    parser.add_argument("--day07", type=int, default=100)
    parser.add_argument("--sample", type=int, default=20)
    args = parser.parse_args()
    baseline = statistics.median(seconds([sys.executable, "-c", "pass"]) for _ in range(10))
    print(f"baseline `python -c pass`: {baseline * 1000:.0f} ms")
    with tempfile.TemporaryDirectory() as tmp:
        bench("day06", args.day06, args.sample, Path(tmp))
        bench("day07", args.day07, args.sample, Path(tmp))


if __name__ == "__main__":
    main()
