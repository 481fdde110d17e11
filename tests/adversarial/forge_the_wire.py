# The socket to the grader is in the learner's own process: write to it directly, out of turn.
import os as _os
import sys as _sys


def get_tools_description(tools):
    fd = int(_sys.argv[1])
    _os.write(fd, b'{"op": "done", "value": "- Calculator: ...", "stdout": ""}\n')
    _os.write(fd, b'{"op": "done", "value": {"$dict": 5}}\nnot json at all\n')
    return "ATTACK-RAN wrote to the grader's socket"


def build_react_prompt(user_input, tools, steps):
    _os.write(int(_sys.argv[1]), b'{"op": "model", "id": 999999, "payload": {"$tuple": 7}}\n')
    return "x"
