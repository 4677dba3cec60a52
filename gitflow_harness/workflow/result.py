"""What a verb returns: outcome, data, hints, and the facts its `verb` event records.

The SessionStart hook runs `ensure`, so nothing here imports `typing` or `dataclasses`
(`tests/agent/test_imports.py`): the result is a `NamedTuple` of `gitflow_harness.records`; the
other verbs' data records are dataclasses, which load `dataclasses` in their own modules.
"""

from __future__ import annotations

from gitflow_harness import MappingProxyType
from gitflow_harness.errors import EXIT_FAILED, EXIT_OK, EXIT_USAGE
from gitflow_harness.records import Mutable

# Not `typing.TYPE_CHECKING`: importing typing costs ~2 ms per hook call (mypy reads the name).
TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Mapping
    from typing import Any, Final, Literal, NamedTuple

    from gitflow_harness.hints import Hint

    Outcome = Literal["ok", "failed", "refused", "partial"]
    Gate = Literal["green", "red"]
else:
    from gitflow_harness.records import NamedTuple

    Outcome = Gate = str  # the names other modules import; mypy reads the literals above

# The git facts every `verb` event carries (docs/events.md), None when unknown.
FACT_KEYS: Final = ("trunk", "clean", "head", "tree", "ahead", "behind")


class VerbData(Mutable):
    """A verb's typed data, written as the envelope's `data` object (the `--json` contract).

    A verb declares its data as a frozen dataclass subclass (`@dataclass(frozen=True,
    slots=True)`), or, where its module is on the hook's path (`ensure`), as a `__slots__`
    subclass naming its fields in order in `_fields`, with `Mutable`'s equality and repr. The
    keys are the fields, in the order they are declared. A dataclass field declared with
    `field(metadata=key(NAME))` is written under NAME (`from`, a Python keyword); one declared
    with `field(metadata=INLINE)` holds a record of the outcome's own keys, written in line
    after the fields before it (nothing when it is None).
    """

    __slots__ = ()

    def to_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {}
        for name, written, inline in _layout(self):
            value = getattr(self, name)
            if inline:
                out.update(value.to_dict() if value is not None else {})
            else:
                out[written] = value
        return out


def _layout(data: VerbData) -> list[tuple[str, str, bool]]:
    """(attribute, key, inline) of each field of `data`, in order."""
    if not hasattr(data, "__dataclass_fields__"):
        return [(name, name, False) for name in data._fields]
    import dataclasses  # loaded already: the record is a dataclass

    return [
        (f.name, f.metadata.get("key", f.name), bool(f.metadata.get("inline")))
        for f in dataclasses.fields(data)  # type: ignore[arg-type]  # a dataclass, checked above
    ]


INLINE: Final = {"inline": True}


def key(name: str) -> dict[str, str]:
    """The metadata of a `VerbData` field written under `name`."""
    return {"key": name}


class Refused(VerbData):
    """The data of a verb refused by an expected error: the error's one line."""

    __slots__ = ("error",)
    _fields = __slots__

    def __init__(self, error: str) -> None:
        self.error = error


class EndTurnNotRecorded(VerbData):
    """The data of `status --end-turn` whose evidence could not be appended to the log."""

    __slots__ = ("error", "reason")
    _fields = ("reason", "error")

    def __init__(self, reason: str, error: str) -> None:
        self.reason = reason  # end-turn-not-recorded
        self.error = error


class VerbResult(NamedTuple):
    """The result of one verb run."""

    verb: str
    outcome: Outcome
    data: VerbData
    hints: tuple[Hint, ...] = ()
    facts: Mapping[str, Any] = MappingProxyType({})
    gate: Gate | None = None  # test and done only
    probe: bool | None = None  # done only
    message: str = ""  # one line saying what happened, for people
    # The failure was the environment's or the configuration's, not the work's (a gate program
    # that is not installed): exit 2, as for any usage or configuration error.
    usage: bool = False

    @property
    def exit_code(self) -> int:
        if self.usage:
            return EXIT_USAGE
        return EXIT_OK if self.outcome == "ok" else EXIT_FAILED

    def envelope(self, hints: tuple[Hint, ...] | None = None) -> dict[str, Any]:
        """Return the `--json` object: verb, outcome, data and the delivered hints."""
        shown = self.hints if hints is None else hints
        return {
            "verb": self.verb,
            "outcome": self.outcome,
            "data": self.data.to_dict(),
            "hints": [h.to_dict() for h in shown],
        }
