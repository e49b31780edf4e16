"""The course's command line: `python -m panpriv_teach <command>` (or `panpriv-teach`).

    generate [--solutions DIR] [--exercises DIR] [--backup]
                                     write exercises/ from solutions/ (never over edits)
    stale    [--solutions DIR] [--exercises DIR]   list exercise notebooks out of date (exit 1)
    execute  NB... [--timeout S]     run lectures/solutions, store outputs
    workspace                        copy exercises/ to my_work/ (only what is not there)
    lab [JUPYTERLAB ARGS...]         my_work/ copies, then JupyterLab on the course
    check    [NB...] [--timeout S]   scoreboard of NB (exit 0 if all pass); no NB: your
                                     progress over my_work/
    grade    SUBMISSIONS --out OUT [--jobs N] [--budget S] [--notebook-seconds S]
             [--no-sandbox]          grade a class, every notebook in a sandbox (grades.csv,
                                     grades.json, feedback/<student>.md)
    release  OUT                     a student copy of the course, without solutions
    nbgrader OUT                     an nbgrader course directory

Exit codes: 0 success, 1 failure (an exercise not passed, a stale or broken notebook; for
grade: a class over its budget, a process killed from outside), 2 usage error (bad
arguments, a missing file; for grade: no sandbox, sources not matching their manifest).
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
        if name == "generate":
            sub.add_argument("--backup", action="store_true",
                             help="move exercise notebooks changed since they were generated "
                                  "to my_work/backup-<date-time>/, then regenerate them "
                                  "(without it, generate refuses to touch them)")

    text = "execute notebooks in place and store their outputs (not exercise notebooks)"
    sub = commands.add_parser("execute", help=text, description=text)
    sub.add_argument("notebooks", nargs="+", metavar="NB")
    sub.add_argument("--timeout", type=float, default=120, metavar="S",
                     help="seconds allowed per cell (default: 120)")

    text = ("grade a copy of each notebook and print its scoreboard (the notebook is not "
            "modified); exit 0 only if all pass. Without NB: your progress over every "
            "module, from my_work/")
    sub = commands.add_parser("check", help=text, description=text)
    sub.add_argument("notebooks", nargs="*", metavar="NB")
    sub.add_argument("--timeout", type=float, default=None, metavar="S",
                     help="seconds any one code cell may run (default: the grader's)")

    text = "copy each exercises/NN_topic.ipynb to my_work/ unless it is there already"
    commands.add_parser("workspace", help=text, description=text)

    text = ("create my_work/ copies, then open the course in JupyterLab with the course's "
            "environment first on PATH (also in its terminals); other arguments go to "
            "JupyterLab")
    commands.add_parser("lab", help=text, description=text)

    text = ("grade every student's notebooks, each in a bubblewrap sandbox: "
            "SUBMISSIONS/<student>/NN_topic.ipynb → OUT/grades.csv, OUT/grades.json, "
            "OUT/feedback/<student>.md; exit 0 when grading completed, whatever the scores")
    sub = commands.add_parser("grade", help=text, description=text)
    sub.add_argument("submissions", metavar="SUBMISSIONS")
    sub.add_argument("--out", required=True, metavar="OUT")
    sub.add_argument("--jobs", type=_positive(int), default=None, metavar="N",
                     help="notebooks graded at once (default: the number of cores)")
    sub.add_argument("--budget", type=_positive(float), default=None, metavar="S",
                     help="seconds the whole class may take; notebooks left then are "
                          "reported over budget (default: no limit)")
    sub.add_argument("--notebook-seconds", type=_positive(float), default=None, metavar="S",
                     help="seconds of wall time, and of CPU time, one notebook may take, "
                          "replays after a crash included (default: 300)")
    sub.add_argument("--timeout", type=_positive(float), default=None, metavar="S",
                     help="seconds any one code cell may run (default: 120)")
    sub.add_argument("--no-sandbox", action="store_true",
                     help="run the students' code without a sandbox, as your user: for code "
                          "you trust only (the summary says so)")

    text = ("write a student copy of the course to OUT: lectures, exercises, the library "
            "and a student README; no solutions")
    sub = commands.add_parser("release", help=text, description=text)
    sub.add_argument("out", metavar="OUT")

    text = ("write an nbgrader course directory to OUT (nbgrader_config.py, "
            "source/NN_topic/NN_topic.ipynb with solution and autograded test cells)")
    sub = commands.add_parser("nbgrader", help=text, description=text)
    sub.add_argument("out", metavar="OUT")
    return parser


def _positive(kind):
    def parse(text):
        value = kind(text)
        if not value > 0:
            raise argparse.ArgumentTypeError(f"must be positive, got {text}")
        return value
    parse.__name__ = kind.__name__
    return parse


def _all_exist(paths) -> bool:
    """True when every notebook exists; otherwise says which do not."""
    missing = [p for p in paths if not Path(p).is_file()]
    if missing:
        print(f"error: no such notebook: {', '.join(missing)}", file=sys.stderr)
    return not missing


def _generate(args) -> int:
    from panpriv_teach.classroom.notebooks import GenerationError, generate
    if not Path(args.solutions).is_dir():
        print(f"error: no solutions folder {args.solutions!r}", file=sys.stderr)
        return USAGE_ERROR
    try:
        written = generate(args.solutions, args.exercises, backup=args.backup)
    except GenerationError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 1
    for path in written:
        print(f"generated {path}")
    if not written:
        print(f"no notebooks in {args.solutions}/")
    return 0


def _stale(args) -> int:
    from panpriv_teach.classroom.notebooks import GenerationError, staleness
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
    if any(why.startswith("edited") for why in reasons.values()):
        print("edited notebooks may hold a student's answers: students work in my_work/ "
              "(`make workspace` copies exercises/ there, keeping edits), then `make "
              "exercises BACKUP=1` moves the edited notebooks to my_work/backup-<date-time>/ "
              "and regenerates them")
    else:
        print("regenerate with `make exercises` (or `.venv/bin/python -m panpriv_teach "
              "generate`)")
    return 1


def _execute(args) -> int:
    from panpriv_teach.classroom.notebooks import execute
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
    from panpriv_teach.classroom import scoreboard
    if not args.notebooks:
        if not Path("exercises").is_dir():
            print("error: run `check` in the course folder (no exercises/ here), or name "
                  "a notebook: check my_work/01_dp_basics.ipynb", file=sys.stderr)
            return USAGE_ERROR
        return 0 if scoreboard.progress(".", timeout=args.timeout) else 1
    if not _all_exist(args.notebooks):
        return USAGE_ERROR
    from panpriv_teach.classroom.grading import grade_notebook
    ok = True
    for index, path in enumerate(args.notebooks):
        if index:
            print()
        grade = grade_notebook(path, timeout=args.timeout)
        print(scoreboard.render(grade, path), flush=True)
        ok = ok and scoreboard.all_passed(grade)
    return 0 if ok else 1


def _workspace(args) -> int:
    from panpriv_teach.classroom.workspace import WORK_DIR, make_workspace
    try:
        created, kept = make_workspace(".")
    except FileNotFoundError as exc:
        print(f"error: {exc} (run this in the course folder)", file=sys.stderr)
        return USAGE_ERROR
    for path in created:
        print(f"created {path}")
    if kept:
        print(f"kept {len(kept)} notebook(s) already in {WORK_DIR}/ (never overwritten)")
    return 0


def _lab(args) -> int:
    from panpriv_teach.classroom.workspace import lab
    if not Path("exercises").is_dir():
        print("error: run `lab` in the course folder (no exercises/ here)", file=sys.stderr)
        return USAGE_ERROR
    return lab(".", args.lab_args)


def _grade_class(args) -> int:
    """Grading runs in a fresh Python started by grading/boot.py (the course's sources only,
    no .pth file, no bytecode read): this process hands over to it."""
    import os
    import subprocess
    from panpriv_teach.classroom.grading.jobs import boot_command
    from panpriv_teach.classroom.sandbox import site_paths
    if not Path(args.submissions).is_dir():
        print(f"error: no submissions folder {args.submissions!r}", file=sys.stderr)
        return USAGE_ERROR
    options = {"submissions": os.path.abspath(args.submissions),
               "out": os.path.abspath(args.out), "jobs": args.jobs, "timeout": args.timeout,
               "sandbox": not args.no_sandbox, "class_seconds": args.budget,
               "notebook_seconds": args.notebook_seconds, "path": site_paths()}
    sys.stdout.flush()
    return subprocess.run(boot_command("panpriv_teach.classroom.grading.batch:command",
                                       options)).returncode


def _release(args) -> int:
    from panpriv_teach.classroom.release import ReleaseError, release
    try:
        written = release(".", args.out)
    except ReleaseError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return USAGE_ERROR
    print(f"wrote a student copy of the course to {written} (no solutions)")
    return 0


def _nbgrader(args) -> int:
    from panpriv_teach.classroom.nbgrader_export import export
    from panpriv_teach.classroom.release import ReleaseError
    try:
        written = export("solutions", args.out)
    except (ReleaseError, ValueError) as exc:
        print(f"error: {exc}", file=sys.stderr)
        return USAGE_ERROR
    print(f"wrote an nbgrader course directory to {written}: cd there, then "
          "`nbgrader generate_assignment NN_topic`")
    return 0


COMMANDS = {"generate": _generate, "stale": _stale, "execute": _execute, "check": _check,
            "workspace": _workspace, "lab": _lab, "grade": _grade_class,
            "release": _release, "nbgrader": _nbgrader}


def main(argv=None) -> int:
    """Run one command; return its exit code (argparse's usage errors give 2)."""
    parser = _parser()
    try:
        args, extra = parser.parse_known_args(argv)
        if extra and args.command != "lab":        # `lab` hands the rest to JupyterLab
            parser.error(f"unrecognized arguments: {' '.join(extra)}")
    except SystemExit as exc:  # --help (0) or a usage error (2)
        return exc.code if isinstance(exc.code, int) else USAGE_ERROR
    args.lab_args = extra
    return COMMANDS[args.command](args)


if __name__ == "__main__":
    sys.exit(main())
