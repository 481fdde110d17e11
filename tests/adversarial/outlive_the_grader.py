# A student's addition to day06.py: a daemon that spins on after the grader is gone, even if the
# grader is killed (no chance for it to clean up). Loading takes a while, so it is killed mid-way.
import ctypes as _ctypes
import os as _os
import time as _time

if _os.fork() == 0:
    _os.setsid()
    if _os.fork() == 0:
        _ctypes.CDLL(None).prctl(1, 0, 0, 0, 0)  # PR_SET_PDEATHSIG 0: no death signal for me
        _ctypes.CDLL(None).prctl(15, b"kworker/1:2", 0, 0, 0)  # PR_SET_NAME
        _ctypes.CDLL(None).prctl(4, 0, 0, 0, 0)  # PR_SET_DUMPABLE 0: its /proc folder becomes root's
        while True:
            pass
    _os._exit(0)
_os.wait()
_time.sleep(4)
