"""The grader's side of a worker process: start it, send it requests, read its answers
within a deadline, kill it.

The worker (`panpriv_teach.classroom.grading.worker`) runs with the grader's Python in isolated mode
(`-I`: no user site, no PYTHON* variables, no current directory on sys.path), in its own
temporary directory and process group, with one BLAS thread. Limits hold without signals:
time, by the grader waiting at most until the deadline and then killing the worker (and
its process group on POSIX, where a forked child would otherwise outlive it; on Windows its
process tree, with psutil); memory, by RLIMIT_AS inside the worker on Linux (an allocation
beyond it raises MemoryError in the student's code), elsewhere by a psutil watchdog in the
grader that kills a worker (and its children) whose resident memory exceeds the limit (when
psutil is importable; without it, no memory limit there).
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

MEMORY_LIMIT = 4 * 2**30   # bytes of address space for a worker
_ROOT = str(Path(__file__).resolve().parents[3])   # holds panpriv_teach/
_BOOT = ("import sys; sys.path.insert(0, sys.argv[1]); "
         "from panpriv_teach.classroom.grading.worker import main; main()")


class WorkerStopped(Exception):
    """The worker is gone (it exited, crashed or was killed); the message says how."""


class WorkerTimeout(Exception):
    """The worker did not answer before the deadline (it has been killed)."""


def _exit_story(code: int | None, memory_killed: bool, limit: int | None) -> str:
    if memory_killed:
        return f"used more than {limit / 2**30:g} GB of memory and was stopped"
    if code is None:
        return "stopped answering"
    if code < 0:
        import signal
        try:
            name = signal.Signals(-code).name
        except ValueError:
            name = f"signal {-code}"
        why = {"SIGKILL": " (killed: out of memory?)", "SIGSEGV": " (a crash)",
               "SIGABRT": " (aborted)"}.get(name, "")
        return f"was stopped by {name}{why}"
    return f"exited (exit code {code}: sys.exit, os._exit or a crash)"


class Worker:
    """One worker process. `request(...)` sends a message; `receive(deadline)` returns the
    next message (a list: its name, then its parts still encoded, see `wire.decode`) or
    raises WorkerTimeout (after killing it) or WorkerStopped."""

    def __init__(self, setup: dict, memory: int | None = MEMORY_LIMIT):
        self.memory = memory
        self.folder = tempfile.mkdtemp(prefix="panpriv-grade-")
        env = {k: v for k, v in os.environ.items() if not k.startswith(("PYTHON", "JPY", "IPY"))}
        env.update(MPLBACKEND="Agg", OPENBLAS_NUM_THREADS="1", OMP_NUM_THREADS="1",
                   MKL_NUM_THREADS="1", IPYTHONDIR=os.path.join(self.folder, ".ipython"))
        posix = os.name == "posix"
        self.process = subprocess.Popen(
            [sys.executable, "-I", "-c", _BOOT, _ROOT], cwd=self.folder, env=env,
            stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL,
            start_new_session=posix,
            creationflags=0 if posix else subprocess.CREATE_NEW_PROCESS_GROUP)
        self.inbox: queue.Queue = queue.Queue()
        self.memory_killed = False
        threading.Thread(target=self._read, daemon=True, name="panpriv-grader-reader").start()
        if memory and not _has_rlimit():
            threading.Thread(target=self._watch_memory, daemon=True).start()
        self.alive = True
        self.request(dict(setup, memory=memory if _has_rlimit() else None))
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
        self.kill()
        return _exit_story(code if code is not None else self.process.poll(),
                           self.memory_killed, self.memory)

    def kill(self) -> None:
        """Stop the worker and everything it started, and remove its folder."""
        self.alive = False
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


class Session:
    """A notebook's worker, with the grader's side of a call: Generators and checker
    callables sent by reference, callbacks served, Generator states and library objects'
    attributes copied back after the call."""

    def __init__(self, worker: Worker):
        self.worker = worker

    def call(self, name, args, kwargs, repeat, timeout, watch) -> tuple[Outcome, list]:
        deadline = time.monotonic() + timeout
        rngs, callbacks = {}, {}

        def reference(obj):
            if isinstance(obj, np.random.Generator):
                rngs.setdefault(id(obj), obj)
                state = obj.bit_generator.state
                return ("rng", id(obj), state["bit_generator"], state)
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
            self.worker.request(("call", name, args, kwargs, repeat, tuple(watch)), reference)
            while True:
                message = self.worker.receive(deadline)
                if message[0] == "callback" and len(message) == 4 and message[1] in callbacks:
                    self._serve(callbacks[message[1]], wire.decode(message[2], generator),
                                wire.decode(message[3], generator))
                    continue
                break
        except WorkerTimeout:
            return Outcome("timeout"), []
        except WorkerStopped as exc:
            return Outcome("died", message=f"stopped: the Python process running your code "
                                           f"{exc}."), []
        except BaseException:
            self.worker.kill()   # interrupted mid-request: the worker's state is unknown
            raise
        if message[0] == "unreadable":
            return Outcome("died", message=f"could not be run: the grader could not pass it its "
                                           f"arguments ({wire.decode(message[1])})"), []
        try:
            _, kind, value, error, text, where, reached, states, back = message
            value = wire.decode(value, generator)
            kind, error, text, where = (str(wire.decode(v)) for v in (kind, error, text, where))
            reached = [str(r) for r in wire.decode(reached)]
            states = wire.decode(states)
        except (ValueError, TypeError, wire.WireError):
            self.worker.kill()
            return Outcome("died", message="stopped: the process running your code broke the "
                                           "grader's protocol."), []
        for key, state in states.items() if isinstance(states, dict) else ():
            if key in rngs:
                try:
                    rngs[key].bit_generator.state = state
                except (TypeError, ValueError, KeyError):
                    pass
        _copy_back(args, kwargs, back)
        foreign = wire.foreign_in(value) if kind == "returned" else None
        if foreign is not None:
            return Outcome("died", message=(
                f"returned an object of type {foreign.type_name}: return plain data (numbers, "
                "strings, lists, tuples, dicts, sets, numpy arrays, Fractions).")), reached
        return Outcome(kind, value, error, text, where), reached

    def _serve(self, target, args, kwargs) -> None:
        try:
            result = target(*args, **kwargs)
            reply = ("callback result", True, result)
        except Exception as exc:  # the checker's callable refusing the student's input
            reply = ("callback result", False, (type(exc).__name__, str(exc)))
        self.worker.request(reply)


def _copy_back(args, kwargs, back) -> None:
    """Copy the worker's arrays and library objects back into the grader's arguments."""
    try:
        arg_states, kwarg_states = back["t"]
        pairs = list(zip(args, arg_states)) + [(kwargs[k], v) for k, v in kwarg_states["d"]
                                               if isinstance(k, str) and k in kwargs]
    except (TypeError, KeyError, ValueError):
        return
    for original, state in pairs:
        if state is not None:
            _restore(original, state)


def _restore(original, state) -> None:
    """Make `original` look like the worker's copy, using only data (never objects) from it."""
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
                _restore(current, value)
                continue
            try:
                decoded = wire.decode(value)
            except wire.WireError:
                continue
            if wire.foreign_in(decoded) is None:
                setattr(original, key, decoded)
        return
    try:
        decoded = wire.decode(state)
    except wire.WireError:
        return
    if (isinstance(original, np.ndarray) and isinstance(decoded, np.ndarray)
            and decoded.shape == original.shape and original.flags.writeable):
        np.copyto(original, decoded, casting="unsafe")


class AnswerProxy(RemoteAnswer):
    """The student's answer `name`, living in the worker: what the real checker receives.
    `reached` collects the solved_by functions the answer's calls reached."""

    def __init__(self, session: Session, name: str, watch=()):
        self.session, self.__name__, self.watch = session, name, tuple(watch)
        self.reached: list[str] = []

    def run(self, args, kwargs, repeat, timeout) -> Outcome:
        if not self.session.worker.alive:
            return Outcome("died", message="could not run: the process running your code had "
                                           "already stopped.")
        outcome, reached = self.session.call(self.__name__, args, kwargs, repeat, timeout,
                                             self.watch)
        self.reached += [r for r in reached if r not in self.reached]
        if reached:
            return Outcome("uses solution", message=reached[0])
        return outcome
