"""What a learner runs: their workspace and progress (list, next, hint, reset), watch, --live
against a real model, and the files a grading writes beside its report (artifacts.py)."""
