"""What a verb returns: outcome, data, hints, and the facts its `verb` event records."""

from __future__ import annotations

from dataclasses import dataclass, field, fields
from typing import Any, Final, Literal

from gitflow_harness.errors import EXIT_FAILED, EXIT_OK, EXIT_USAGE
from gitflow_harness.hints import Hint

Outcome = Literal["ok", "failed", "refused", "partial"]
Gate = Literal["green", "red"]

# The git facts every `verb` event carries (docs/events.md), None when unknown.
FACT_KEYS: Final = ("trunk", "clean", "head", "tree", "ahead", "behind")


@dataclass(frozen=True, slots=True)
class VerbData:
    """A verb's typed data, written as the envelope's `data` object (the `--json` contract).

    The keys are the fields, in the order they are declared. A field declared with
    `field(metadata=key(NAME))` is written under NAME (`from`, a Python keyword); one declared
    with `field(metadata=INLINE)` holds a record of the outcome's own keys, written in line
    after the fields before it (nothing when it is None).
    """

    def to_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {}
        for f in fields(self):
            value = getattr(self, f.name)
            if f.metadata.get("inline"):
                out.update(value.to_dict() if value is not None else {})
            else:
                out[f.metadata.get("key", f.name)] = value
        return out


INLINE: Final = {"inline": True}


def key(name: str) -> dict[str, str]:
    """The metadata of a `VerbData` field written under `name`."""
    return {"key": name}


@dataclass(frozen=True, slots=True)
class Refused(VerbData):
    """The data of a verb refused by an expected error: the error's one line."""

    error: str


@dataclass(frozen=True, slots=True)
class EndTurnNotRecorded(VerbData):
    """The data of `status --end-turn` whose evidence could not be appended to the log."""

    reason: str  # end-turn-not-recorded
    error: str


@dataclass(frozen=True, slots=True)
class VerbResult:
    """The result of one verb run."""

    verb: str
    outcome: Outcome
    data: VerbData
    hints: tuple[Hint, ...] = ()
    facts: dict[str, Any] = field(default_factory=dict)
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
