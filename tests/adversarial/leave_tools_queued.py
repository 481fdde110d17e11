# A student's addition to day11.py: tool requests written straight to the grader's socket, many
# per call, whose answers it never waits for. The grader runs the tools on threads of its own (each
# of day11's waits 0.15 to 0.6 s): had they stayed queued when this student's grading ended, they
# would have run on into the next student's, whose tool calls then waited behind them and timed out.
import json as _json
import os as _os
import sys as _sys


def _flood():
    for n in range(190):
        request = {"op": "tool", "id": 10**9 + n, "name": "get_quote", "args": ["AAPL"], "kwargs": {}}
        _os.write(int(_sys.argv[1]), (_json.dumps(request) + "\n").encode())


def execute_tool(tool_impl, call):
    _flood()
    return {"role": "tool", "tool_call_id": "none", "content": "{}"}


def run_calls(tool_impl, calls):
    _flood()
    return []
