"""The grader's wire format: length-prefixed messages between the grader and its worker.

Grader → worker: ordinary pickles (the grader is trusted), in which numpy Generators and the
checkers' own callables travel as references (`GraderPickler`), so that the worker can hand
a Generator's state back and call a checker's callable back in the grader.

Worker → grader: student data only, and bounded. A message is at most MAX_MESSAGE bytes.
The worker turns a value into builtin containers and scalars with tags (`encode`); the
grader reads the pickle with `load_data`, whose unpickler resolves no global at all (it
cannot build any object but None, bool, int, float, str, bytes, list, tuple, dict, set:
Python's own "restricting globals" recipe, taken to the limit), and turns the tags back into
values (`decode`): numbers, bool, None, str, bytes, list, tuple, dict, set, complex, numpy
arrays (plain dtypes) and scalars, fractions.Fraction. Anything else (a range, an iterator,
a generator, an object) comes back as `Foreign(type name)`, never as the object and never
materialised. `decode` checks every value against its cap before building anything from
it (MAX_VALUES values in all, integers and a Fraction's terms of at most MAX_INT_BITS bits,
and MAX_BIG_BITS bits beyond 64 in all the integers of a message, strings of at most MAX_STR
characters): a value beyond a cap raises `TooLarge`, so no arithmetic (a Fraction's gcd)
ever runs on an oversized number, nor on a million large ones.
"""
from __future__ import annotations

import io
import math
import pickle
import struct
from fractions import Fraction

import numpy as np

MAX_MESSAGE = 32 * 2**20    # bytes: a larger message from the worker is refused
MAX_VALUES = 2_000_000      # values (numbers, strings, items) in one decoded value
MAX_INT_BITS = 2**16        # bits of an integer, and of a Fraction's numerator and denominator
MAX_BIG_BITS = 2**22        # bits beyond 64 of all the integers of one message, added up
MAX_STR = 2**20             # characters of a string, bytes of a bytes value
_DTYPE_KINDS = "biufcSUmM"  # numpy dtypes that are plain data
_HEADER = struct.Struct("<Q")


class WireError(Exception):
    """A message that breaks the protocol (too long, cut short, not data)."""


class TooLarge(WireError):
    """A well-formed value beyond one of the caps; the message says which, in words for the
    student ("an integer of 1,048,576 bits: the grader accepts at most 65,536")."""


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
    if kind is Fraction:
        return {"f": (value.numerator, value.denominator)}
    if kind is np.ndarray:
        if value.dtype.hasobject or value.dtype.kind not in _DTYPE_KINDS:
            return {"ao": (value.shape, [encode(v, extra) for v in value.ravel().tolist()])}
        return {"a": (value.dtype.str, value.shape, np.ascontiguousarray(value).tobytes())}
    if isinstance(value, np.generic) and kind.__module__ == "numpy" \
            and value.dtype.kind in _DTYPE_KINDS:
        return {"n": (value.dtype.str, value.tobytes())}
    return {"x": _type_name(value)}


def _type_name(value) -> str:
    kind = type(value)
    module = getattr(kind, "__module__", "") or ""
    name = kind.__qualname__
    return name if module in ("builtins", "__main__") else f"{module}.{name}"


def decode(data, extra=None, message: Decoder | None = None):
    """The value `encode` gave `data` for; unknown types become `Foreign`. `extra(tag, body)`
    may decode further tags (returning NotImplemented to decline). `message`: the Decoder
    of the message `data` is part of, whose count of values it adds to (default: its own).
    Raises TooLarge for a value beyond a cap, WireError for malformed data."""
    try:
        return (message or Decoder()).decode(data, extra)
    except WireError:
        raise
    except (TypeError, ValueError, KeyError, IndexError, OverflowError, RecursionError,
            MemoryError, ZeroDivisionError) as exc:
        raise WireError(f"malformed data from the worker ({type(exc).__name__}: {exc})") from None


def _integer(value) -> int:
    if type(value) is not int:
        raise WireError(f"expected an integer, got {type(value).__name__}")
    if value.bit_length() > MAX_INT_BITS:
        raise TooLarge(f"an integer of {value.bit_length():,} bits: the grader accepts at most "
                       f"{MAX_INT_BITS:,}")
    return value


def _dtype(name) -> np.dtype:
    dtype = np.dtype(str(name)[:40])
    if dtype.kind not in _DTYPE_KINDS or dtype.fields is not None or dtype.subdtype is not None:
        raise WireError(f"an array of dtype {dtype} sent as bytes")
    return dtype


class Decoder:
    """The decoding of one message, counting the values it builds in all its parts (at
    most MAX_VALUES: a part naming a shared structure again counts it again)."""

    def __init__(self):
        self.extra, self.left, self.big_left = None, MAX_VALUES, MAX_BIG_BITS

    def integer(self, value) -> int:
        """`value`, an integer within MAX_INT_BITS, its bits beyond 64 counted against the
        message's MAX_BIG_BITS (a million references to one large Fraction each cost a gcd)."""
        value = _integer(value)
        self.big_left -= max(value.bit_length() - 64, 0)
        if self.big_left < 0:
            raise TooLarge(f"integers of more than {MAX_BIG_BITS:,} bits beyond 64 in all: "
                           f"the grader accepts at most {MAX_BIG_BITS:,}")
        return value

    def count(self, n: int = 1) -> None:
        self.left -= n
        if self.left < 0:
            raise TooLarge(f"more than {MAX_VALUES:,} values: the grader accepts at most "
                           f"{MAX_VALUES:,} (a numpy array of numbers is one value)")

    def decode(self, data, extra=None):
        self.extra = extra
        return self.value(data)

    def value(self, data):
        self.count()
        kind = type(data)
        if kind is int:
            return self.integer(data)
        if kind in (str, bytes) and len(data) > MAX_STR:
            raise TooLarge(f"a {kind.__name__} of {len(data):,} characters: the grader accepts "
                           f"at most {MAX_STR:,}")
        if kind in _PLAIN:
            return data
        if kind is list:
            return [self.value(v) for v in data]
        if kind is not dict or len(data) != 1:
            raise WireError(f"unexpected {kind.__name__} on the wire")
        (tag, body), = data.items()
        if self.extra is not None:
            done = self.extra(tag, body)
            if done is not NotImplemented:
                return done
        return self.tagged(tag, body)

    def tagged(self, tag, body):
        if tag == "t":
            return tuple(self.value(v) for v in body)
        if tag == "d":
            return {self.value(k): self.value(v) for k, v in body}
        if tag in ("s", "fs"):
            items = [self.value(v) for v in body]
            return set(items) if tag == "s" else frozenset(items)
        if tag == "c":
            return complex(float(body[0]), float(body[1]))
        if tag == "f":
            return Fraction(self.integer(body[0]), self.integer(body[1]))
        if tag == "a":
            dtype, shape, raw = _dtype(body[0]), tuple(_integer(s) for s in body[1]), body[2]
            if not isinstance(raw, bytes) or len(shape) > 32 or min(shape, default=0) < 0:
                raise WireError("a malformed array")
            return np.frombuffer(raw, dtype=dtype).reshape(shape).copy()
        if tag == "ao":
            shape = tuple(_integer(s) for s in body[0])
            if len(body[1]) != math.prod(shape) or min(shape, default=0) < 0:
                raise WireError("a malformed array of objects")
            items = [self.value(v) for v in body[1]]
            array = np.empty(len(items), dtype=object)
            array[:] = items if items else []
            return array.reshape(shape)
        if tag == "n":
            if not isinstance(body[1], bytes):
                raise WireError("a malformed numpy scalar")
            return np.frombuffer(body[1], dtype=_dtype(body[0]))[0]
        if tag == "big":
            raise TooLarge(f"a value of {_integer(body):,} bytes: the grader accepts at most "
                           f"{MAX_MESSAGE:,}")
        if tag == "x":
            return Foreign(str(body)[:200])
        raise WireError(f"unknown tag {str(tag)[:20]!r} on the wire")


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
