# -*- coding: utf-8 -*-
"""reactlings: grade a lesson. `python validate.py day06`, `python validate.py --help`."""
import sys

# Before anything of the kit is imported (its code needs 3.10): an older Python, even Python 2, gets
# one line that says what to do, not a traceback. So this file keeps to syntax Python 2 can read.
if sys.version_info < (3, 10):
    sys.stderr.write("reactlings needs Python 3.10 or newer, and this is Python %s (%s): make the .venv "
                     "with a newer one, as the README's Quick start says. 需要 Python 3.10 或更新版本。\n"
                     % (sys.version.split()[0], sys.executable))
    sys.exit(2)

if __name__ == "__main__":
    import signal
    # Ctrl-C while the kit loads is held, not a traceback: main() then ends the run as it does any
    # other time (one line, "stopped", status 130)
    interrupted = []
    signal.signal(signal.SIGINT, lambda *_: interrupted.append(True))
    from validator.needs import kit_packages  # a missing package: one line that says what to run
    with kit_packages():
        import os
        from validator.isolation import jail
        def is_lesson(position):
            return len(sys.argv) > position and os.path.isfile(os.path.join(
                os.path.dirname(os.path.abspath(__file__)), "lessons", sys.argv[position], "lesson.yaml"))
        if is_lesson(1):
            jail.probe_early()  # grading a lesson: the jail's probe runs while the rest of the kit is imported
        elif sys.argv[1:2] == ["grade"] and is_lesson(2):
            from validator.isolation import forkserver
            forkserver.warm_early(sys.argv[2], sys.argv)  # grading a class: its warm sandbox starts meanwhile
        from validator.cli import main
        sys.exit(main(interrupted=interrupted))
