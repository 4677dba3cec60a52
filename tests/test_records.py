"""The hook path's `NamedTuple` builds the records `typing.NamedTuple` builds."""

from __future__ import annotations

import typing

import pytest

from gitflow_harness.records import Mutable, NamedTuple
from tests.helpers import probe as run_probe


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
    assert run_probe(probe, check=True).stdout.strip() == "False"


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


@pytest.mark.parametrize("count", [0, 1, 2, 5, 12, 13, 16])
def test_a_record_of_any_size_behaves_as_the_typing_one(count: int) -> None:
    names = [f"f{i}" for i in range(count)]
    body = "".join(f"    {n}: int\n" for n in names[: count // 2])
    body += "".join(f"    {n}: int = {i}\n" for i, n in enumerate(names[count // 2 :]))
    built: dict[str, type] = {}
    for base, where in ((NamedTuple, "ours"), (typing.NamedTuple, "typing")):
        space: dict[str, object] = {"Base": base}
        exec(f"class R(Base):\n    'A record.'\n{body or '    pass'}\n", space)
        built[where] = space["R"]  # type: ignore[assignment]
    ours, theirs = built["ours"], built["typing"]
    required = list(range(100, 100 + count // 2))
    a, b = ours(*required), theirs(*required)
    assert a == b
    assert type(a).__bases__ == (tuple,)
    assert repr(a) == repr(b)
    assert a._asdict() == b._asdict()
    assert ours._fields == theirs._fields  # type: ignore[attr-defined]
    assert ours._field_defaults == theirs._field_defaults  # type: ignore[attr-defined]
    assert ours.__match_args__ == theirs.__match_args__  # type: ignore[attr-defined]
    keywords = {n: -i for i, n in enumerate(names)}
    assert ours(**keywords) == theirs(**keywords)
    assert ours._make(range(count)) == theirs._make(range(count))  # type: ignore[attr-defined]
    for call in (
        lambda cls: cls(*range(count + 1)),
        lambda cls: cls(nope=1, **keywords),
        lambda cls: cls._make(range(count + 1)),
        lambda cls: cls(*required)._replace(nope=1),
    ):
        with pytest.raises((TypeError, ValueError)) as mine:
            call(ours)
        with pytest.raises((TypeError, ValueError)) as typing_one:
            call(theirs)
        assert type(mine.value) is type(typing_one.value)
        assert str(mine.value).replace("R.", "") == str(typing_one.value).replace("R.", "")
    for n in names:
        assert getattr(a, n) == getattr(b, n)


def test_a_missing_argument_is_named_as_by_the_typing_one() -> None:
    with pytest.raises(
        TypeError, match=r"__new__\(\) missing 1 required positional argument: 'first'"
    ):
        Pair()  # type: ignore[call-arg]


def test_a_record_pickles_and_copies() -> None:
    import copy
    import pickle

    pair = Pair(3, "x")
    assert pickle.loads(pickle.dumps(pair)) == pair
    assert type(pickle.loads(pickle.dumps(pair))) is Pair
    assert copy.copy(pair) == pair
    assert copy.deepcopy(pair) == pair


def test_a_field_starting_with_an_underscore_is_refused() -> None:
    with pytest.raises(ValueError, match="cannot start with an underscore"):

        class Hidden(NamedTuple):
            _value: int
