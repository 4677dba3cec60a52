"""What a verb returns: outcome, data, hints, and the facts its `verb` event records."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Final, Literal

from gitflow_harness.errors import EXIT_FAILED, EXIT_OK, EXIT_USAGE
from gitflow_harness.hints import Hint

Outcome = Literal["ok", "failed", "refused", "partial"]
Gate = Literal["green", "red"]

# The git facts every `verb` event carries (docs/events.md), None when unknown.
FACT_KEYS: Final = ("trunk", "clean", "head", "tree", "ahead", "behind")


@dataclass(frozen=True, slots=True)
class VerbResult:
    """The result of one verb run."""

    verb: str
    outcome: Outcome
    data: dict[str, Any]
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
            "data": self.data,
            "hints": [h.to_dict() for h in shown],
        }
