"""The class grader's grading processes ("jobs"): each grades the notebooks the main process
sends it, one at a time, in sandboxed workers (`serve`, started through boot.py: the
course's sources only, no .pth, no bytecode read or written), and the main process talks
to it through `Job`.

A job caps its own memory (RLIMIT_AS = GRADER_MEMORY: decoding and checking a student's
values cannot cost more) and dies with the main process (PR_SET_PDEATHSIG, Linux); its
workers die with it (bubblewrap's --die-with-parent). Protocol: one JSON line per request
({"path", "views", "timeout", "wall", "cpu", "class_left"}) on its stdin, one JSON line per
answer (the notebook's grade, `NotebookGrade.to_dict`) on its stdout.
"""
from __future__ import annotations

import json
import os
import queue
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path
from typing import NoReturn

GRADER_MEMORY = 4 * 2**30    # bytes of address space for a grading process
BOOT = Path(__file__).with_name("boot.py")


def boot_command(target: str, options: dict) -> list:
    """The command that runs `target` ("module:function") on the course's sources only."""
    return [sys.executable, "-I", "-B", "-S", str(BOOT), target, json.dumps(options)]


def cap_memory(limit: int = GRADER_MEMORY) -> None:
    """Cap this process's address space (Linux: elsewhere RLIMIT_AS is not enforced)."""
    if sys.platform.startswith("linux"):
        import resource
        resource.setrlimit(resource.RLIMIT_AS, (limit, limit))


class JobDied(Exception):
    """The job process stopped (killed from outside) or stopped answering; says how."""


class Job:
    """One job process, started with `options` (see `serve`)."""

    def __init__(self, options: dict):
        env = dict(os.environ, OPENBLAS_NUM_THREADS="1", OMP_NUM_THREADS="1",
                   MKL_NUM_THREADS="1", MPLBACKEND="Agg")
        self.process = subprocess.Popen(
            boot_command("panpriv_teach.classroom.grading.jobs:serve",
                         dict(options, parent=os.getpid())),
            stdin=subprocess.PIPE, stdout=subprocess.PIPE, env=env, text=True,
            encoding="utf-8")
        self.answers: queue.Queue = queue.Queue()
        threading.Thread(target=self._read, daemon=True, name="panpriv-job-reader").start()

    def _read(self) -> None:
        for line in self.process.stdout:
            self.answers.put(line)
        self.answers.put(None)

    def grade(self, request: dict, timeout: float) -> dict:
        """The grade of one notebook; raises JobDied if the job dies or exceeds `timeout`."""
        try:
            self.process.stdin.write(json.dumps(request) + "\n")
            self.process.stdin.flush()
            line = self.answers.get(timeout=timeout)
        except queue.Empty:
            self.kill()
            raise JobDied(f"stopped answering for {timeout:.0f} s and was killed") from None
        except OSError:
            line = None
        if line is None:
            self.kill()
            code = self.process.returncode
            how = (f"was killed by {signal.Signals(-code).name}" if code is not None and code < 0
                   else f"exited (exit code {code})")
            raise JobDied(how)
        return json.loads(line)

    def kill(self) -> None:
        self.process.kill()
        self.process.wait()

    def close(self) -> None:
        """End the job once it has finished its notebook (its workers die with it)."""
        try:
            self.process.stdin.close()
            self.process.wait(30)
        except (OSError, subprocess.TimeoutExpired):
            self.kill()


def _die_with(parent: int) -> None:
    if sys.platform.startswith("linux"):
        import ctypes
        ctypes.CDLL(None, use_errno=True).prctl(1, signal.SIGKILL)   # PR_SET_PDEATHSIG
    if os.getppid() != parent:          # the parent died before prctl
        os._exit(1)


def serve(options: dict) -> NoReturn:
    """The job's side, until its input ends. `options`: "parent" (the main process's id),
    "bwrap" and "hidden" (the sandbox, or "bwrap": None for none), "path" (see boot.py)."""
    _die_with(options["parent"])
    answers = os.fdopen(os.dup(1), "w", encoding="utf-8")
    null = os.open(os.devnull, os.O_WRONLY)
    os.dup2(null, 1)                    # a stray print cannot break the protocol
    sys.stdout = open(os.devnull, "w")
    from panpriv_teach.classroom.grading.library_view import Views
    from panpriv_teach.classroom.grading.notebook import Budget, grade_notebook
    from panpriv_teach.classroom.sandbox import Sandbox
    sandbox = Sandbox(options["bwrap"], options["hidden"]) if options["bwrap"] else None
    cap_memory()
    for line in sys.stdin:
        request = json.loads(line)
        budget = Budget(request["wall"], request["cpu"], time.monotonic() + request["class_left"])
        grade = grade_notebook(request["path"], timeout=request["timeout"], budget=budget,
                               sandbox=sandbox, views=Views(**request["views"]))
        answers.write(json.dumps(grade.to_dict()) + "\n")
        answers.flush()
    os._exit(0)     # every grade is sent and nothing else needs saving: no interpreter shutdown
