"""The child's side: the files that run in the process holding a learner's code, and nothing else
of the kit. enter_jail.py builds the jail and execs the sandbox in it; sandbox.py imports the
learner's file and runs its calls; wire.py is the line protocol both sides speak. The child runs
them as plain scripts beside each other (`import wire`), so they import nothing of the kit; the
grader imports wire.py and enter_jail.py for what the two sides share."""
from pathlib import Path

SANDBOX = Path(__file__).with_name("sandbox.py")
SANDBOX_FILES = [SANDBOX, SANDBOX.with_name("wire.py")]  # what a child needs to see of the kit
