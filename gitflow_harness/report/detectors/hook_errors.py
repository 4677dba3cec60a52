"""`hook-errors`: the hook calls that failed open, by adapter, event and reason.

A hook never blocks the agent on its own failure: it lets the host go on, prints one line the
host may or may not show, and records a `hook.error`. This detector makes those visible. It reads
`hook.error` events alone, one dict increment each; the reason is the error's leading name
(`NoSession`, `UsageError`, `ConfigError`, `WayProblem`, an exception's class…). Memory is
bounded by the distinct (adapter, event, reason) triples, capped at `MAX_KEYS`.
"""

from __future__ import annotations

import re
from typing import Final

from gitflow_harness.report.model import DetectorResult, Finding, ReportContext, Status
from gitflow_harness.store.events import Event

ID: Final = "hook-errors"
MAX_KEYS: Final = 256  # distinct (adapter, event, reason) kept; the rest count as OTHER
OTHER: Final = ("(other)", "(other)", "(other)")
_NAME = re.compile(r"[A-Za-z][A-Za-z0-9_.:/@+-]{0,63}")
_REASON = re.compile(r"[A-Za-z_][A-Za-z0-9_]{0,63}")

# What to do about each reason the hooks give; anything else is an internal error.
NEXT_STEPS: Final = {
    "NoSession": "The host sent no usable session id, so no way was delivered: check that each "
    "hook entry is the host's own (`gfh init` writes them) and that the host version sends one "
    "(`session_id`; Cursor: `conversation_id`).",
    "UsageError": "Fix the `gfh hook ADAPTER EVENT` command in the hook settings; "
    "`gfh init` writes correct entries.",
    "SessionUndelivered": "The host passed the session to neither gfh's channel nor its own "
    "variable, so the agent's gfh commands carry none unless prefixed with "
    "`GFH_SESSION=<adapter>:<id>` (the agent was told): make `$CLAUDE_ENV_FILE` writable, or "
    "update the host (Claude Code exports `CLAUDE_CODE_SESSION_ID`, Codex `CODEX_SESSION_ID`).",
    "EnvFileError": "Make `$CLAUDE_ENV_FILE` writable: without it the agent's gfh commands "
    "carry no session.",
    "ConfigError": "Fix `.gitflow-harness.toml`: `gfh config show` names the problem.",
    "WayProblem": "Run `gfh ways lint` and fix the way files it names; until then they do "
    "not fire.",
    "InvalidPayload": "The host sent something other than one JSON object: check that each hook "
    "command names the host that runs it.",
    "LogWriteError": "gfh could not write its event log: check the permissions of the log "
    "directory in the git common dir.",
    "StateDirError": "gfh could not write its state directory: check `$GFH_STATE_HOME` (or the "
    "user state directory) and its permissions.",
}
GIT_STAGE: Final = (
    "The git-stage hook could not record a `git.update` (the git command itself went through): "
    "each `hook.error` says why; `gfh git-hook record-update --verbose`, run right after a "
    "merge of the trunk, shows what it decides."
)
INTERNAL: Final = (
    "An internal error, let through: each `hook.error` names the error's class and where it was "
    "raised (`gfh events tail --json`); upgrading gfh may fix it."
)


class HookErrors:
    """Count `hook.error` events by adapter, event and reason."""

    id = ID
    types = frozenset({"hook.error"})

    def __init__(self, ctx: ReportContext | None = None) -> None:
        self._counts: dict[tuple[str, str, str], int] = {}

    def observe(self, event: Event) -> None:
        data = event.data
        key = (_name(data.get("adapter")), _name(data.get("event")), reason_of(data.get("error")))
        counts = self._counts
        if key in counts:
            counts[key] += 1
        elif len(counts) < MAX_KEYS:
            counts[key] = 1
        else:
            counts[OTHER] = counts.get(OTHER, 0) + 1

    def finish(self, ctx: ReportContext) -> DetectorResult:
        total = sum(self._counts.values())
        if total == 0:
            # An empty log says nothing about the hooks; a log without a `hook.error` does.
            return DetectorResult(
                self.id, "quiet" if ctx.stats.events else "insufficient-evidence", 0
            )
        by_reason: dict[str, dict[str, int]] = {}
        for (adapter, event, reason), n in self._counts.items():
            hooks = by_reason.setdefault(reason, {})
            hook = f"{adapter} {event}"
            hooks[hook] = hooks.get(hook, 0) + n
        findings = []
        for reason, hooks in sorted(by_reason.items(), key=lambda r: (-sum(r[1].values()), r[0])):
            n = sum(hooks.values())
            ordered = dict(sorted(hooks.items(), key=lambda h: (-h[1], h[0])))
            where = ", ".join(f"{hook} {count}" for hook, count in ordered.items())
            findings.append(
                Finding(
                    self.id,
                    reason,
                    "attention",
                    f"{n} hook call(s) failed open with {reason} ({where}).",
                    {"errors": n, "hooks": ordered},
                    _next_step(reason, ordered),
                )
            )
        status: Status = "fired"
        return DetectorResult(self.id, status, total, tuple(findings))


def _next_step(reason: str, hooks: dict[str, int]) -> str:
    if reason in NEXT_STEPS:
        return NEXT_STEPS[reason]
    # The git-stage hooks record as adapter `git`: their errors are git's, not gfh's internals.
    if all(hook.startswith("git ") for hook in hooks):
        return GIT_STAGE
    return INTERNAL


def reason_of(error: object) -> str:
    """The leading name of a `hook.error`'s `error`: `ValueError at …` and `ConfigError: …`
    give their class, `NoSession: …` its kind."""
    if isinstance(error, str):
        match = _REASON.match(error)
        if match is not None:
            return match.group()
    return "(unknown)"


def _name(value: object) -> str:
    if isinstance(value, str) and _NAME.fullmatch(value):
        return value
    return "(invalid)"
