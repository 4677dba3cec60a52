from __future__ import annotations

import pytest

from gitflow_harness.firing.record import Record


class Point(Record):
    FIELDS = ("x", "y")
    __slots__ = FIELDS
    x: int
    y: int

    def __init__(self, x: int, y: int) -> None:
        self._init(x=x, y=y)


def test_records_compare_by_type_and_fields() -> None:
    assert Point(1, 2) == Point(1, 2)
    assert Point(1, 2) != Point(2, 1)
    assert hash(Point(1, 2)) == hash(Point(1, 2))
    assert Point(1, 2) != (1, 2)


def test_records_refuse_assignment_and_deletion() -> None:
    point = Point(1, 2)
    with pytest.raises(AttributeError, match="immutable"):
        point.x = 5  # type: ignore[misc]
    with pytest.raises(AttributeError, match="immutable"):
        del point.y
    assert point.x == 1


def test_repr_lists_fields_in_declared_order() -> None:
    assert repr(Point(3, 4)) == "Point(x=3, y=4)"
