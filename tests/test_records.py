"""The hook path's `NamedTuple` builds the records `typing.NamedTuple` builds."""

from __future__ import annotations

import subprocess
import sys
import typing

import pytest

from gitflow_harness.records import Mutable, NamedTuple
from tests.helpers import unmeasured_env


class Pair(NamedTuple):
    """Two values, the second optional."""

    first: int
    second: str = "b"

    def both(self) -> str:
        return f"{self.first}{self.second}"


class TypedPair(typing.NamedTuple):
    """Two values, the second optional."""

    first: int
    second: str = "b"


def test_a_record_behaves_as_the_typing_one() -> None:
    pair, typed = Pair(1), TypedPair(1)
    assert pair == typed == (1, "b")  # type: ignore[comparison-overlap]
    assert Pair._fields == TypedPair._fields
    assert Pair._field_defaults == TypedPair._field_defaults
    assert list(Pair.__annotations__) == list(TypedPair.__annotations__)
    assert repr(pair) == "Pair(first=1, second='b')"
    assert pair._replace(second="c").both() == "1c"
    assert pair._asdict() == {"first": 1, "second": "b"}
    assert Pair.__doc__ == TypedPair.__doc__
    assert Pair.__module__ == __name__
    assert hash(pair) == hash(typed)


def test_a_record_is_immutable() -> None:
    with pytest.raises(AttributeError):
        Pair(1).first = 2  # type: ignore[misc]


def test_a_field_without_a_default_after_one_with_is_refused() -> None:
    with pytest.raises(TypeError, match="Late: a field without a default"):

        class Late(NamedTuple):
            early: int = 0
            late: int  # type: ignore[misc]


def test_a_namedtuple_method_cannot_be_redefined() -> None:
    with pytest.raises(AttributeError, match="cannot overwrite NamedTuple attribute _replace"):

        class Replacing(NamedTuple):
            value: int

            def _replace(self) -> None:  # type: ignore[misc]
                pass


def test_building_a_record_imports_no_typing() -> None:
    probe = (
        "import sys\n"
        "from gitflow_harness.records import NamedTuple\n"
        "class R(NamedTuple):\n"
        "    value: int\n"
        "print('typing' in sys.modules)\n"
    )
    # Unmeasured: coverage, which measures every child of the suite, imports typing itself.
    proc = subprocess.run(
        [sys.executable, "-c", probe],
        capture_output=True,
        text=True,
        check=True,
        env=unmeasured_env(),
    )
    assert proc.stdout.strip() == "False"


class Counts(Mutable):
    _fields = ("name", "seen")
    __slots__ = _fields

    def __init__(self, name: str, seen: int = 0) -> None:
        self.name = name
        self.seen = seen


def test_a_mutable_record_compares_and_shows_its_fields_in_order() -> None:
    counts = Counts("a")
    counts.seen += 1
    assert counts == Counts("a", 1)
    assert counts != Counts("a")
    assert counts != ("a", 1)
    assert repr(counts) == "Counts(name='a', seen=1)"
    with pytest.raises(TypeError):
        hash(counts)
