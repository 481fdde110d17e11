"""python -m mock_llm serve: the mock model over HTTP, so curl, any OpenAI SDK or another language
can talk to it at http://127.0.0.1:8400/v1, as to a provider's Chat Completions API (any API key).

    python -m mock_llm serve                          day07's scenarios, on port 8400
    python -m mock_llm serve --lesson day06 --port 0  day06's (the text protocol), on a free port
    curl -s http://127.0.0.1:8400/v1/models

Questions a lesson's scenarios script get their scripted answers; others, the lesson's own plan
(arithmetic, weather, quotes…), or a reply saying no registered tool fits. Ctrl-C stops it.
"""
import argparse
import sys

from validator.needs import kit_packages

with kit_packages():  # by a Python without the kit's packages: one line that says what to run, not a traceback
    from validator.files import LESSONS_DIR

    from .http import serve
    from .scenarios import DEFAULT_SEED, ScenarioError


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(prog="python -m mock_llm", description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    commands = parser.add_subparsers(dest="command", required=True, metavar="serve")
    run = commands.add_parser("serve", help="serve the OpenAI-compatible mock API on 127.0.0.1",
                              description="Serve /v1/chat/completions and /v1/models on 127.0.0.1 until Ctrl-C.")
    lessons = sorted(p.parent.name for p in LESSONS_DIR.glob("*/scenarios.yaml"))
    run.add_argument("--port", type=int, default=8400, help="port (default 8400; 0 picks a free one)")
    run.add_argument("--lesson", default="day07", metavar="LESSON",
                     help=f"whose scenarios to answer (default day07): {', '.join(lessons)}")
    run.add_argument("--seed", type=int, default=DEFAULT_SEED,
                     help=f"draw other numbers and cities, as validate.py --seed does (default {DEFAULT_SEED}, "
                          "the lesson text's own)")
    parser.epilog = run.format_help()  # serve's options too: the one command's help is the whole help
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
