"""The grader's worker process: it holds one student's notebook namespace and runs the
student's code, and nothing else; verdicts are made in the grader (see `session`).

Started by the grader as `python -I -B -S -c ...` in a temporary folder (in a sandbox when
grading a class, see `session`), with the library view first on its path: the library
without the functions the exercises ask for (`library_view`). It limits its own memory,
CPU time and core dumps before running any student code, talks to the grader over its
original stdin/stdout (moved to private descriptors; the student's prints go to
/dev/null), executes code cells with IPython's InteractiveShell (so `%magics` work;
matplotlib draws with Agg), and answers the grader's requests: run a cell, look a name up,
call an answer. Inside it, the course's checker modules are inert stubs (a check cell does
nothing here, and a checker's reference values are not importable). Every value sent back
is plain data (`wire.encode`), in messages of at most `wire.MAX_MESSAGE` bytes.
"""
from __future__ import annotations

import importlib.abc
import os
import sys
import types

MAIN_PID = os.getpid()
DROP_TO = "PANPRIV_WORKER_ID"   # the id the worker becomes, where it must drop root itself


def _claim_stdio():
    """The protocol's streams (the original stdin/stdout); fd 0 and 1 then lead nowhere."""
    proto_in = os.fdopen(os.dup(0), "rb")
    proto_out = os.fdopen(os.dup(1), "wb")
    null = os.open(os.devnull, os.O_RDWR)
    os.dup2(null, 0)
    os.dup2(null, 1)
    sys.stdin = open(os.devnull)
    sys.stdout = open(os.devnull, "w")
    return proto_in, proto_out


def _limit(memory: int | None, cpu: float | None, processes: int | None = None) -> None:
    """Hard limits the student's code cannot raise: address space (the grader sends one only
    where RLIMIT_AS works, Linux), CPU seconds (SIGXCPU, then SIGKILL a second later),
    processes and threads of the worker's user (sent only to a sandboxed worker: a fork bomb
    stops there; the count is per user id, and every worker running at once has its own,
    `classroom.sandbox.worker_id`: its own user namespace's, or as root an id of its own), and
    no core dumps."""
    try:
        import resource
    except ImportError:   # Windows: the grader watches memory and time itself
        return
    if memory:
        _, hard = resource.getrlimit(resource.RLIMIT_AS)   # the grader's own cap, if lower
        memory = memory if hard == resource.RLIM_INFINITY else min(memory, hard)
        resource.setrlimit(resource.RLIMIT_AS, (memory, memory))
    if cpu:
        used = resource.getrusage(resource.RUSAGE_SELF)
        seconds = int(used.ru_utime + used.ru_stime + cpu) + 1
        resource.setrlimit(resource.RLIMIT_CPU, (seconds, seconds + 1))
    if processes:
        resource.setrlimit(resource.RLIMIT_NPROC, (processes, processes))
    resource.setrlimit(resource.RLIMIT_CORE, (0, 0))


class _NoCheckers(importlib.abc.MetaPathFinder):
    """Refuses to import the real checker modules in the worker."""

    def __init__(self, names):
        self.names = set(names)

    def find_spec(self, name, path=None, target=None):
        if name in self.names:
            raise ImportError(f"{name} is not available while grading")
        return None


def _install_stubs(checkers: dict) -> None:
    """Replace each checker module by a stub whose exercise_N_k and summary do nothing."""
    import panpriv_teach.exercises as package

    def inert(*args, **kwargs):
        """While grading, check cells do nothing: the grader checks the answers itself."""

    for name, functions in checkers.items():
        stub = types.ModuleType(name, "Checker stub: the grader runs the real checks.")
        for function in (*functions, "summary"):
            setattr(stub, function, inert)
        sys.modules[name] = stub
        setattr(package, name.rpartition(".")[2], stub)
    sys.meta_path.insert(0, _NoCheckers(checkers))


def _shell():
    os.environ.setdefault("MPLBACKEND", "Agg")
    from IPython.core.interactiveshell import InteractiveShell
    from traitlets.config import Config
    config = Config()
    config.HistoryManager.hist_file = ":memory:"
    shell = InteractiveShell.instance(config=config)
    shell.colors = "NoColor"
    return shell


def _not_forked() -> None:
    """A process the student forked leaves quietly instead of answering the grader."""
    if os.getpid() != MAIN_PID:
        os._exit(0)


class Worker:
    def __init__(self, proto_in, proto_out, setup: dict):
        from panpriv_teach.classroom.grading import wire
        self.wire, self.proto_in, self.proto_out = wire, proto_in, proto_out
        _install_stubs(setup["checkers"])
        self.shell = _shell()
        self.rngs: dict = {}
        self.callbacks: dict = {}
        _limit(setup.get("memory"), setup.get("cpu"), setup.get("processes"))

    # -------------------------------------------------------------- messages
    def send(self, *message) -> None:
        """Send a list of parts, each encoded (the grader decodes each part by itself); a
        part that cannot be encoded (too deep, a cycle) goes as the name of its type."""
        parts = []
        for part in message:
            try:
                parts.append(self.wire.encode(part, self._extra))
            except (RecursionError, ValueError, TypeError, MemoryError):
                parts.append({"x": f"{type(part).__name__} (too deeply nested to send)"})
        payload = self.wire.dump_data(parts)
        while len(payload) > self.wire.MAX_MESSAGE:   # the largest part goes as its size
            sizes = [len(self.wire.dump_data(p)) for p in parts]
            parts[sizes.index(max(sizes))] = {"big": max(sizes)}
            payload = self.wire.dump_data(parts)
        self.wire.write_message(self.proto_out, payload)

    def receive(self):
        payload = self.wire.read_message(self.proto_in, limit=2**62)
        if payload is None:     # the grader is done: leave now, without the interpreter's
            os._exit(0)         # shutdown (nothing here needs saving; no atexit of a student)
        return self.wire.load_from_grader(payload, self._reference)

    def _reference(self, pid):
        """Rebuild a reference the grader pickled (see session.Session._reference)."""
        import numpy as np
        if pid[0] == "rng":
            _, key, name, state, seeds = pid
            if key not in self.rngs:     # with its seed sequence: spawn() as in the grader
                if seeds is not None:
                    entropy, spawn_key, pool_size, spawned = seeds
                    seeds = np.random.SeedSequence(entropy, spawn_key=spawn_key,
                                                   pool_size=pool_size,
                                                   n_children_spawned=spawned)
                generator = np.random.Generator(getattr(np.random, name)(seeds))
                generator.bit_generator.state = state
                self.rngs[key] = generator
            return self.rngs[key]
        _, key, name = pid
        return self.callbacks.setdefault(key, _Callback(self, key, name))

    def _extra(self, value):
        """Encode Generators the grader sent as references to them, and library objects
        (for the grader to copy their attributes back) by their attributes."""
        import numpy as np
        if isinstance(value, np.random.Generator):
            for key, generator in self.rngs.items():
                if generator is value:
                    return {"g": key}
            return None
        if _is_library_object(value):
            return {"o": (type(value).__qualname__,
                          self.wire.encode(dict(vars(value)), self._extra))}
        return None

    # -------------------------------------------------------------- requests
    def serve(self) -> None:
        self.send("ready")
        while True:
            try:
                request, *body = self.receive()
            except (SystemExit, KeyboardInterrupt):
                raise
            except Exception as exc:  # arguments this process cannot rebuild (a checker bug)
                self.send("unreadable", f"{type(exc).__name__}: {_text(exc)}")
                continue
            getattr(self, "do_" + request)(*body)
            _not_forked()

    def do_cell(self, source: str) -> None:
        result = self.shell.run_cell(source, store_history=True, silent=False)
        _not_forked()
        error = result.error_before_exec or result.error_in_exec
        if error is None:
            self.send("cell", None, "")
        else:
            self.send("cell", type(error).__name__, _text(error))

    def do_lookup(self, name: str) -> None:
        missing = object()
        value = self.shell.user_ns.get(name, missing)
        if value is missing:
            self.send("lookup", "missing", None)
        elif callable(value):
            self.send("lookup", "callable", None)
        else:
            self.send("lookup", "value", value)

    def do_call(self, name, args, kwargs, repeat) -> None:
        from panpriv_teach.exercises.harness import Outcome, outcome_of_exception, repeated
        fn = self.shell.user_ns.get(name)
        try:
            value = repeated(fn, args, kwargs, repeat)
            outcome = Outcome("returned", value)
        except BaseException as exc:  # noqa: BLE001 - even SystemExit is only a wrong answer
            outcome = outcome_of_exception(exc)
        _not_forked()
        states = {key: g.bit_generator.state for key, g in self.rngs.items()}
        back = ([v if _writable(v) else None for v in args],
                {k: v for k, v in kwargs.items() if _writable(v)})
        self.send("outcome", *outcome, states, back)
        self.rngs.clear()
        self.callbacks.clear()


class _Callback:
    """A checker's callable, called back in the grader (it stays there with its data)."""

    def __init__(self, worker: Worker, key: int, name: str):
        self.worker, self.key, self.__name__ = worker, key, name

    def __call__(self, *args, **kwargs):
        self.worker.send("callback", self.key, args, kwargs)
        reply, ok, value = self.worker.receive()
        if ok:
            return value
        kind, message = value
        raise _builtin_exception(kind)(message)


def _builtin_exception(name: str) -> type:
    import builtins
    found = getattr(builtins, name, None)
    return found if isinstance(found, type) and issubclass(found, Exception) else RuntimeError


def _is_library_object(value) -> bool:
    """An object of a library class (the algorithms), whose attributes the grader copies back."""
    module = getattr(type(value), "__module__", "") or ""
    return (module.startswith("panpriv_teach.")
            and not module.startswith(("panpriv_teach.exercises", "panpriv_teach.classroom"))
            and hasattr(value, "__dict__") and not isinstance(value, type))


def _writable(value) -> bool:
    import numpy as np
    return type(value) is np.ndarray or _is_library_object(value)


def _text(exc: BaseException) -> str:
    try:
        return str(exc)
    except Exception:
        return f"<{type(exc).__name__} that cannot be printed>"


def drop_privileges() -> None:
    """In a sandbox started by a grader running as root (`classroom.sandbox`), split in two:
    this process, the sandbox's first, stays as it is (root without capabilities but
    CAP_SETUID and CAP_SETGID, out of reach of the unprivileged worker) and only reaps
    processes until the worker ends, then exits as it did (128 + signal if killed), so that
    bwrap's --die-with-parent still reaches it and its exit takes the whole PID namespace
    along; the child, the worker, becomes the unprivileged user and group the sandbox names,
    for good: no supplementary groups, then real, effective and saved ids changed together,
    after which the kernel clears every capability. Raises (and the worker stops) if root or
    a capability is left."""
    wanted = os.environ.pop(DROP_TO, None)
    if wanted is None:
        return
    worker = os.fork()
    if worker:
        while True:
            pid, status = os.wait()
            if pid == worker:
                os._exit(128 + os.WTERMSIG(status) if os.WIFSIGNALED(status)
                         else os.WEXITSTATUS(status))
    global MAIN_PID
    MAIN_PID = os.getpid()
    ident = int(wanted)
    os.setgroups([])
    os.setresgid(ident, ident, ident)
    os.setresuid(ident, ident, ident)
    with open("/proc/self/status") as status:
        caps = [line.split()[1] for line in status if line.startswith(("CapPrm", "CapEff"))]
    if 0 in (*os.getresuid(), *os.getresgid()) or any(int(c, 16) for c in caps):
        raise SystemExit("the worker could not drop its privileges")


def main() -> None:
    drop_privileges()
    if os.environ.get("PANPRIV_WORKER_LOG"):   # for debugging the grader: the worker's stderr
        sys.stderr = open(os.environ["PANPRIV_WORKER_LOG"], "a", buffering=1)
    proto_in, proto_out = _claim_stdio()
    from panpriv_teach.classroom.grading import wire
    setup = wire.load_from_grader(wire.read_message(proto_in, limit=2**62))
    Worker(proto_in, proto_out, setup).serve()


if __name__ == "__main__":
    main()
