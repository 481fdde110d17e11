"""reactlings: grade a lesson. `python validate.py day06`, `python validate.py --help`."""
import sys

from validator.cli import main

if __name__ == "__main__":
    sys.exit(main())
