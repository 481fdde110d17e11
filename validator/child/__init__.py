"""The child's side: the files that run in the process holding a learner's code, and nothing else
of the kit. enter_jail.py builds the jail and execs the sandbox in it (isolate_by_user.py: the
second level; launching.py: what both levels do alike; linux.py: Linux's calls); sandbox.py
imports the learner's file and runs its calls, with hangs.py (where a call that ran out of time
is stuck), tracebacks.py (the learner's errors) and lazy_packages.py (openai.types built on
first use); wire.py is the line protocol both sides speak; serve_forks.py is the fork server's
own side (a warm sandbox, forked for each child). The child runs them as plain scripts beside each other (`import wire`), so they import nothing of the
kit; the grader imports wire.py, enter_jail.py and launching.py for what the two sides share."""
from pathlib import Path

SANDBOX = Path(__file__).with_name("sandbox.py")
# What a child needs to see of the kit, in the jail: enter_jail.py and serve_forks.py run before it
SANDBOX_FILES = [SANDBOX.with_name(name) for name in ("sandbox.py", "wire.py", "hangs.py", "tracebacks.py",
                                                           "lazy_packages.py")]
