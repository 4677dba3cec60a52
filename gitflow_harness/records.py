"""`NamedTuple` for the modules a hook call loads, without importing `typing`.

Importing `typing` costs about 2 ms per hook call. A record declared as `class R(NamedTuple)`
with this `NamedTuple` is the record `typing.NamedTuple` builds from the class body: the same
fields in the same order, trailing defaults, methods, docstring, equality, immutability,
`_make`/`_replace`/`_asdict`, keyword arguments and their errors. Type checkers read
`typing.NamedTuple` instead.

It is built without compiling anything: `collections.namedtuple` compiles a `__new__` for each
record (about 370,000 instructions, 80 us here, a dozen times in every verb that reads git),
where this takes one of the `__new__` below, compiled with this module, and gives its
parameters the record's field names (a new code object, no compiling). A record of more fields
than they take is left to `collections.namedtuple`.
"""

from __future__ import annotations

try:
    from _collections import _tuplegetter  # type: ignore[import-not-found]
except ImportError:  # another Python: what `collections.namedtuple` falls back to
    from operator import itemgetter

    def _tuplegetter(index: int, doc: str) -> property:
        return property(itemgetter(index), doc=doc)


TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

_tuple_new = tuple.__new__

# What the class body may not redefine, and what is the class's own, as `typing` has them.
_PROHIBITED = frozenset(
    {"__new__", "__init__", "__slots__", "__getnewargs__", "_fields", "_field_defaults"}
    | {"_make", "_replace", "_asdict", "_source"}
)
_SPECIAL = frozenset({"__module__", "__name__", "__annotations__"})


# One `__new__` per number of fields; a record's copy has its fields' names for parameters.
def _new0(_cls):  # type: ignore[no-untyped-def]
    return _tuple_new(_cls, ())


def _new1(_cls, a):  # type: ignore[no-untyped-def]
    return _tuple_new(_cls, (a,))


def _new2(_cls, a, b):  # type: ignore[no-untyped-def]
    return _tuple_new(_cls, (a, b))


def _new3(_cls, a, b, c):  # type: ignore[no-untyped-def]
    return _tuple_new(_cls, (a, b, c))


def _new4(_cls, a, b, c, d):  # type: ignore[no-untyped-def]
    return _tuple_new(_cls, (a, b, c, d))


def _new5(_cls, a, b, c, d, e):  # type: ignore[no-untyped-def]
    return _tuple_new(_cls, (a, b, c, d, e))


def _new6(_cls, a, b, c, d, e, f):  # type: ignore[no-untyped-def]
    return _tuple_new(_cls, (a, b, c, d, e, f))


def _new7(_cls, a, b, c, d, e, f, g):  # type: ignore[no-untyped-def]
    return _tuple_new(_cls, (a, b, c, d, e, f, g))


def _new8(_cls, a, b, c, d, e, f, g, h):  # type: ignore[no-untyped-def]
    return _tuple_new(_cls, (a, b, c, d, e, f, g, h))


def _new9(_cls, a, b, c, d, e, f, g, h, i):  # type: ignore[no-untyped-def]
    return _tuple_new(_cls, (a, b, c, d, e, f, g, h, i))


def _new10(_cls, a, b, c, d, e, f, g, h, i, j):  # type: ignore[no-untyped-def]
    return _tuple_new(_cls, (a, b, c, d, e, f, g, h, i, j))


def _new11(_cls, a, b, c, d, e, f, g, h, i, j, k):  # type: ignore[no-untyped-def]
    return _tuple_new(_cls, (a, b, c, d, e, f, g, h, i, j, k))


def _new12(_cls, a, b, c, d, e, f, g, h, i, j, k, l):  # type: ignore[no-untyped-def]  # noqa: E741
    return _tuple_new(_cls, (a, b, c, d, e, f, g, h, i, j, k, l))


_NEW = (
    *(_new0, _new1, _new2, _new3, _new4, _new5, _new6),
    *(_new7, _new8, _new9, _new10, _new11, _new12),
)

if TYPE_CHECKING:
    from types import FunctionType
else:
    FunctionType = type(_new0)  # without importing `types` for it


class _Shared(tuple):  # type: ignore[type-arg]
    """The methods every record has, as `collections.namedtuple` gives them; copied into each
    record's class (whose one base is `tuple`, as `typing`'s records have it)."""

    __slots__ = ()
    _fields: tuple[str, ...]

    @classmethod
    def _make(cls, iterable: Any) -> Any:
        """Make a new record from a sequence or iterable."""
        result = _tuple_new(cls, iterable)
        if len(result) != len(cls._fields):
            raise TypeError(f"Expected {len(cls._fields)} arguments, got {len(result)}")
        return result

    def _replace(self, /, **changes: Any) -> Any:
        """Return a new record replacing the fields given with new values."""
        result = self._make(map(changes.pop, self._fields, self))
        if changes:
            raise ValueError(f"Got unexpected field names: {list(changes)!r}")
        return result

    def __repr__(self) -> str:
        """Return a nicely formatted representation string."""
        pairs = ", ".join(
            [f"{name}={value!r}" for name, value in zip(self._fields, self, strict=True)]
        )
        return f"{self.__class__.__name__}({pairs})"

    def _asdict(self) -> dict[str, Any]:
        """Return a new dict which maps field names to their values."""
        return dict(zip(self._fields, self, strict=True))

    def __getnewargs__(self) -> tuple[Any, ...]:
        """Return self as a plain tuple.  Used by copy and pickle."""
        return tuple(self)


_SHARED = {
    name: _Shared.__dict__[name]
    for name in ("_make", "_replace", "__repr__", "_asdict", "__getnewargs__")
}


def _record(
    name: str, fields: list[str], defaults: list[Any], module: str, own: dict[str, Any]
) -> type:
    """Build the class `collections.namedtuple(name, fields, defaults=..., module=...)` builds,
    with the class body's own attributes (`own`: methods, docstring) added."""
    if len(fields) >= len(_NEW):
        # Only here: `collections` costs a call that reads the event log 7.5M instructions.
        import collections

        make = collections.namedtuple  # a name: mypy checks literal calls of it only
        record = make(name, fields, defaults=defaults, module=module)
        for key, value in own.items():
            setattr(record, key, value)
        return record
    for field in fields:  # the names of a class body's annotations: identifiers, each once
        if field.startswith("_"):
            raise ValueError(f"Field names cannot start with an underscore: {field!r}")
    template = _NEW[len(fields)]
    code = template.__code__.replace(
        co_varnames=("_cls", *fields), co_name="__new__", co_qualname=f"{name}.__new__"
    )
    new = FunctionType(code, template.__globals__, "__new__", tuple(defaults) or None)
    arguments = ", ".join(fields)
    new.__doc__ = f"Create new instance of {name}({arguments})"
    namespace: dict[str, Any] = {
        "__doc__": f"{name}({arguments})",
        "__slots__": (),
        "_fields": tuple(fields),
        "_field_defaults": dict(zip(fields[len(fields) - len(defaults) :], defaults, strict=True)),
        "__new__": new,
        **_SHARED,
        "__match_args__": tuple(fields),
        "__module__": module,
    }
    for index, field in enumerate(fields):
        namespace[field] = _tuplegetter(index, f"Alias for field number {index}")
    namespace.update(own)  # in the namespace: setting attributes of a class afterwards costs more
    return type(name, (tuple,), namespace)


class _NamedTupleMeta(type):
    def __new__(mcs, name: str, bases: tuple[type, ...], namespace: dict[str, Any]) -> type:
        annotations = dict(namespace.get("__annotations__", {}))
        fields = list(annotations)
        defaults = [namespace[f] for f in fields if f in namespace]
        if any(f not in namespace for f in fields[len(fields) - len(defaults) :]):
            raise TypeError(f"{name}: a field without a default follows one with a default")
        own = {"__annotations__": annotations}
        for key, value in namespace.items():
            if key in _PROHIBITED:
                raise AttributeError(f"{name}: cannot overwrite NamedTuple attribute {key}")
            if key not in _SPECIAL and key not in fields:
                own[key] = value
        return _record(name, fields, defaults, namespace["__module__"], own)


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
