"""Running one workflow verb for a surface: the workspace, the action, the hints, the event.

The CLI (`cli/_verb.py`) and the MCP server (`mcp/calls.py`) differ only in how they show a
run; what a run is — which refusals, which hints are delivered, which `verb` event is written —
is decided here, once. Nothing here prints: the run comes back as a `VerbRun`.
"""

from __future__ import annotations

import time

from gitflow_harness import hints
from gitflow_harness.errors import GfhError
from gitflow_harness.hints import Hint
from gitflow_harness.workflow.result import EndTurnNotRecorded, Refused, VerbResult
from gitflow_harness.workspace import Workspace

# Not `typing.TYPE_CHECKING`: `gfh status` does not import typing (mypy reads the name).
TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable, Iterable
    from contextlib import AbstractContextManager
    from pathlib import Path
    from typing import IO, Any, NamedTuple
else:
    from gitflow_harness.records import NamedTuple


# A NamedTuple, not a dataclass: every verb imports this module, and a frozen dataclass
# costs about five times as much to define (~0.5 ms each on these machines).
class Console(NamedTuple):
    """Where a verb's live output goes: the gate commands' own output (`workflow/commands.py`,
    which `gfh status` does not load), and one-line notes.

    The CLI passes stdout for text output and stderr under `--json` (stdout then carries exactly
    one JSON object). A stream with a real file descriptor is handed to the child as it is, so a
    person watching a long test run sees it live, colours and progress bars included.
    """

    stream: IO[str]
    note: Callable[[str], None]


# Type aliases only: `Guard`'s `AbstractContextManager` would import `contextlib` at run time.
if TYPE_CHECKING:
    Action = Callable[[Workspace, Console], VerbResult]
    # A lock the whole run holds (accept's), entered before anything else; given the run's
    # directory.
    Guard = Callable[[Path | None], AbstractContextManager[None]]
    # How a surface opens the workspace of a run in a directory for itself, when not by
    # `open_workspace` (which it takes the place of: same arguments, same refusals).
    Opener = Callable[[Path | None, str], Workspace]


class VerbRun(NamedTuple):
    """One run of a verb, as every surface shows it."""

    result: VerbResult  # a refusal too, with its `error`
    shown: tuple[Hint, ...] = ()  # the hints in the result's envelope
    supplemental: tuple[Hint, ...] = ()  # hints delivered outside it (the session-start line)
    error: GfhError | None = None  # why it was refused: the surface says it, exits non-zero
    warning: str = ""  # one line when the run could not be recorded, else ""

    @property
    def delivered(self) -> tuple[Hint, ...]:
        return (*self.shown, *self.supplemental)

    def envelope(self) -> dict[str, Any]:
        """The `--json` object: the CLI prints it, the MCP server returns it."""
        return self.result.envelope(self.shown)


def run_verb(
    verb: str,
    action: Action,
    *,
    console: Console,
    flags: Iterable[str],
    surface: str,
    directory: Path | None = None,
    guard: Guard | None = None,
    opener: Opener | None = None,
) -> VerbRun:
    """Run `action` as the verb `verb` in the repository around `directory` and record it.

    A refusal before there is a workspace (no repository, a broken configuration, the guard's
    lock) is not recorded; a refusal by the verb itself is, as every run is.
    """
    try:
        if guard is None:  # no `contextlib.nullcontext`: `gfh status` imports no contextlib
            return _run(verb, action, console, list(flags), surface, directory, opener)
        with guard(directory):
            return _run(verb, action, console, list(flags), surface, directory, opener)
    except GfhError as exc:
        return VerbRun(VerbResult(verb, "refused", Refused(exc.message)), error=exc)


def _run(
    verb: str,
    action: Action,
    console: Console,
    flags: list[str],
    surface: str,
    directory: Path | None,
    opener: Opener | None,
) -> VerbRun:
    from gitflow_harness.workflow.facts import Facts

    started = time.perf_counter()
    hints.drain()  # whatever an earlier run in this context left is not this run's to deliver
    ws = (opener or _open)(directory, surface)
    label = ws.label
    # Who reads the hints: an agent when a session is known, and always through MCP (only an
    # agent's host calls the server's tools), else maybe a person: agent-only hints are dropped.
    agent = ws.session is not None or ws.surface == "mcp"
    try:
        result = action(ws, console)
    except GfhError as exc:
        hints.drain()
        refused = VerbResult(verb, "refused", Refused(exc.message), facts=Facts(ws).snapshot())
        warning = _record(ws, refused, label, started, flags, ())
        return VerbRun(refused, error=exc, warning=warning)
    shown = hints.deliverable(result.hints, agent=agent)
    supplemental = hints.deliverable(hints.drain(), agent=agent)
    warning = _record(ws, result, label, started, flags, (*shown, *supplemental))
    return VerbRun(result, shown, supplemental, warning=warning)


def _open(directory: Path | None, surface: str) -> Workspace:
    from gitflow_harness.workspace import open_workspace

    return open_workspace(directory, surface=surface)


def _record(
    ws: Workspace,
    result: VerbResult,
    label: str,
    started: float,
    flags: list[str],
    delivered: tuple[Hint, ...],
) -> str:
    """Append the run's `verb` event; return a warning line when it could not be."""
    from gitflow_harness.workflow.record import record_verb

    try:
        record_verb(
            ws,
            result,
            branch=label,
            duration_ms=int((time.perf_counter() - started) * 1000),
            flags=flags,
            delivered=delivered,
            surface=ws.surface,
        )
    except (OSError, GfhError) as exc:
        if isinstance(result.data, EndTurnNotRecorded):
            return ""  # the verb already failed for this very reason, and said so
        # The work is done either way; losing its record is worth a warning, not a failure.
        why = exc.strerror if isinstance(exc, OSError) and exc.strerror else str(exc)
        return f"gfh: warning: this run was not recorded in {ws.log_directory}: {why}"
    return ""
