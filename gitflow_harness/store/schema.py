"""Declared schemas: one declaration per kind of file drives validation, lint, fixes and docs.

A `Schema` lists `Field`s, each with a converter that turns a parsed value into a typed one or
says, in words a user can act on, what is wrong. Every problem carries `path:line`.
"""

from __future__ import annotations

from gitflow_harness import MappingProxyType

# Not `typing.TYPE_CHECKING`: importing typing costs ~2 ms per hook call (mypy reads the name).
# Nor `collections.abc` or `math` (a library to load) where a first load parses 500 ways.
TYPE_CHECKING = False
if TYPE_CHECKING:
    import datetime as dt
    from collections.abc import Callable, Mapping
    from typing import Any, Final, NamedTuple
else:
    from gitflow_harness.records import NamedTuple


class Problem(NamedTuple):
    """One finding about a file: `path:line: severity: message`."""

    path: str
    line: int | None
    severity: str  # "error" | "warning" | "note"
    message: str

    def __str__(self) -> str:
        where = f"{self.path}:{self.line}" if self.line else self.path
        return f"{where}: {self.severity}: {self.message}"


class Invalid(ValueError):
    """Raised by a converter: the message says what was expected."""


class Converter:
    """Turns a parsed value into a typed one, or raises `Invalid`."""

    description = "a value"

    def __call__(self, value: Any) -> Any:
        return value


class Str(Converter):
    def __init__(self, *, nonempty: bool = False, one_line: bool = False) -> None:
        self.nonempty = nonempty
        self.one_line = one_line
        self.description = "a non-empty string" if nonempty else "a string"
        if one_line:
            self.description = "a one-line string"

    def __call__(self, value: Any) -> str:
        if not isinstance(value, str):
            raise Invalid(f"expected {self.description}, got {_kind(value)}")
        if self.nonempty and not value.strip():
            raise Invalid(f"expected {self.description}, got an empty one")
        if self.one_line and "\n" in value.strip():
            raise Invalid("expected one line, got several")
        return value


class _Number(Converter):
    """A number within optional bounds; NaN and infinities are never a setting."""

    kind = "a number"

    def __init__(self, *, min: float | None = None, max: float | None = None) -> None:
        self.min, self.max = min, max
        bounds = [f">= {min}"] if min is not None else []
        bounds += [f"<= {max}"] if max is not None else []
        self.description = self.kind + (f" {' and '.join(bounds)}" if bounds else "")

    def _accepts(self, value: Any) -> bool:
        return not isinstance(value, bool) and isinstance(value, int | float)

    def _check(self, value: Any) -> None:
        if not self._accepts(value):
            raise Invalid(f"expected {self.description}, got {_kind(value)}")
        if (
            (isinstance(value, float) and not _finite(value))
            or (self.min is not None and value < self.min)
            or (self.max is not None and value > self.max)
        ):
            raise Invalid(f"expected {self.description}, got {value}")


def _finite(value: float) -> bool:
    import math

    return math.isfinite(value)


class Int(_Number):
    kind = "an integer"

    def _accepts(self, value: Any) -> bool:
        return not isinstance(value, bool) and isinstance(value, int)

    def __call__(self, value: Any) -> int:
        self._check(value)
        return int(value)


class Float(_Number):
    def __call__(self, value: Any) -> float:
        self._check(value)
        return float(value)


class Bool(Converter):
    description = "true or false"

    def __call__(self, value: Any) -> bool:
        if not isinstance(value, bool):
            raise Invalid(f"expected {self.description}, got {_kind(value)}")
        return value


class Choice(Converter):
    def __init__(self, *choices: str) -> None:
        self.choices = choices
        self.description = "one of " + ", ".join(repr(c) for c in choices)

    def __call__(self, value: Any) -> str:
        if value not in self.choices:
            raise Invalid(f"expected {self.description}, got {value!r}")
        return str(value)


class StrList(Converter):
    def __init__(self, *, item: Converter | None = None, nonempty: bool = False) -> None:
        self.item = item or Str()
        self.nonempty = nonempty
        self.description = f"a list of {self.item.description.removeprefix('a ')}s"

    def __call__(self, value: Any) -> tuple[Any, ...]:
        if not isinstance(value, list):
            raise Invalid(f"expected {self.description}, got {_kind(value)}")
        if self.nonempty and not value:
            raise Invalid(f"expected {self.description} with at least one item")
        out = []
        for i, item in enumerate(value):
            try:
                out.append(self.item(item))
            except Invalid as exc:
                raise Invalid(f"item {i + 1}: {exc}") from None
        return tuple(out)


class Date(Converter):
    description = "a date YYYY-MM-DD"

    def __call__(self, value: Any) -> dt.date:
        import datetime as dt  # here: no document a hook call reads has a date

        if isinstance(value, dt.datetime):
            return value.date()
        if isinstance(value, dt.date):
            return value
        if isinstance(value, str):
            try:
                return dt.date.fromisoformat(value)
            except ValueError:
                pass
        raise Invalid(f"expected {self.description}, got {value!r}")


class Mapping_(Converter):
    description = "a mapping"

    def __call__(self, value: Any) -> dict[str, Any]:
        if not isinstance(value, dict):
            raise Invalid(f"expected {self.description}, got {_kind(value)}")
        return value


class _Required:
    def __repr__(self) -> str:
        return "REQUIRED"


REQUIRED: Final = _Required()


class Field(NamedTuple):
    """One declared key: how to convert it, its default (or REQUIRED), and its doc line."""

    name: str
    convert: Callable[[Any], Any]
    default: Any = None
    doc: str = ""

    @property
    def required(self) -> bool:
        return self.default is REQUIRED


class Schema(NamedTuple):
    """The declared fields of one kind of file."""

    kind: str
    fields: tuple[Field, ...]
    extra_prefix: str | None = "x-"
    noun: str = "field"
    # Keys that are not merely unknown but retired, each with the fix to suggest.
    forbidden: Mapping[str, str] = MappingProxyType({})

    def field(self, name: str) -> Field | None:
        for f in self.fields:
            if f.name == name:
                return f
        return None

    @property
    def names(self) -> tuple[str, ...]:
        return tuple(f.name for f in self.fields)

    def unknown_keys(self, mapping: Mapping[str, Any]) -> list[str]:
        """Return keys that are neither declared, forbidden, nor free (`x-*`)."""
        names = self.names
        return [
            k
            for k in mapping
            if k not in names
            and k not in self.forbidden
            and not (self.extra_prefix and isinstance(k, str) and k.startswith(self.extra_prefix))
        ]

    def check(
        self,
        mapping: Mapping[str, Any],
        *,
        path: str,
        lines: Mapping[str, int],
        default_line: int | None = None,
        qualifier: str = "",
    ) -> tuple[dict[str, Any], list[Problem]]:
        """Convert `mapping`; return the typed values and every problem found.

        `qualifier` prefixes key names in messages (`gate.` gives `gate.push`).
        """
        values: dict[str, Any] = {}
        problems: list[Problem] = []
        for key, fix in self.forbidden.items():
            if key in mapping:
                problems.append(Problem(path, lines.get(key, default_line), "error", fix))
        for key in self.unknown_keys(mapping):
            problems.append(
                Problem(
                    path,
                    lines.get(key, default_line),
                    "error",
                    f"unknown {self.noun} '{qualifier}{key}' in {self.kind}"
                    + (
                        f" (known: {', '.join(self.names)}"
                        + (
                            f"; free-form {self.noun}s start with {self.extra_prefix!r})"
                            if self.extra_prefix
                            else ")"
                        )
                    ),
                )
            )
        for f in self.fields:
            if f.name not in mapping:
                if f.required:
                    problems.append(
                        Problem(
                            path,
                            default_line,
                            "error",
                            f"missing required {self.noun} '{qualifier}{f.name}'",
                        )
                    )
                else:
                    values[f.name] = f.default
                continue
            try:
                values[f.name] = f.convert(mapping[f.name])
            except Invalid as exc:
                problems.append(
                    Problem(
                        path,
                        lines.get(f.name, default_line),
                        "error",
                        f"{qualifier}{f.name}: {exc}",
                    )
                )
        return values, problems


def describe(schema: Schema) -> list[tuple[str, str, str]]:
    """Return (name, type, doc) rows for documentation."""
    rows = []
    for f in schema.fields:
        desc = getattr(f.convert, "description", "a value")
        rows.append((f.name, desc + (" (required)" if f.required else ""), f.doc))
    return rows


def _kind(value: Any) -> str:
    if value is None:
        return "nothing"
    if isinstance(value, bool):
        return f"{str(value).lower()} (a boolean)"
    if isinstance(value, int | float):
        return f"{value} (a number)"
    if isinstance(value, str):
        return f"{value!r} (a string)"
    if isinstance(value, list):
        return "a list"
    if isinstance(value, dict):
        return "a mapping"
    return type(value).__name__
