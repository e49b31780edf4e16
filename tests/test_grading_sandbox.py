"""Issue 24, the sandbox around each notebook's worker (bubblewrap): its own capped /tmp,
nothing of the grading machine but the Python environment and the library view, death with
the grader's process, and the budgets of a notebook (wall and CPU time, replays included).
What a notebook can see from inside is in test_grading_cheats (its "recon" student)."""
from __future__ import annotations

import os
import subprocess
import sys
import time

import pytest

from panpriv_teach.classroom.grading import grade_notebook
from panpriv_teach.classroom.grading.notebook import Budget
from panpriv_teach.classroom.grading.session import AnswerProxy, Session, Worker
from panpriv_teach.classroom.sandbox import (TMP_BYTES, Sandbox, SandboxUnavailable,
                                             environment_prefixes)
from panpriv_teach.exercises.harness import ExerciseFailed, call
from test_grading_support import ROOT, sandbox_or_skip, statuses, student_notebook, write


@pytest.fixture(scope="module")
def sandbox():
    return sandbox_or_skip()


def test_the_sandboxs_tmp_is_capped_and_its_own(sandbox):
    w = Worker({"checkers": {}}, sandbox=sandbox)
    try:
        w.request(("cell", "import os\n"
                           "def fill():\n"
                           "    with open('/tmp/big', 'wb') as f:\n"
                           "        for _ in range(2 * 256):\n"
                           "            f.write(b'x' * 2**20)\n"
                           "def where():\n"
                           "    return os.getcwd(), os.getpid(), sorted(os.listdir('/tmp'))"))
        assert w.receive(time.monotonic() + 60) == ["cell", None, ""]
        with pytest.raises(ExerciseFailed, match="No space left on device"):
            call(AnswerProxy(Session(w), "fill"))
        cwd, pid, files = call(AnswerProxy(Session(w), "where"))
        assert (cwd, pid) == ("/tmp", 1) and "big" in files
    finally:
        w.kill()
    assert TMP_BYTES == 256 * 2**20


def test_a_worker_dies_with_the_process_that_started_it(sandbox, tmp_path):
    """The grader's process is killed (SIGKILL, no clean-up): its sandboxed worker and
    everything the worker forked die with it."""
    starter = subprocess.Popen(
        [sys.executable, "-c",
         "import sys, time\n"
         "from panpriv_teach.classroom.grading.session import Worker\n"
         "from panpriv_teach.classroom.sandbox import Sandbox\n"
         f"w = Worker({{'checkers': {{}}}}, sandbox=Sandbox.find(hidden=[{str(ROOT)!r}]))\n"
         "w.request(('cell', 'import os, time\\nif os.fork() == 0:\\n    time.sleep(1000)'))\n"
         "w.receive(time.monotonic() + 60)\n"
         "print(w.process.pid, flush=True)\n"
         "time.sleep(1000)"],
        cwd=ROOT, stdout=subprocess.PIPE, text=True)
    bwrap = int(starter.stdout.readline())
    family = _descendants(bwrap)
    assert len(family) >= 2                       # the worker and its forked child
    starter.kill()
    starter.wait()
    deadline = time.monotonic() + 10
    while any(_alive(p) for p in [bwrap, *family]):
        assert time.monotonic() < deadline, "the sandbox outlived the grader's process"
        time.sleep(0.1)


def _descendants(pid: int) -> list:
    found, todo = [], [pid]
    while todo:
        current = todo.pop()
        try:
            for task in os.listdir(f"/proc/{current}/task"):
                with open(f"/proc/{current}/task/{task}/children") as handle:
                    children = [int(c) for c in handle.read().split()]
                found += children
                todo += children
        except OSError:
            pass
    return found


def _alive(pid: int) -> bool:
    try:
        with open(f"/proc/{pid}/stat") as handle:
            return handle.read().rsplit(")", 1)[1].split()[0] != "Z"
    except OSError:
        return False


def test_a_notebook_over_its_cpu_budget_is_reported_with_its_time(sandbox, tmp_path):
    """A CPU budget of 3 s: a cell burning CPU in 4 threads is stopped by the worker's own
    CPU limit well before its cell's 60 s, and the rest of the notebook is over budget."""
    nb = student_notebook("05_ppcum", extra={"5.2": (
        "import threading\n"
        "def burn():\n    while True:\n        pass\n"
        "for _ in range(4):\n    threading.Thread(target=burn, daemon=True).start()\n"
        "burn()")})
    grade = grade_notebook(write(nb, tmp_path, "05_ppcum"), timeout=60, sandbox=sandbox,
                           budget=Budget(wall=120, cpu=3))
    assert statuses(grade) == {"5.1": "passed", "5.2": "passed", "5.3": "over budget",
                               "5.4": "over budget", "5.5": "over budget"}
    assert grade.over_budget.startswith("the notebook used its budget of 3 s of CPU time")
    assert 3 <= grade.cpu and grade.seconds < 60
    assert "used up its CPU time" in " ".join(grade.problems)


def test_a_notebook_over_its_wall_budget_stops_there_and_replays_count(sandbox, tmp_path):
    """Each sleeping cell is stopped at its 4 s and the worker replaced (the replays count
    too): the 10 s budget runs out within the third."""
    sleep = "import time\ntime.sleep(1000)"
    nb = student_notebook("05_ppcum", extra={n: sleep for n in ("5.1", "5.2", "5.3")})
    grade = grade_notebook(write(nb, tmp_path, "05_ppcum"), timeout=4, sandbox=sandbox,
                           budget=Budget(wall=10, cpu=100))
    assert statuses(grade)["5.5"] == "over budget" and statuses(grade)["5.1"] == "passed"
    assert grade.over_budget == "the notebook used its budget of 10 s of wall time"
    assert 10 <= grade.seconds < 10 + 5


def test_hidden_folders_inside_a_mounted_one_are_masked():
    """The course, the submissions or the output folder inside a folder the sandbox mounts
    (the Python environment) get an empty tmpfs over them, after the mount."""
    prefix = environment_prefixes()[0]
    inside = os.path.join(prefix, "course-here")
    mounts = Sandbox("bwrap", hidden=[inside, "/elsewhere"]).mounts
    assert mounts.index("--tmpfs") > mounts.index(prefix)
    assert mounts[mounts.index("--tmpfs") + 1] == inside and "/elsewhere" not in mounts


def test_a_bwrap_that_does_not_work_is_refused_with_its_error(tmp_path, monkeypatch):
    fake = tmp_path / "bwrap"
    fake.write_text("#!/bin/sh\necho 'bwrap: No permissions to creating new namespace' >&2\n"
                    "exit 1\n")
    fake.chmod(0o755)
    monkeypatch.setenv("PATH", str(tmp_path))
    with pytest.raises(SandboxUnavailable, match=r"fails here: bwrap: No permissions to "
                                                 r"creating new namespace\. It needs user "
                                                 r"namespaces"):
        Sandbox.find()
    monkeypatch.setenv("PATH", str(tmp_path / "empty"))
    with pytest.raises(SandboxUnavailable, match="sudo apt-get install bubblewrap"):
        Sandbox.find()
