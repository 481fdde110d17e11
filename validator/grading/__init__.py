"""Grading one file: child_process.py starts the child and carries its messages, runner.py calls
the learner's functions in it and answers with the mock and the lesson's tools, grade.py runs the lesson's checks (plain pytest) and collects a result per check,
report.py turns the result into text and files. notebooks.py reads a notebook as one .py, and
busy.py tells the child's own time from the time a loaded machine adds."""
