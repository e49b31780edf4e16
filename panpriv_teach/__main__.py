"""The course's command line: `python -m panpriv_teach <command>` (or `panpriv-teach`).

    generate [--solutions DIR] [--exercises DIR]   write exercises/ from solutions/
    stale    [--solutions DIR] [--exercises DIR]   list exercise notebooks out of date (exit 1)
    execute  NB... [--timeout S]                   run lectures/solutions, store outputs
    check    NB... [--timeout S]                   score your exercises (exit 0 if all pass)

Exit codes: 0 success, 1 failure (an exercise not passed, a stale or broken notebook),
2 usage error (bad arguments, a missing file).
"""
from __future__ import annotations

import argparse
import sys
from pathlib import Path

USAGE_ERROR = 2


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="python -m panpriv_teach",
        description="The panpriv-teach notebook pipeline: generate exercise notebooks, "
                    "execute lectures and solutions, check your exercises.")
    commands = parser.add_subparsers(dest="command", required=True, metavar="command")

    for name, text in (("generate", "write exercises/NN_topic.ipynb from every "
                                    "solutions/NN_topic.ipynb"),
                       ("stale", "list the exercise notebooks that generate would change "
                                 "(exit 1 if any)")):
        sub = commands.add_parser(name, help=text, description=text)
        sub.add_argument("--solutions", default="solutions", metavar="DIR",
                         help="folder of solution notebooks (default: solutions)")
        sub.add_argument("--exercises", default="exercises", metavar="DIR",
                         help="folder of exercise notebooks (default: exercises)")

    text = "execute notebooks in place and store their outputs (not exercise notebooks)"
    sub = commands.add_parser("execute", help=text, description=text)
    sub.add_argument("notebooks", nargs="+", metavar="NB")
    sub.add_argument("--timeout", type=float, default=120, metavar="S",
                     help="seconds allowed per cell (default: 120)")

    text = ("run a copy of each notebook and report which exercises pass "
            "(the notebook is not modified); exit 0 only if all pass")
    sub = commands.add_parser("check", help=text, description=text)
    sub.add_argument("notebooks", nargs="+", metavar="NB")
    sub.add_argument("--timeout", type=float, default=120, metavar="S",
                     help="seconds allowed per cell (default: 120)")
    return parser


def _all_exist(paths) -> bool:
    """True when every notebook exists; otherwise says which do not."""
    missing = [p for p in paths if not Path(p).is_file()]
    if missing:
        print(f"error: no such notebook: {', '.join(missing)}", file=sys.stderr)
    return not missing


def _generate(args) -> int:
    from panpriv_teach.notebooks import GenerationError, generate
    if not Path(args.solutions).is_dir():
        print(f"error: no solutions folder {args.solutions!r}", file=sys.stderr)
        return USAGE_ERROR
    try:
        written = generate(args.solutions, args.exercises)
    except GenerationError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 1
    for path in written:
        print(f"generated {path}")
    if not written:
        print(f"no notebooks in {args.solutions}/")
    return 0


def _stale(args) -> int:
    from panpriv_teach.notebooks import GenerationError, staleness
    try:
        reasons = staleness(args.solutions, args.exercises)
    except GenerationError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 1
    if not reasons:
        print(f"{args.exercises}/ is up to date with {args.solutions}/")
        return 0
    for path, why in reasons.items():
        print(f"{path}: {why}")
    print("regenerate with `python -m panpriv_teach generate` (or `make exercises`)")
    return 1


def _execute(args) -> int:
    from panpriv_teach.notebooks import execute
    if not _all_exist(args.notebooks):
        return USAGE_ERROR
    try:
        execute(args.notebooks, timeout=args.timeout)
    except ValueError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return USAGE_ERROR
    except Exception as exc:  # CellExecutionError, DeadKernelError, CellTimeoutError
        print(f"error: {type(exc).__name__}: {exc}", file=sys.stderr)
        return 1
    return 0


def _check(args) -> int:
    from panpriv_teach.notebooks import score
    if not _all_exist(args.notebooks):
        return USAGE_ERROR
    ok = True
    for index, path in enumerate(args.notebooks):
        if index:
            print()
        board = score(path, timeout=args.timeout)
        print(board, flush=True)
        ok = ok and board.all_passed
    return 0 if ok else 1


COMMANDS = {"generate": _generate, "stale": _stale, "execute": _execute, "check": _check}


def main(argv=None) -> int:
    """Run one command; return its exit code (argparse's usage errors give 2)."""
    try:
        args = _parser().parse_args(argv)
    except SystemExit as exc:  # --help (0) or a usage error (2)
        return exc.code if isinstance(exc.code, int) else USAGE_ERROR
    return COMMANDS[args.command](args)


if __name__ == "__main__":
    sys.exit(main())
