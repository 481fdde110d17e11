"""python -m mock_llm serve [--port N] [--lesson day07] [--seed S]: the mock model over HTTP, so curl,
any OpenAI SDK or another language can talk to it at http://127.0.0.1:N/v1."""
import argparse
import sys

from .http import serve
from .scenarios import DEFAULT_SEED, ScenarioError


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(prog="python -m mock_llm", description=__doc__.splitlines()[0])
    commands = parser.add_subparsers(dest="command", required=True)
    run = commands.add_parser("serve", help="serve the OpenAI-compatible mock API on 127.0.0.1")
    run.add_argument("--port", type=int, default=8400, help="port (default 8400; 0 picks a free one)")
    run.add_argument("--lesson", default="day07", help="whose scenarios to answer (default day07)")
    run.add_argument("--seed", type=int, default=DEFAULT_SEED)
    args = parser.parse_args(argv)
    try:
        serve(args.lesson, args.port, args.seed)
    except ScenarioError as error:
        print(f"error: {error}", file=sys.stderr)
        return 2
    except OSError as error:
        print(f"error: cannot listen on 127.0.0.1:{args.port}: {error.strerror}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:  # Ctrl-C, as validate.py ends on it: one line, the shell's status for it
        print("stopped", file=sys.stderr)
        return 130
    return 0


if __name__ == "__main__":
    sys.exit(main())
