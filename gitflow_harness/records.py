"""`NamedTuple` for the modules a hook call loads, without importing `typing`.

Importing `typing` costs about 2 ms per hook call. A record declared as `class R(NamedTuple)`
with this `NamedTuple` is built by `collections.namedtuple` from the class body, as
`typing.NamedTuple` builds it: the same fields in the same order, trailing defaults, methods,
docstring, equality, immutability and `_replace`/`_asdict`. Type checkers read
`typing.NamedTuple` instead.
"""

from __future__ import annotations

import collections

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

# What the class body may not redefine, and what is the class's own, as `typing` has them.
_PROHIBITED = frozenset(
    {"__new__", "__init__", "__slots__", "__getnewargs__", "_fields", "_field_defaults"}
    | {"_make", "_replace", "_asdict", "_source"}
)
_SPECIAL = frozenset({"__module__", "__name__", "__annotations__"})


class _NamedTupleMeta(type):
    def __new__(mcs, name: str, bases: tuple[type, ...], namespace: dict[str, Any]) -> type:
        annotations = dict(namespace.get("__annotations__", {}))
        fields = list(annotations)
        defaults = [namespace[f] for f in fields if f in namespace]
        if any(f not in namespace for f in fields[len(fields) - len(defaults) :]):
            raise TypeError(f"{name}: a field without a default follows one with a default")
        make = collections.namedtuple
        record = make(name, fields, defaults=defaults, module=namespace["__module__"])
        record.__annotations__ = annotations
        for key, value in namespace.items():
            if key in _PROHIBITED:
                raise AttributeError(f"{name}: cannot overwrite NamedTuple attribute {key}")
            if key not in _SPECIAL and key not in fields:
                setattr(record, key, value)
        return record


if TYPE_CHECKING:
    from typing import NamedTuple as NamedTuple
else:
    NamedTuple = type.__new__(_NamedTupleMeta, "NamedTuple", (), {})


class Mutable:
    """A mutable record without `dataclasses` (which imports `inspect`, ~6 ms): a subclass
    names its fields in order in `_fields`, makes them its `__slots__` and sets them in
    `__init__`; equality and repr follow the fields, as a dataclass's do."""

    __slots__ = ()
    _fields: tuple[str, ...] = ()
    __hash__ = None  # type: ignore[assignment]  # mutable: unhashable, as a dataclass

    def _values(self) -> tuple[object, ...]:
        return tuple(getattr(self, name) for name in self._fields)

    def __eq__(self, other: object) -> bool:
        if other.__class__ is not self.__class__:
            return NotImplemented
        return self._values() == other._values()

    def __repr__(self) -> str:
        pairs = ", ".join(f"{n}={v!r}" for n, v in zip(self._fields, self._values(), strict=True))
        return f"{type(self).__name__}({pairs})"
