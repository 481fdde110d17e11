"""The kit's tests never touch a learner's files: every validate.py they run keeps its working
copies and progress in a temporary workspace (see validator/learner/workspace.py)."""
import os
import tempfile

os.environ["REACTLINGS_WORKSPACE"] = tempfile.mkdtemp(prefix="reactlings-test-workspace-")
