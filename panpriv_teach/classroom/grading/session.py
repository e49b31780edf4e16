"""The grader's side of a worker process: start it, send it requests, read its answers
within a deadline, kill it.

The worker (`panpriv_teach.classroom.grading.worker`) runs the grader's Python in isolated
mode without site (`-I -S`: no user site, no PYTHON* variables, no .pth file, no current
directory on sys.path) and without writing bytecode (`-B`), with the library view first on
its path, one BLAS thread and its own temporary folder holding a copy of the notebook: in
a bubblewrap sandbox (`classroom.sandbox`) when one is given, otherwise as a plain process
in its own process group. Limits hold without signals from the grader: time, by the
grader waiting at most until the deadline and then killing the worker (and its process
group on POSIX, where a forked child would otherwise outlive it; on Windows its process
tree, with psutil); CPU time, by RLIMIT_CPU inside the worker (POSIX); memory, by RLIMIT_AS
inside the worker on Linux (an allocation beyond it raises MemoryError in the student's
code), elsewhere by a psutil watchdog in the grader that kills a worker (and its children)
whose resident memory exceeds the limit (when psutil is importable; without it, no memory
limit there).

A worker that dies of a signal the grader did not send and its own limits do not explain
(the sandbox killed from outside, or the system's out-of-memory killer) records it in
`outside`: the grading run reports it and fails.
"""
from __future__ import annotations

import os
import queue
import shutil
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

import numpy as np

from panpriv_teach.exercises.harness import Outcome, RemoteAnswer
from panpriv_teach.classroom.grading import wire
from panpriv_teach.classroom.sandbox import LIBRARY, site_paths, worker_environment
from panpriv_teach.classroom.sandbox import python as sandbox_python

MEMORY_LIMIT = 4 * 2**30   # bytes of address space for a worker
PROCESSES = 64             # processes and threads of a sandboxed worker (RLIMIT_NPROC)
_ROOT = str(Path(__file__).resolve().parents[3])   # holds panpriv_teach/
_BOOT = ("import os, sys; sys.path[:0] = sys.argv[1].split(os.pathsep); "
         "from panpriv_teach.classroom.grading.worker import main; main()")


class WorkerStopped(Exception):
    """The worker is gone (it exited, crashed or was killed); the message says how."""


class WorkerTimeout(Exception):
    """The worker did not answer before the deadline (it has been killed)."""


def _signal_name(number: int) -> str:
    import signal
    try:
        return signal.Signals(number).name
    except ValueError:
        return f"signal {number}"


def _oom_kills() -> int | None:
    """How many processes the system's out-of-memory killer has killed so far (Linux)."""
    try:
        with open("/proc/vmstat") as handle:
            return next(int(line.split()[1]) for line in handle if line.startswith("oom_kill "))
    except (OSError, StopIteration, ValueError):
        return None


def _tree_cpu(pid: int) -> float:
    """CPU seconds used so far by a process and its descendants, from /proc (Linux; 0
    elsewhere): what a worker killed by the grader used, which no wait() reports."""
    total, todo, seen = 0.0, [pid], set()
    tick = os.sysconf("SC_CLK_TCK") if hasattr(os, "sysconf") else 100
    while todo:
        current = todo.pop()
        if current in seen:
            continue
        seen.add(current)
        try:
            with open(f"/proc/{current}/stat") as stat:
                fields = stat.read().rsplit(")", 1)[1].split()
            total += sum(int(f) for f in fields[11:15]) / tick   # utime stime cutime cstime
            for task in os.listdir(f"/proc/{current}/task"):
                with open(f"/proc/{current}/task/{task}/children") as children:
                    todo += [int(c) for c in children.read().split()]
        except (OSError, ValueError, IndexError):
            continue
    return total


class Worker:
    """One worker process. `request(...)` sends a message; `receive(deadline)` returns the
    next message (a list: its name, then its parts still encoded, see `wire.decode`) or
    raises WorkerTimeout (after killing it) or WorkerStopped.

    `view`: the folder holding the library the worker imports (default: the course's own);
    `sandbox`: a `classroom.sandbox.Sandbox`, or None for a plain process; `notebook`: a
    file copied into the worker's folder; `cpu`: seconds of CPU time it may use."""

    def __init__(self, setup: dict, memory: int | None = MEMORY_LIMIT, *, view=None,
                 sandbox=None, notebook=None, cpu: float | None = None):
        self.memory, self.sandbox, self.folder = memory, sandbox, None
        self.killed = self.memory_killed = False
        self.cpu_killed = 0.0             # CPU seconds it had used when the grader killed it
        self.outside = ""                 # how it was killed from outside, if it was
        self.oom_before = _oom_kills()
        view = Path(view or _ROOT)
        python = [sandbox_python(), "-I", "-B", "-S", "-c", _BOOT]
        notebook_fd = None
        if sandbox is not None:
            path = os.pathsep.join([LIBRARY, *site_paths()])
            if notebook is not None:
                notebook_fd = os.open(notebook, os.O_RDONLY | getattr(os, "O_NOFOLLOW", 0))
            command = sandbox.command(view, notebook_fd, Path(notebook or "x").name) + python
            cwd, env = "/", {"PATH": os.environ.get("PATH", "/usr/bin:/bin")}
        else:
            self.folder = tempfile.mkdtemp(prefix="panpriv-grade-")
            if notebook is not None:
                shutil.copyfile(notebook, os.path.join(self.folder, Path(notebook).name),
                                follow_symlinks=False)
            path = os.pathsep.join([str(view), *site_paths()])
            command, cwd = python, self.folder
            env = {k: v for k, v in os.environ.items()
                   if not k.startswith(("PYTHON", "JPY", "IPY"))}
            env.update(worker_environment(self.folder))
        posix = os.name == "posix"
        try:
            self.process = subprocess.Popen(
                command + [path], cwd=cwd, env=env, stdin=subprocess.PIPE,
                stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, start_new_session=posix,
                pass_fds=() if notebook_fd is None else (notebook_fd,),
                creationflags=0 if posix else subprocess.CREATE_NEW_PROCESS_GROUP)
        finally:
            if notebook_fd is not None:
                os.close(notebook_fd)
        self.inbox: queue.Queue = queue.Queue(maxsize=2)   # a flooding worker waits
        threading.Thread(target=self._read, daemon=True, name="panpriv-grader-reader").start()
        if memory and not _has_rlimit():
            threading.Thread(target=self._watch_memory, daemon=True).start()
        self.alive = True
        self.request(dict(setup, memory=memory if _has_rlimit() else None, cpu=cpu,
                          processes=PROCESSES if sandbox is not None else None))
        ready = self.receive(time.monotonic() + 120)
        if ready != ["ready"]:
            self.kill()
            raise WorkerStopped("the worker did not start")

    def _read(self) -> None:
        stream = self.process.stdout
        try:
            while True:
                payload = wire.read_message(stream)
                self.inbox.put(payload)
                if payload is None:
                    return
        except (wire.WireError, OSError, ValueError) as exc:
            self.inbox.put(exc)

    def _watch_memory(self) -> None:
        try:
            import psutil
            process = psutil.Process(self.process.pid)
            while self.process.poll() is None:
                used = sum(p.memory_info().rss for p in [process, *process.children(True)])
                if used > self.memory:
                    self.memory_killed = True
                    self.kill()
                    return
                time.sleep(0.2)
        except Exception:  # psutil missing, or the process ended between two looks
            return

    def request(self, message, references=lambda obj: None) -> None:
        try:
            wire.write_message(self.process.stdin, wire.dump_for_worker(message, references))
        except (BrokenPipeError, OSError, ValueError):
            raise WorkerStopped(self.story()) from None

    def receive(self, deadline: float):
        try:
            item = self.inbox.get(timeout=max(deadline - time.monotonic(), 0))
        except queue.Empty:
            self.kill()
            raise WorkerTimeout() from None
        if item is None:
            raise WorkerStopped(self.story())
        if isinstance(item, Exception):
            self.kill()
            raise WorkerStopped(f"sent a broken message ({item})")
        try:
            message = wire.load_data(item)
        except wire.WireError as exc:
            message = exc
        if not (isinstance(message, list) and message and isinstance(message[0], str)):
            self.kill()
            raise WorkerStopped(f"sent a broken message ({message})")
        return message

    def story(self) -> str:
        """How the worker ended (and clear up after it: its children, its folder)."""
        self.alive = False
        try:
            code = self.process.wait(5)
        except subprocess.TimeoutExpired:
            code = None
        killed = self.killed
        self.kill()
        if self.memory_killed:
            return f"used more than {self.memory / 2**30:g} GB of memory and was stopped"
        if code is None:
            return "stopped answering"
        inside = code - 128 if self.sandbox is not None and code > 128 else None
        signal = -code if code < 0 else inside
        if signal is None:
            return f"exited (exit code {code}: sys.exit, os._exit or a crash)"
        name = _signal_name(signal)
        oom = self.oom_before is not None and (_oom_kills() or 0) > self.oom_before
        if name == "SIGKILL" and oom:
            self.outside = "killed by the system's out-of-memory killer"
        elif code < 0 and self.sandbox is not None and not killed:
            self.outside = f"killed by {name} from outside the sandbox"
        if self.outside:
            return f"was {self.outside} (not by a limit of the grader)"
        if name == "SIGXCPU" or (name == "SIGKILL" and inside is not None):
            return "used up its CPU time and was stopped"   # pid 1 ignores its own SIGKILL
        why = {"SIGKILL": " (killed: out of memory?)", "SIGSEGV": " (a crash)",
               "SIGABRT": " (aborted)"}.get(name, "")
        return f"was stopped by {name}{why}"

    def close(self) -> None:
        """End the worker: it exits when its input ends (and the sandbox with it, so that
        its CPU time is counted); killed if it has not after a second."""
        try:
            self.process.stdin.close()
            self.process.wait(1)
        except (OSError, subprocess.TimeoutExpired):
            pass
        self.kill()

    def kill(self) -> None:
        """Stop the worker and everything it started, and remove its folder."""
        self.alive = False
        if self.process.poll() is None:
            self.killed = True
            self.cpu_killed = _tree_cpu(self.process.pid)
        if os.name == "posix":
            import signal
            for _ in range(3):   # a fork bomb may add processes while we kill
                try:
                    os.killpg(self.process.pid, signal.SIGKILL)
                except (ProcessLookupError, PermissionError):
                    break
                time.sleep(0.01)
        else:
            _kill_tree(self.process.pid)
        try:
            self.process.kill()
            self.process.wait(10)
        except (OSError, subprocess.TimeoutExpired):
            pass
        for stream in (self.process.stdin, self.process.stdout):
            try:
                stream.close()
            except OSError:
                pass
        if self.folder is not None:
            shutil.rmtree(self.folder, ignore_errors=True)


def _has_rlimit() -> bool:
    """Whether RLIMIT_AS bounds the worker's memory: on Linux (macOS accepts the limit but
    does not enforce it on allocations; Windows has no `resource`)."""
    return sys.platform.startswith("linux")


def _kill_tree(pid: int) -> None:
    try:
        import psutil
        for child in psutil.Process(pid).children(recursive=True):
            child.kill()
    except Exception:  # psutil missing or the processes already gone
        pass


def _is_checker_callable(obj) -> bool:
    """A callable defined in a checker module (not the harness): it must stay in the grader."""
    if isinstance(obj, type):
        return False
    module = getattr(obj, "__module__", None) if callable(obj) and hasattr(obj, "__code__") \
        else getattr(type(obj), "__module__", None)
    return (callable(obj) and isinstance(module, str)
            and module.startswith("panpriv_teach.exercises.")
            and module != "panpriv_teach.exercises.harness")


class OverBudget(BaseException):
    """The notebook's own budget (wall time) ran out during a call: not the answer's fault
    alone, so no checker may turn it into a verdict (a BaseException passes their
    `except Exception`); the grader reports the notebook over budget."""


class Session:
    """A notebook's worker, with the grader's side of a call: Generators and checker
    callables sent by reference, callbacks served, Generator states and library objects'
    attributes copied back after the call. No call runs past `budget_deadline`."""

    def __init__(self, worker: Worker, budget_deadline: float = float("inf")):
        self.worker, self.budget_deadline = worker, budget_deadline

    def call(self, name, args, kwargs, repeat, timeout) -> Outcome:
        own = time.monotonic() + timeout
        deadline = min(own, self.budget_deadline)
        rngs, callbacks = {}, {}

        def reference(obj):
            if isinstance(obj, np.random.Generator):
                rngs.setdefault(id(obj), obj)
                state, seeds = obj.bit_generator.state, obj.bit_generator.seed_seq
                if isinstance(seeds, np.random.SeedSequence):   # for the answer's rng.spawn()
                    seeds = (seeds.entropy, seeds.spawn_key, seeds.pool_size,
                             seeds.n_children_spawned)
                else:
                    seeds = None
                return ("rng", id(obj), state["bit_generator"], state, seeds)
            if _is_checker_callable(obj):
                callbacks.setdefault(id(obj), obj)
                return ("callback", id(obj), getattr(obj, "__name__", type(obj).__name__))
            return None

        def generator(tag, body):
            if tag == "g":
                return rngs.get(body, wire.Foreign("numpy.random.Generator"))
            if tag == "o":
                return wire.Foreign(str(body[0]))
            return NotImplemented

        try:
            self.worker.request(("call", name, args, kwargs, repeat), reference)
            while True:
                message = self.worker.receive(deadline)
                if message[0] == "callback" and len(message) == 4 and message[1] in callbacks:
                    parts = wire.Decoder()
                    self._serve(callbacks[message[1]], wire.decode(message[2], generator, parts),
                                wire.decode(message[3], generator, parts))
                    continue
                break
        except WorkerTimeout:
            if self.budget_deadline < own:
                raise OverBudget() from None
            return Outcome("timeout")
        except WorkerStopped as exc:
            return Outcome("died", message=f"stopped: the Python process running your code "
                                           f"{exc}.")
        except BaseException:
            self.worker.kill()   # interrupted mid-request: the worker's state is unknown
            raise
        if message[0] == "unreadable":
            return Outcome("died", message=f"could not be run: the grader could not pass it its "
                                           f"arguments ({wire.decode(message[1])})")
        parts = wire.Decoder()           # one count of values for the whole message
        try:
            _, kind, value, error, text, where, states, back = message
            kind, error, text, where = (str(wire.decode(v, message=parts))
                                        for v in (kind, error, text, where))
            states = wire.decode(states, message=parts)
            value = wire.decode(value, generator, parts)
        except wire.TooLarge as exc:
            return Outcome("died", message=f"returned {exc}.")
        except (ValueError, TypeError, wire.WireError):
            self.worker.kill()
            return Outcome("died", message="stopped: the process running your code broke the "
                                           "grader's protocol.")
        for key, state in states.items() if isinstance(states, dict) else ():
            if key in rngs:
                try:
                    rngs[key].bit_generator.state = state
                except (TypeError, ValueError, KeyError):
                    pass
        _copy_back(args, kwargs, back, parts)
        foreign = wire.foreign_in(value) if kind == "returned" else None
        if foreign is not None:
            return Outcome("died", message=(
                f"returned an object of type {foreign.type_name}: return plain data (numbers, "
                "strings, lists, tuples, dicts, sets, numpy arrays, Fractions)."))
        return Outcome(kind, value, error, text, where)

    def _serve(self, target, args, kwargs) -> None:
        try:
            result = target(*args, **kwargs)
            reply = ("callback result", True, result)
        except Exception as exc:  # the checker's callable refusing the student's input
            reply = ("callback result", False, (type(exc).__name__, str(exc)))
        self.worker.request(reply)


def _copy_back(args, kwargs, back, parts) -> None:
    """Copy the worker's arrays and library objects back into the grader's arguments (as
    far as the message's count of values allows: a malformed or cyclic one stops it)."""
    try:
        arg_states, kwarg_states = back["t"]
        pairs = list(zip(args, arg_states)) + [(kwargs[k], v) for k, v in kwarg_states["d"]
                                               if isinstance(k, str) and k in kwargs]
        for original, state in pairs:
            if state is not None:
                _restore(original, state, parts)
    except (TypeError, KeyError, ValueError, RecursionError, wire.WireError):
        return


def _restore(original, state, parts) -> None:
    """Make `original` look like the worker's copy, using only data (never objects) from it."""
    parts.count()
    if isinstance(state, dict) and "o" in state:
        name, encoded = state["o"]
        if type(original).__qualname__ != name or not hasattr(original, "__dict__"):
            return
        attributes = encoded.get("d", []) if isinstance(encoded, dict) else []
        for key, value in attributes:
            if not isinstance(key, str) or (isinstance(value, dict) and "g" in value):
                continue    # Generators came back through their states
            current = getattr(original, key, None)
            if isinstance(value, dict) and "o" in value:
                _restore(current, value, parts)
                continue
            try:
                decoded = wire.decode(value, message=parts)
            except wire.WireError:
                continue
            if wire.foreign_in(decoded) is None:
                setattr(original, key, decoded)
        return
    try:
        decoded = wire.decode(state, message=parts)
    except wire.WireError:
        return
    if (isinstance(original, np.ndarray) and isinstance(decoded, np.ndarray)
            and decoded.shape == original.shape and original.flags.writeable):
        np.copyto(original, decoded, casting="unsafe")


class AnswerProxy(RemoteAnswer):
    """The student's answer `name`, living in the worker: what the real checker receives."""

    def __init__(self, session: Session, name: str):
        self.session, self.__name__ = session, name

    def run(self, args, kwargs, repeat, timeout) -> Outcome:
        if not self.session.worker.alive:
            return Outcome("died", message="could not run: the process running your code had "
                                           "already stopped.")
        return self.session.call(self.__name__, args, kwargs, repeat, timeout)
