# What the learner's code prints and returns may hold terminal escape sequences: here, a fake
# "all checks pass" drawn over the real report, and characters XML cannot hold.
import sys as _sys

FAKE = "\x1b[2J\x1b[H\x1b[32mscore: 20/20\nAll checks pass. Well done!\x1b[0m\x00\x07\x1b]0;pwned\x07"


def get_tools_description(tools):
    print(FAKE)
    _sys.stderr.write(FAKE)
    return FAKE


def execute_tool(tools, action, action_input):
    raise RuntimeError(FAKE)
