"""A frozen, slotted record base that costs nothing to import.

`dataclasses` pulls in `inspect` (~6 ms) and `typing` costs ~2 ms: more than the whole budget of
the warm ways index, which the agent hook loads on every tool call. Records here declare their
fields in `__slots__`, set them once in `__init__` through `_init`, and get equality, hashing and
a readable repr from the base.
"""

from __future__ import annotations

TYPE_CHECKING = False  # no `typing` import at run time
if TYPE_CHECKING:
    from typing import TypeVar

    R = TypeVar("R", bound="Record")


_SET = object.__setattr__


class Record:
    """Immutable after construction; equal when of the same type with equal fields.

    A subclass lists its fields in order in `FIELDS` and declares `__slots__ = FIELDS`.
    """

    __slots__ = ()
    FIELDS: tuple[str, ...] = ()

    def _init(self, **values: object) -> None:
        for name, value in values.items():
            object.__setattr__(self, name, value)

    @classmethod
    def _make(cls: type[R], *values: object) -> R:
        """Build a record from its field values in `FIELDS` order, bypassing `__init__`.

        For data that was validated when it was first built (the ways index cache).
        """
        if len(values) != len(cls.FIELDS):
            raise TypeError(f"{cls.__name__} takes {len(cls.FIELDS)} values, not {len(values)}")
        self = object.__new__(cls)
        set_ = _SET  # a local: this runs for every way of the index on every hook call
        for name, value in zip(cls.FIELDS, values):  # noqa: B905  (lengths checked above)
            set_(self, name, value)
        return self

    def _values(self) -> tuple[object, ...]:
        return tuple(getattr(self, name) for name in self.FIELDS)

    def __setattr__(self, name: str, value: object) -> None:
        raise AttributeError(f"{type(self).__name__} is immutable; build a new one")

    def __delattr__(self, name: str) -> None:
        raise AttributeError(f"{type(self).__name__} is immutable")

    def __eq__(self, other: object) -> bool:
        if type(other) is not type(self):
            return NotImplemented
        assert isinstance(other, Record)
        return self._values() == other._values()

    def __hash__(self) -> int:
        return hash((type(self).__name__, self._values()))

    def __repr__(self) -> str:
        fields = ", ".join(f"{name}={getattr(self, name)!r}" for name in self.FIELDS)
        return f"{type(self).__name__}({fields})"
