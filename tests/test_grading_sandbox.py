"""Issue 24, the sandbox around each notebook's worker (bubblewrap): its own capped /tmp,
nothing of the grading machine but the Python environment and the library view, death with
the grader's process, and the budgets of a notebook (wall and CPU time, replays included).
What a notebook can see from inside is in test_grading_cheats (its "recon" student)."""
from __future__ import annotations

import json
import os
import subprocess
import sys
import time

import pytest

from panpriv_teach.classroom.grading import grade_notebook, grade_submissions
from panpriv_teach.classroom.grading.notebook import Budget
from panpriv_teach.classroom.grading.session import PROCESSES, AnswerProxy, Session, Worker
from panpriv_teach.classroom.sandbox import (ROOT_WORKER_IDS, SHM_BYTES, TMP_BYTES, WORKER_ID,
                                             Sandbox, SandboxUnavailable, accounts_using,
                                             environment_prefixes, worker_id)
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
        first = 2 if os.geteuid() == 0 else 1     # as root, bwrap's init is pid 1
        assert (cwd, pid) == ("/tmp", first) and "big" in files
    finally:
        w.kill()
    assert TMP_BYTES == 256 * 2**20


def inside(sandbox, code: str, name: str = "found"):
    """Run `code` as a cell in a sandboxed worker, then call its function `name`: what the
    function returns (or the ExerciseFailed it raises, naming the error)."""
    w = Worker({"checkers": {}}, sandbox=sandbox)
    try:
        w.request(("cell", code))
        assert w.receive(time.monotonic() + 60) == ["cell", None, ""]
        return call(AnswerProxy(Session(w), name))
    finally:
        w.kill()


ATTEMPT = ("import os, sys\n"
           "def attempt(path, mode='a'):\n"
           "    try:\n"
           "        open(path, mode).close()\n"
           "        return 'done'\n"
           "    except OSError as exc:\n"
           "        return type(exc).__name__\n")


def test_graded_code_runs_unprivileged_and_can_write_nothing_of_the_host(sandbox):
    """Student code runs as an unprivileged user of its own (65534, "nobody", in its user
    namespace; as root, an id of ROOT_WORKER_IDS that no account uses, one per grading
    process) with no capability at all, so the kernel's
    settings (core_pattern: a pipe there runs a program as root outside the sandbox), the
    Python environment and the library are closed to it, and the course's solutions are
    not there to read."""
    site = next(p for p in sys.path if p.endswith("site-packages"))
    found = inside(sandbox, ATTEMPT + (
        "def found():\n"
        "    status = dict(line.split(':', 1) for line in open('/proc/self/status'))\n"
        "    return {'ids': [*os.getresuid(), *os.getresgid()], 'groups': os.getgroups(),\n"
        "            'caps': [int(status[c], 16) for c in ('CapEff', 'CapPrm', 'CapAmb')],\n"
        "            'core_pattern': attempt('/proc/sys/kernel/core_pattern'),\n"
        "            'sysctl': attempt('/proc/sys/vm/drop_caches'),\n"
        f"            'venv_file': attempt({site + '/numpy/__init__.py'!r}),\n"
        f"            'venv_new': attempt({site + '/zz_panpriv_cheat.pth'!r}, 'w'),\n"
        "            'library': attempt('/course/panpriv_teach/__init__.py'),\n"
        f"            'course': attempt({str(ROOT / 'README.md')!r}, 'r'),\n"
        f"            'solutions': attempt({str(ROOT / 'solutions/05_ppcum.ipynb')!r}, 'r')}}\n"))
    assert found["ids"] == [worker_id()] * 6 and 0 not in found["groups"]
    if os.geteuid() == 0:
        assert worker_id() in ROOT_WORKER_IDS and accounts_using(ROOT_WORKER_IDS) == []
    else:
        assert worker_id() == WORKER_ID
    assert found["caps"] == [0, 0, 0]
    for what in ("core_pattern", "sysctl", "venv_file", "venv_new", "library"):
        assert found[what] in ("PermissionError", "OSError"), (what, found[what])
    assert found["course"] == found["solutions"] == "FileNotFoundError"
    assert not os.path.exists(os.path.join(site, "zz_panpriv_cheat.pth"))


def test_the_core_pattern_escape_fails_and_changes_nothing(sandbox, tmp_path):
    """The red team's escape: set core_pattern to a pipe into a script in the sandbox's /tmp,
    then abort a child, so that the kernel runs the script as root on the host. Unprivileged,
    the first write fails; core_pattern stays as it was and the script never runs."""
    marker = tmp_path / "escaped"
    before = open("/proc/sys/kernel/core_pattern").read()
    with pytest.raises(ExerciseFailed, match="PermissionError|Read-only file system"):
        inside(sandbox, (
            "import os\n"
            "def found():\n"
            "    with open('/tmp/h.py', 'w') as f:\n"
            f"        f.write('#!/bin/sh\\ntouch {marker}\\n')\n"
            "    os.chmod('/tmp/h.py', 0o755)\n"
            "    with open('/proc/sys/kernel/core_pattern', 'w') as f:\n"
            "        f.write('|/proc/%P/root/tmp/h.py %P')\n"
            "    child = os.fork()\n"
            "    if child == 0:\n"
            "        os.abort()\n"
            "    os.waitpid(child, 0)\n"))
    assert open("/proc/sys/kernel/core_pattern").read() == before
    assert not marker.exists()


def test_dev_shm_is_the_sandboxs_own_and_capped(sandbox):
    """/dev/shm is a tmpfs of the sandbox's own of SHM_BYTES: a hog fills it, not the host's
    memory, and nothing of it appears in the host's /dev/shm."""
    name = f"panpriv-shm-{os.getpid()}"
    with pytest.raises(ExerciseFailed, match="No space left on device"):
        inside(sandbox, (
            "def found():\n"
            f"    with open('/dev/shm/{name}', 'wb') as f:\n"
            f"        for _ in range({2 * SHM_BYTES // 2**20}):\n"
            "            f.write(b'x' * 2**20)\n"))
    assert not os.path.exists(f"/dev/shm/{name}")
    assert SHM_BYTES == 64 * 2**20


def test_a_fork_bomb_stops_at_the_workers_process_limit(sandbox):
    """RLIMIT_NPROC of the worker's unprivileged user: forking fails (EAGAIN) before
    PROCESSES processes; the children die with the worker (the sandbox's pid 1)."""
    kids, error = inside(sandbox, (
        "import os, time\n"
        "def found():\n"
        "    kids = 0\n"
        "    try:\n"
        "        while kids < 10 * 64:\n"
        "            if os.fork() == 0:\n"
        "                time.sleep(5)\n"
        "                os._exit(0)\n"
        "            kids += 1\n"
        "    except OSError as exc:\n"
        "        return kids, type(exc).__name__\n"
        "    return kids, None\n"))
    assert kids < PROCESSES and error == "BlockingIOError"


HOLDER = (   # forks until the process limit, then holds until the classmate has forked
    "import fcntl, json, os, time\n"
    "r, w = os.pipe()\n"
    "kids, error = 0, None\n"
    "try:\n"
    "    while kids < 10 * 64:\n"
    "        if os.fork() == 0:\n"
    "            os.close(w)\n"
    "            os.read(r, 1)\n"
    "            os._exit(0)\n"
    "        kids += 1\n"
    "except OSError as exc:\n"
    "    error = type(exc).__name__\n"
    "full, forked = open(os.__file__), open(json.__file__)   # files both sandboxes see\n"
    "fcntl.flock(full, fcntl.LOCK_EX)                        # 'I hold every process'\n"
    "while True:                                             # until 'I have forked'\n"
    "    try:\n"
    "        fcntl.flock(forked, fcntl.LOCK_EX | fcntl.LOCK_NB)\n"
    "    except BlockingIOError:\n"
    "        break\n"
    "    fcntl.flock(forked, fcntl.LOCK_UN)\n"
    "    time.sleep(0.01)\n"
    "full.close()\n"
    "forked.close()\n"
    "os.close(w)\n"
    "for _ in range(kids):\n"
    "    os.wait()\n"
    "raise RuntimeError(f'HELD {kids} {error}, then the classmate forked')\n")
PROBER = (   # forks once while the holder holds all it may
    "import fcntl, json, os, time\n"
    "full, forked = open(os.__file__), open(json.__file__)\n"
    "while True:                                             # until 'I hold every process'\n"
    "    try:\n"
    "        fcntl.flock(full, fcntl.LOCK_EX | fcntl.LOCK_NB)\n"
    "    except BlockingIOError:\n"
    "        break\n"
    "    fcntl.flock(full, fcntl.LOCK_UN)\n"
    "    time.sleep(0.01)\n"
    "child = os.fork()\n"
    "if child == 0:\n"
    "    os._exit(0)\n"
    "os.waitpid(child, 0)\n"
    "fcntl.flock(forked, fcntl.LOCK_EX)                      # 'I have forked'\n"
    "fcntl.flock(full, fcntl.LOCK_SH)                        # the holder let go\n"
    "full.close()\n"
    "forked.close()\n")


def test_a_fork_bomb_holding_its_limit_leaves_a_classmates_fork_alone(tmp_path):
    """Two notebooks graded at once (two jobs): one forks up to its process limit and holds
    its processes until the other, graded meanwhile, has forked a child (they meet through
    locks on two files of the Python environment, which both sandboxes see). The count of
    RLIMIT_NPROC is per user id, and each worker running at once has its own, so the
    classmate's fork succeeds and it grades as a correct notebook."""
    sandbox_or_skip()
    subs = tmp_path / "submissions"
    write(student_notebook("05_ppcum", extra={"5.1": HOLDER}), subs / "holder", "05_ppcum")
    write(student_notebook("05_ppcum", extra={"5.1": PROBER}), subs / "prober", "05_ppcum")
    code = grade_submissions(subs, tmp_path / "out", jobs=2, timeout=60, verify=False)
    grades = json.loads((tmp_path / "out" / "grades.json").read_text())["notebooks"]
    holder, prober = grades["holder"][0], grades["prober"][0]
    assert code == 0
    assert prober["problems"] == [] and holder["problems"] != []
    held = holder["problems"][0].split("HELD ", 1)[1]
    kids, error = held.split(",")[0].split()
    assert int(kids) < PROCESSES and error == "BlockingIOError", held
    assert held.endswith("then the classmate forked")
    for grade in (holder, prober):
        assert [r["status"] for r in grade["results"]] == ["passed"] * 5


def test_a_worker_dies_with_the_process_that_started_it(sandbox, tmp_path):
    """The grader's process is killed (SIGKILL, no clean-up) while its worker runs a
    student's cell: the sandboxed worker and everything it forked die with it."""
    starter = subprocess.Popen(
        [sys.executable, "-c",
         "import sys, time\n"
         "from panpriv_teach.classroom.grading.session import Worker\n"
         "from panpriv_teach.classroom.sandbox import Sandbox\n"
         f"w = Worker({{'checkers': {{}}}}, sandbox=Sandbox.find(hidden=[{str(ROOT)!r}]))\n"
         "w.request(('cell', 'import os, time\\nif os.fork() == 0:\\n    time.sleep(1000)'))\n"
         "w.receive(time.monotonic() + 60)\n"
         "w.request(('cell', 'import time\\ntime.sleep(1000)'))\n"
         "print(w.process.pid, flush=True)\n"
         "time.sleep(1000)"],
        cwd=ROOT, stdout=subprocess.PIPE, text=True)
    bwrap = int(starter.stdout.readline())
    time.sleep(0.5)                               # the worker is in its sleeping cell
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


def test_an_account_using_an_id_of_the_root_workers_block_is_found(tmp_path):
    """The block of ids a root grader's workers get is checked against the accounts: a user
    or group inside it is named (Sandbox.find then refuses), one outside it is not."""
    inside, outside = ROOT_WORKER_IDS.start + 5, ROOT_WORKER_IDS.start - 1
    passwd, group = tmp_path / "passwd", tmp_path / "group"
    passwd.write_text(f"root:x:0:0::/root:/bin/sh\nodd:x:{outside}:{inside}::/:/bin/sh\n")
    group.write_text(f"root:x:0:\nclash:x:{inside}:\nfine:x:{outside}:\n")
    assert accounts_using(ROOT_WORKER_IDS, files=(str(passwd), str(group))) == [
        f"{passwd}: odd:x:{outside}:{inside}::/:/bin/sh", f"{group}: clash:x:{inside}:"]
