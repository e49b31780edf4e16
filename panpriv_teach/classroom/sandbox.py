"""The sandbox each student notebook runs in when a class is graded: bubblewrap (`bwrap`, the
Debian package `bubblewrap`), which runs unprivileged or as root and needs no daemon.

Inside, the worker process sees
- read-only: the Python environment (the interpreter's and the virtual environment's
  prefixes), the system's programs and shared libraries (/usr, /lib*, /bin), the loader's
  cache, the font configuration and matplotlib's font list;
- read-only: the grading view of the course's library (`grading.library_view`) at /course;
- its own empty writable /tmp (a tmpfs of at most TMP_BYTES), holding a copy of the one
  notebook it grades, and its own /dev/shm (a tmpfs of at most SHM_BYTES);
- a /proc of its own PID namespace, with /proc/sys and /proc/sysrq-trigger read-only, and
  no /sys;
and nothing else: no other submission, no output folder, no solutions/, no home folder.
The course folder, the submissions and the output folder are hidden even where they lie
inside a mounted folder, and so is any installed copy of the library (which holds the
answers). The worker has no network (a network namespace of its own, without interfaces),
its own PID namespace (it cannot see or signal the grader or other workers), its own IPC
and host-name namespaces, no new privileges (bwrap sets no_new_privs), a session of its
own (no terminal to write into), and it is killed with SIGKILL when the grader's process
that started it dies (--die-with-parent). The worker is the namespace's first process
(--as-pid-1; as root, its first half, see below): every process it forks dies with it, it
ignores signals sent from inside the sandbox, and its CPU time reaches the grader's
accounts when it ends.

The student's code runs as an unprivileged user and group (`worker_id`), with no
capabilities: never as root, whose user id alone opens the kernel's settings in /proc/sys
for writing (a core_pattern set from a sandbox runs a program as root outside it). Where
the grader is not root, bwrap makes a user namespace (--unshare-user, --uid, --gid,
--disable-userns: no namespace nested in it) in which the worker is WORKER_ID (65534,
"nobody"), and the worker never had privileges; its process count (RLIMIT_NPROC) is the
namespace's own. Where the grader is root, the worker's ids are the host's, and
RLIMIT_NPROC counts every process of the user id: so each grading process gives its
workers (one at a time) ids of their own, ROOT_WORKER_IDS[its process id], from a block
that no account in /etc/passwd or /etc/group uses (checked by `Sandbox.find`), and a fork
bomb in one notebook cannot make a classmate's fork fail.
Where the grader is root, bwrap cannot do both: in a user namespace it made as root, the
worker's user id maps to the host's root (and a namespace mapping it elsewhere leaves bwrap
unable to reach a Python environment under /root). So as root bwrap makes no user
namespace, keeps only the capabilities to change user and group (--cap-drop ALL --cap-add
CAP_SETUID --cap-add CAP_SETGID), and the worker's first act, before it reads anything from
the grader (`worker.drop_privileges`), is to become `worker_id()` for good (setgroups, then
setresgid and setresuid: the kernel then clears every capability). It does so in a child:
bwrap (root without capabilities) may not signal another user's process, so the first
process, which --die-with-parent kills, stays root and only waits for the worker. The
worker's CPU time, memory and processes are limited by the worker itself (RLIMIT_CPU,
RLIMIT_AS, RLIMIT_NPROC) before any student code runs.
"""
from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

from panpriv_teach.classroom.grading.worker import DROP_TO

TMP_BYTES = 256 * 2**20
SHM_BYTES = 64 * 2**20
WORKER_ID = 65534         # "nobody" and "nogroup": the worker's ids in its user namespace
ROOT_WORKER_IDS = range(2_000_000_000, 2_000_000_000 + 2**22)   # as root: one per process id
SYSTEM = ("/usr", "/bin", "/sbin", "/lib", "/lib32", "/lib64", "/libx32", "/etc/ld.so.cache",
          "/etc/ld.so.conf", "/etc/ld.so.conf.d", "/etc/fonts", "/etc/localtime")
LIBRARY = "/course"       # where the library view is mounted inside the sandbox
HOME = "/tmp"
MPLCONFIGDIR = "/tmp/.matplotlib"

HOW_TO_GET_IT = (
    "Grading runs every student's notebook in a sandbox, bubblewrap (`bwrap`), {why}. "
    "On Linux, install it: `sudo apt-get install bubblewrap` (Debian, Ubuntu) or "
    "`sudo dnf install bubblewrap` (Fedora). On macOS or Windows, grade inside a Linux "
    "virtual machine or container that has it (course/instructor_guide.md, \"Grading on "
    "macOS or Windows\"). To grade code you trust without a sandbox, pass --no-sandbox "
    "(`make grade ... NO_SANDBOX=1`).")
BROKEN = (
    "Grading runs every student's notebook in a sandbox, bubblewrap, and {bwrap} fails here: "
    "{error}. It needs user namespaces (a container may forbid them: run it with "
    "--security-opt seccomp=unconfined, or grade in a virtual machine; see "
    "course/instructor_guide.md, \"Grading on macOS or Windows\"). To grade code you trust "
    "without a sandbox, pass --no-sandbox (`make grade ... NO_SANDBOX=1`).")


def python() -> str:
    """This Python's executable, its folder's links resolved (where the sandbox mounts it;
    the file itself stays unresolved, so that a virtual environment is still found)."""
    return os.path.join(os.path.realpath(os.path.dirname(sys.executable)),
                        os.path.basename(sys.executable))


class SandboxUnavailable(Exception):
    """No working bubblewrap on this machine; the message says why and how to get one."""


def worker_id() -> int:
    """The user and group id of the workers this process starts: WORKER_ID in their user
    namespace, or, as root, ROOT_WORKER_IDS[this process's id] (a process id is below 2**22,
    Linux's PID_MAX_LIMIT), which no other running process's workers share."""
    return WORKER_ID if os.geteuid() != 0 else ROOT_WORKER_IDS[os.getpid()]


def accounts_using(ids: range, files=("/etc/passwd", "/etc/group")) -> list:
    """The lines of /etc/passwd and /etc/group whose user or group id lies in `ids`."""
    found = []
    for name in files:
        try:
            lines = Path(name).read_text(errors="replace").splitlines()
        except OSError:
            continue
        for line in lines:
            fields = line.split(":")
            numbers = fields[2:4] if name.endswith("passwd") else fields[2:3]
            if any(f.isdigit() and int(f) in ids for f in numbers):
                found.append(f"{name}: {line}")
    return found


def _inside(path: str, folders) -> bool:
    return any(path == f or path.startswith(f + os.sep) for f in folders)


def _prefixes() -> set:
    """The interpreter's and the virtual environment's prefixes, as given and resolved."""
    venv = os.path.dirname(os.path.dirname(os.path.abspath(sys.executable)))
    venv = [venv] if os.path.isfile(os.path.join(venv, "pyvenv.cfg")) else []   # under -S too
    given = {os.path.abspath(p) for p in (sys.prefix, sys.exec_prefix, sys.base_prefix,
                                          sys.base_exec_prefix, *venv)}
    return given | {os.path.realpath(p) for p in given}


def site_paths() -> list:
    """The folders of sys.path inside the Python environment (the standard library,
    site-packages), links resolved: what a worker, started with -S, puts on its path after
    the library, and what the sandbox mounts."""
    prefixes = _prefixes()
    return list(dict.fromkeys(os.path.realpath(p) for p in sys.path if p and os.path.isdir(p)
                              and (_inside(os.path.abspath(p), prefixes)
                                   or _inside(os.path.realpath(p), prefixes))))


def environment_prefixes() -> list:
    """The Python environment's folders, links resolved, outermost only: the prefixes, the
    folder of this Python's executable and the folders of `site_paths` (a virtual
    environment may link to folders elsewhere)."""
    found = {os.path.realpath(p) for p in _prefixes()} | set(site_paths())
    found.add(os.path.dirname(python()))
    return sorted(p for p in found if not _inside(p, found - {p}))


def _font_list() -> list:
    """matplotlib's font list in the grader's cache (building it if needed): mounted in the
    sandbox, it spares every worker the second it takes to build it."""
    try:
        import matplotlib
        import matplotlib.font_manager  # noqa: F401  (builds the list when it is missing)
        return sorted(Path(matplotlib.get_cachedir()).glob("fontlist-v*.json"))[-1:]
    except Exception:  # no matplotlib, or no cache folder: the workers build their own
        return []


class Sandbox:
    """bwrap's command line for one worker; `find(hidden)` checks that it works here."""

    def __init__(self, bwrap: str, hidden=()):
        self.bwrap = bwrap
        binds = environment_prefixes()
        hidden = {os.path.realpath(p) for p in hidden}
        hidden |= {os.path.join(p, "panpriv_teach") for p in site_paths()
                   if os.path.isdir(os.path.join(p, "panpriv_teach"))}
        mounts = [(p, ["--ro-bind", p, p]) for p in binds]
        for path in SYSTEM:
            if os.path.islink(path):
                mounts.append((path, ["--symlink", os.readlink(path), path]))
            elif os.path.exists(path):
                mounts.append((path, ["--ro-bind", path, path]))
        covered = [p for p, _ in mounts]
        mounts += [(h, ["--tmpfs", h]) for h in sorted(hidden)
                   if any(h == c or h.startswith(c + os.sep) for c in covered)]
        mounts.sort(key=lambda m: m[0].count(os.sep))   # outer folders first, then masks
        # the folders above a mount that bwrap makes copy their host's modes (/root: 0700):
        # made first, open to the unprivileged worker
        above = sorted({str(a) for c in covered for a in Path(c).parents
                        if str(a) != "/" and not _inside(str(a), covered)},
                       key=lambda a: a.count(os.sep))
        self.mounts = [arg for a in above for arg in ("--perms", "0755", "--dir", a)]
        self.mounts += [arg for _, args in mounts for arg in args]
        self.fonts = [arg for f in _font_list()
                      for arg in ("--ro-bind", str(f), f"{MPLCONFIGDIR}/{f.name}")]

    @classmethod
    def find(cls, hidden=()) -> Sandbox:
        """The sandbox, once a trial run of Python inside it succeeded; raises
        SandboxUnavailable otherwise."""
        bwrap = shutil.which("bwrap")
        if bwrap is None:
            why = ("and this machine has none" if sys.platform.startswith("linux") else
                   f"which needs Linux (this is {sys.platform})")
            raise SandboxUnavailable(HOW_TO_GET_IT.format(why=why))
        taken = accounts_using(ROOT_WORKER_IDS) if os.geteuid() == 0 else []
        if taken:
            raise SandboxUnavailable(
                f"the user and group ids {ROOT_WORKER_IDS.start}-{ROOT_WORKER_IDS.stop - 1}, "
                f"which the grader gives its sandboxed workers, are in use ({taken[0]}): "
                "grade as a user other than root, or remove that account")
        sandbox = cls(bwrap, hidden)
        trial = subprocess.run(sandbox.command(None, None) + [python(), "-I", "-S", "-c", "pass"],
                               capture_output=True, text=True, timeout=60)
        if trial.returncode != 0:
            error = trial.stderr.strip()[:300] or f"exit code {trial.returncode}"
            raise SandboxUnavailable(BROKEN.format(bwrap=bwrap, error=error))
        return sandbox

    def command(self, view, notebook_fd: int | None, notebook_name: str = "notebook.ipynb"
                ) -> list:
        """bwrap's arguments up to `--` for a worker reading the library view at `view` and
        getting a copy of the notebook open at `notebook_fd` (pass it in pass_fds)."""
        if os.geteuid() == 0:
            who = ["--unshare-pid", "--unshare-net", "--unshare-ipc", "--unshare-uts",
                   "--unshare-cgroup-try", "--cap-drop", "ALL", "--cap-add", "CAP_SETUID",
                   "--cap-add", "CAP_SETGID"]
        else:
            who = ["--unshare-all", "--unshare-user", "--disable-userns", "--uid",
                   str(WORKER_ID), "--gid", str(WORKER_ID), "--cap-drop", "ALL"]
        args = [self.bwrap, *who, "--as-pid-1", "--die-with-parent", "--new-session",
                "--hostname", "grader", *self.mounts,
                "--proc", "/proc", "--ro-bind", "/proc/sys", "/proc/sys",
                "--ro-bind-try", "/proc/sysrq-trigger", "/proc/sysrq-trigger", "--dev", "/dev",
                "--perms", "1777", "--size", str(SHM_BYTES), "--tmpfs", "/dev/shm",
                "--perms", "1777", "--size", str(TMP_BYTES), "--tmpfs", "/tmp",
                "--perms", "0777", "--dir", MPLCONFIGDIR, *self.fonts]
        if view is not None:
            args += ["--ro-bind", str(view), LIBRARY]
        if notebook_fd is not None:
            args += ["--perms", "0644", "--file", str(notebook_fd), f"/tmp/{notebook_name}"]
        args += ["--chdir", HOME, "--clearenv"]
        environment = dict(worker_environment(HOME), PATH="/usr/bin:/bin")
        if os.geteuid() == 0:
            environment[DROP_TO] = str(worker_id())
        for name, value in environment.items():
            args += ["--setenv", name, value]
        return args + ["--"]


def worker_environment(home: str) -> dict:
    """The variables a worker gets (in or out of the sandbox): one BLAS thread, Agg figures,
    IPython's and matplotlib's folders in its own temporary folder."""
    return {"HOME": home, "TMPDIR": home,
            "LANG": "C.UTF-8", "USER": "student", "LOGNAME": "student", "MPLBACKEND": "Agg",
            "MPLCONFIGDIR": os.path.join(home, ".matplotlib"),
            "IPYTHONDIR": os.path.join(home, ".ipython"), "OPENBLAS_NUM_THREADS": "1",
            "OMP_NUM_THREADS": "1", "MKL_NUM_THREADS": "1"}
