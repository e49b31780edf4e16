"""Shared by the checker tests: assert a checker passes a correct answer, or fails with a
diagnosis that names the mistake, and the broken answers every checker must survive."""
import pytest

from panpriv_teach.exercises.harness import ExerciseFailed


def passes(checker, answer, capsys):
    """The checker accepts `answer` and prints its pass line."""
    checker(answer, strict=True)
    assert f"✓ Exercise {checker.exercise} passed" in capsys.readouterr().out


def fails_with(checker, answer, *words):
    """The checker rejects `answer` with a diagnosis containing every one of `words`."""
    with pytest.raises(ExerciseFailed) as info:
        checker(answer, strict=True)
    message = str(info.value).lower()
    for word in words:
        assert word.lower() in message, f"expected {word!r} in the diagnosis: {message}"
    return info.value


def raises(*args, **kwargs):
    raise KeyError("oops")


def never_returns(*args, **kwargs):
    while True:
        pass
