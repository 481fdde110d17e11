# A student's addition to day06.py: in a class run, learn who else is being graded, and with what
# file. A child that starts as a fork of a warm process might still hold, in its memory, what that
# process read for other students; other students' children might be visible in /proc.
import os as _os
import re as _re

_NAME = _re.compile(rb"classmate-([a-z]{3,12})\.py")  # how the test names the other students


def _in_my_memory():
    """The classmates' names somewhere in this process's memory."""
    found = set()
    with open("/proc/self/maps", encoding="ascii") as maps, open("/proc/self/mem", "rb", 0) as memory:
        for line in maps:
            fields = line.split()
            start, end = (int(x, 16) for x in fields[0].split("-"))
            if "r" not in fields[1] or end - start > 1 << 30 or (len(fields) > 5 and fields[5] == "[vvar]"):
                continue
            try:
                memory.seek(start)
                found.update(_NAME.findall(memory.read(end - start)))
            except (OSError, ValueError, OverflowError):
                pass
    return found


def _in_proc():
    seen = set()
    for pid in filter(str.isdigit, _os.listdir("/proc")):
        for name in ("cmdline", "environ"):
            try:
                with open(f"/proc/{pid}/{name}", "rb") as file:
                    seen.update(_NAME.findall(file.read()))
            except OSError:
                pass
    return seen


def get_tools_description(tools):
    return (f"ATTACK-RAN find_classmates; in memory: {sorted(_in_my_memory())}; in /proc: {sorted(_in_proc())}; "
            f"open files: {sorted(_os.listdir('/proc/self/fd'))}")
