"""Every Python the kit claims: pyproject.toml's requires-python and classifiers name them, CI tests
each (.ci/run on this machine, .github/workflows/kit-tests.yml on GitHub), a lesson is graded with
each here, and an older Python gets one line from validate.py instead of a traceback."""
import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
PYPROJECT = (ROOT / "pyproject.toml").read_text(encoding="utf-8")  # no tomllib: it is 3.11's
CLAIMED = re.findall(r'"Programming Language :: Python :: (3\.\d+)"', PYPROJECT)
OLDER = ("2.7", "3.6", "3.7", "3.8", "3.9")
KIT_PACKAGES = "import yaml, rich, openai, watchfiles, jsonschema, pytest"


def python(version: str, needs: str = "") -> str | None:
    """An interpreter of this version that runs `needs`: a venv .ci/run made, a pyenv version, or
    pythonX.Y on PATH. (pyenv's shims are on PATH even for versions they don't run: each is tried.)"""
    pyenv = Path(os.environ.get("PYENV_ROOT", Path.home() / ".pyenv"))
    candidates = [ROOT / ".ci" / f"venv-{version}" / "bin" / "python",
                  *sorted(pyenv.glob(f"versions/{version}.*/bin/python")), shutil.which(f"python{version}")]
    code = f"import sys; assert '%d.%d' % sys.version_info[:2] == {version!r}\n{needs}"
    for candidate in candidates:
        if candidate and Path(candidate).exists() and subprocess.run([candidate, "-c", code],
                                                                   capture_output=True).returncode == 0:
            return str(candidate)
    return None


def test_every_place_that_names_the_pythons_names_the_same():
    minimum = re.search(r'requires-python = ">=(3\.\d+)"', PYPROJECT).group(1)
    assert CLAIMED and CLAIMED[0] == minimum, "the classifiers start at requires-python's minimum"
    minors = [int(v.split(".")[1]) for v in CLAIMED]
    assert minors == list(range(minors[0], minors[-1] + 1)), "no version between left out"
    validate = (ROOT / "validate.py").read_text(encoding="utf-8")
    checked = re.search(r"sys\.version_info < \((\d+), (\d+)\)", validate).groups()
    assert ".".join(checked) == minimum, "validate.py refuses what requires-python refuses"
    workflow = (ROOT / ".github" / "workflows" / "kit-tests.yml").read_text(encoding="utf-8")
    assert re.search(r"python: \[(.*)\]", workflow).group(1) == ", ".join(f'"{v}"' for v in CLAIMED)
    ci = (ROOT / ".ci" / "run").read_text(encoding="utf-8")
    assert re.search(r"for version in (.*); do", ci).group(1) == " ".join(CLAIMED)


@pytest.mark.parametrize("version", OLDER)
def test_an_older_python_gets_one_line_not_a_traceback(version):
    interpreter = python(version)
    if interpreter is None:
        pytest.skip(f"no Python {version} on this machine")
    done = subprocess.run([interpreter, "validate.py", "day06"], cwd=ROOT, capture_output=True, encoding="utf-8",
                          env=dict(os.environ, PYTHONIOENCODING="utf-8"))
    assert done.returncode == 2
    assert done.stdout == "" and done.stderr.count("\n") == 1, done.stderr
    assert f"needs Python {CLAIMED[0]} or newer, and this is Python {version}." in done.stderr


@pytest.mark.slow
@pytest.mark.parametrize("version", [v for v in CLAIMED if v != "%d.%d" % sys.version_info[:2]])
@pytest.mark.parametrize("lesson", ["day06", "day07"])  # the text protocol; the openai client
def test_the_solution_gets_full_marks_on_every_python_claimed(version, lesson):
    interpreter = python(version, needs=KIT_PACKAGES)
    if interpreter is None:
        pytest.skip(f"no Python {version} with the kit's packages here: .ci/run makes one, "
                    f"or `python{version} -m venv .ci/venv-{version}` and pip install -e . into it")
    done = subprocess.run([interpreter, "validate.py", lesson, "--solution", "--format", "gradescope"],
                          cwd=ROOT, capture_output=True, encoding="utf-8")
    assert done.returncode == 0, done.stderr[-3000:]
    report = json.loads(done.stdout)
    assert report["score"] == report["max_score"]
