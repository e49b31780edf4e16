"""The grader's wire format: length-prefixed messages between the grader and its worker.

Grader → worker: ordinary pickles (the grader is trusted), in which numpy Generators and the
checkers' own callables travel as references (`GraderPickler`), so that the worker can hand
a Generator's state back and call a checker's callable back in the grader.

Worker → grader: student data only. The worker turns a value into builtin containers and
scalars with tags (`encode`); the grader reads the pickle with `load_data`, whose unpickler
resolves no global at all (it cannot build any object but None, bool, int, float, str,
bytes, list, tuple, dict, set: Python's own "restricting globals" recipe, taken to the
limit), and turns the tags back into values (`decode`): numbers, bool, None, str, bytes,
list, tuple, dict, set, range, complex, numpy arrays (not of dtype object) and scalars,
fractions.Fraction. Anything else comes back as `Foreign(type name)`, never as the object.
"""
from __future__ import annotations

import io
import pickle
import struct
from fractions import Fraction

import numpy as np

MAX_MESSAGE = 512 * 2**20   # bytes: a larger message from the worker is refused
_HEADER = struct.Struct("<Q")


class WireError(Exception):
    """A message that breaks the protocol (too long, cut short, not data)."""


# ---------------------------------------------------------------- framing

def write_message(stream, payload: bytes) -> None:
    stream.write(_HEADER.pack(len(payload)) + payload)
    stream.flush()


def read_message(stream, limit: int = MAX_MESSAGE) -> bytes | None:
    """The next message, or None at the end of the stream."""
    header = stream.read(_HEADER.size)
    if not header:
        return None
    if len(header) < _HEADER.size:
        raise WireError("a message header was cut short")
    (size,) = _HEADER.unpack(header)
    if size > limit:
        raise WireError(f"a message of {size:,} bytes (more than {limit:,})")
    payload = stream.read(size)
    if len(payload) < size:
        raise WireError("a message was cut short")
    return payload


# ---------------------------------------------------------------- grader → worker

class GraderPickler(pickle.Pickler):
    """Pickles a message for the worker. `references(obj)` returns a persistent id for the
    objects that must not travel by value (Generators, checker callables), or None."""

    def __init__(self, file, references):
        super().__init__(file, protocol=pickle.HIGHEST_PROTOCOL)
        self._references = references

    def persistent_id(self, obj):
        return self._references(obj)


def dump_for_worker(message, references=lambda obj: None) -> bytes:
    buffer = io.BytesIO()
    GraderPickler(buffer, references).dump(message)
    return buffer.getvalue()


def load_from_grader(payload: bytes, resolve=None):
    """The worker's side: `resolve(persistent id)` rebuilds the references."""
    unpickler = pickle.Unpickler(io.BytesIO(payload))
    if resolve is not None:
        unpickler.persistent_load = resolve
    return unpickler.load()


# ---------------------------------------------------------------- worker → grader

class _DataOnly(pickle.Unpickler):
    def find_class(self, module, name):
        raise pickle.UnpicklingError(f"the worker sent a {module}.{name}; only data is accepted")

    def persistent_load(self, pid):
        raise pickle.UnpicklingError("the worker sent a persistent reference")


def dump_data(message) -> bytes:
    """The worker's side: pickle a message already made of builtin data (see `encode`)."""
    return pickle.dumps(message, protocol=pickle.HIGHEST_PROTOCOL)


def load_data(payload: bytes):
    """Unpickle a worker's message, building no object but builtin data."""
    try:
        return _DataOnly(io.BytesIO(payload)).load()
    except (pickle.UnpicklingError, EOFError, ValueError, TypeError, AttributeError,
            IndexError, KeyError, MemoryError, RecursionError) as exc:
        raise WireError(f"the worker sent something that is not data ({exc})") from None


class Foreign:
    """A value of a type the wire does not carry; only its type's name crossed."""

    def __init__(self, type_name: str):
        self.type_name = type_name

    def __repr__(self) -> str:
        return f"<an object of type {self.type_name}>"


_PLAIN = (type(None), bool, int, float, str, bytes)


def encode(value, extra=None):
    """`value` as builtin data with tags (dicts are always tags: {"d": pairs}). `extra(value)`
    may encode further types first (the worker's Generators and library objects) and return
    None to decline."""
    kind = type(value)
    if kind in _PLAIN:
        return value
    if extra is not None:
        done = extra(value)
        if done is not None:
            return done
    if kind is list:
        return [encode(v, extra) for v in value]
    if kind is tuple:
        return {"t": [encode(v, extra) for v in value]}
    if kind is dict:
        return {"d": [(encode(k, extra), encode(v, extra)) for k, v in value.items()]}
    if kind in (set, frozenset):
        return {"s" if kind is set else "fs": [encode(v, extra) for v in value]}
    if kind is bytearray:
        return bytes(value)
    if kind is complex:
        return {"c": (value.real, value.imag)}
    if kind is range:
        return {"r": (value.start, value.stop, value.step)}
    if kind is Fraction:
        return {"f": (value.numerator, value.denominator)}
    if kind is np.ndarray:
        if value.dtype.hasobject:
            return {"ao": (value.shape, [encode(v, extra) for v in value.ravel().tolist()])}
        return {"a": (value.dtype.str, value.shape, np.ascontiguousarray(value).tobytes())}
    if isinstance(value, np.generic) and kind.__module__ == "numpy" and not value.dtype.hasobject:
        return {"n": (value.dtype.str, value.tobytes())}
    return {"x": _type_name(value)}


def _type_name(value) -> str:
    kind = type(value)
    module = getattr(kind, "__module__", "") or ""
    return kind.__qualname__ if module in ("builtins", "__main__") else f"{module}.{kind.__qualname__}"


def decode(data, extra=None):
    """The value `encode` gave `data` for; unknown types become `Foreign`. `extra(tag, body)`
    may decode further tags (returning NotImplemented to decline). Raises WireError for
    malformed data."""
    try:
        return _decode(data, extra)
    except WireError:
        raise
    except (TypeError, ValueError, KeyError, IndexError, OverflowError, RecursionError,
            MemoryError, ZeroDivisionError) as exc:
        raise WireError(f"malformed data from the worker ({type(exc).__name__}: {exc})") from None


def _decode(data, extra):
    kind = type(data)
    if kind in _PLAIN:
        return data
    if kind is list:
        return [_decode(v, extra) for v in data]
    if kind is not dict or len(data) != 1:
        raise WireError(f"unexpected {kind.__name__} on the wire")
    (tag, body), = data.items()
    if extra is not None:
        done = extra(tag, body)
        if done is not NotImplemented:
            return done
    if tag == "t":
        return tuple(_decode(v, extra) for v in body)
    if tag == "d":
        return {_decode(k, extra): _decode(v, extra) for k, v in body}
    if tag in ("s", "fs"):
        items = [_decode(v, extra) for v in body]
        return set(items) if tag == "s" else frozenset(items)
    if tag == "c":
        return complex(float(body[0]), float(body[1]))
    if tag == "r":
        return range(int(body[0]), int(body[1]), int(body[2]))
    if tag == "f":
        return Fraction(int(body[0]), int(body[1]))
    if tag == "a":
        dtype, shape, raw = np.dtype(str(body[0])), tuple(int(s) for s in body[1]), body[2]
        if dtype.hasobject or not isinstance(raw, bytes):
            raise WireError("an array of objects sent as bytes")
        return np.frombuffer(raw, dtype=dtype).reshape(shape).copy()
    if tag == "ao":
        shape, items = tuple(int(s) for s in body[0]), [_decode(v, extra) for v in body[1]]
        array = np.empty(len(items), dtype=object)
        array[:] = items if items else []
        return array.reshape(shape)
    if tag == "n":
        dtype = np.dtype(str(body[0]))
        if dtype.hasobject or not isinstance(body[1], bytes):
            raise WireError("a numpy scalar of objects")
        return np.frombuffer(body[1], dtype=dtype)[0]
    if tag == "x":
        return Foreign(str(body))
    raise WireError(f"unknown tag {tag!r} on the wire")


def foreign_in(value) -> Foreign | None:
    """The first Foreign inside a decoded value (through containers), or None."""
    if isinstance(value, Foreign):
        return value
    if isinstance(value, (list, tuple, set, frozenset)):
        items = value
    elif isinstance(value, dict):
        items = [*value.keys(), *value.values()]
    elif isinstance(value, np.ndarray) and value.dtype.hasobject:
        items = value.ravel().tolist()
    else:
        return None
    for item in items:
        found = foreign_in(item)
        if found is not None:
            return found
    return None
