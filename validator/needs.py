"""The packages the kit needs, and one line instead of a traceback where one is missing.

A kit package missing means this interpreter is not the kit's (a venv not activated): every command
(validate.py, python -m mock_llm, anything that imports mock_llm) says so in one line, in English, since
messages.yaml can't be read without the yaml package. This module imports nothing the kit installs.
"""
import contextlib
import sys

PACKAGES = ("yaml", "rich", "pytest", "watchfiles", "openai", "jsonschema", "nbformat")  # pyproject.toml's


@contextlib.contextmanager
def kit_packages():
    """Around a command's imports (and its run: some are imported when first used)."""
    try:
        yield
    except ModuleNotFoundError as error:
        if error.name not in PACKAGES:
            raise
        sys.stderr.write("reactlings needs its packages, which %s lacks (no %s): run `. .venv/bin/activate` "
                         "(Windows: `.venv\\Scripts\\activate`) or `pip install -e .`\n" % (sys.executable, error.name))
        sys.exit(2)
