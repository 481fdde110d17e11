"""reactlings: grade a lesson. `python validate.py day06`, `python validate.py --help`."""
import sys

# The packages the kit needs (pyproject.toml; watch and day07 on import theirs when used): one
# missing means this interpreter is not the kit's (a venv not activated), said in one line (here,
# in English: messages.yaml can't be read without the yaml package).
PACKAGES = ("yaml", "rich", "pytest", "watchfiles", "openai", "jsonschema")

if __name__ == "__main__":
    try:
        from validator.cli import main
        sys.exit(main())
    except ModuleNotFoundError as error:
        if error.name not in PACKAGES:
            raise
        print(f"reactlings needs its packages, which {sys.executable} lacks (no {error.name}): run "
              "`. .venv/bin/activate` (Windows: `.venv\\Scripts\\activate`) or `pip install -e .`", file=sys.stderr)
        sys.exit(2)
