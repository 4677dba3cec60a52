"""Recording verb runs and branch updates in the event log."""

from __future__ import annotations

import os

from gitflow_harness.store.session_env import session_from_env
from gitflow_harness.workflow.result import FACT_KEYS

# Not `typing.TYPE_CHECKING`: importing typing costs ~2 ms per hook call (mypy reads the name).
TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Iterable, Mapping
    from typing import Any, Final

    from gitflow_harness.hints import Hint
    from gitflow_harness.store.events import Event, EventLog
    from gitflow_harness.workflow.result import VerbResult
    from gitflow_harness.workspace import Workspace

# Set by `gfh update` for the git commands it runs. A post-merge / post-rewrite hook that records
# updates sees it and stays quiet, because `gfh update` records that update itself.
UPDATE_ENV: Final = "GFH_UPDATE_RUNNING"

_UNSET: Final[Any] = object()


def record_verb(
    ws: Workspace,
    result: VerbResult,
    *,
    branch: str | None,
    duration_ms: int,
    flags: Iterable[str] = (),
    delivered: Iterable[Hint] | None = None,
    surface: str = "cli",
    session: str | None = _UNSET,
) -> dict[str, Any]:
    """Append the one `verb` event of a run; return its envelope.

    `delivered` is every hint the entry point actually showed, envelope and supplemental
    (default: the result's own hints); `branch` is the branch the verb ran on.
    """
    data = verb_data(result, duration_ms=duration_ms, flags=flags, delivered=delivered)
    who = session_from_env() if session is _UNSET else session
    return ws.append("verb", data, surface=surface, session=who, branch=branch)


def verb_data(
    result: VerbResult,
    *,
    duration_ms: int,
    flags: Iterable[str] = (),
    delivered: Iterable[Hint] | None = None,
) -> dict[str, Any]:
    """Return the data of a run's `verb` event (see `record_verb`): the hook appends it
    through its own writer."""
    shown = tuple(result.hints if delivered is None else delivered)
    data: dict[str, Any] = {
        "verb": result.verb,
        "outcome": result.outcome,
        "hint_ids": [h.id for h in shown],
    }
    for key in FACT_KEYS:
        data[key] = result.facts.get(key)
    data["duration_ms"] = duration_ms
    data["flags"] = sorted(set(flags))
    if result.verb in ("test", "done"):
        data["gate"] = result.gate
    if result.verb == "done":
        data["probe"] = bool(result.probe)
    return data


def record_update(
    log: EventLog,
    *,
    branch: str,
    via: str,
    trunk: str,
    onto: str,
    head: str | None,
    surface: str,
    session: str | None = _UNSET,
    env: Mapping[str, str] | None = None,
) -> Event | None:
    """Append a `git.update` (the branch took in the trunk by `via`), unless `gfh update` is
    running it: then return None, because `gfh update` records that update itself.

    `onto` is the trunk's commit that was integrated, `head` the branch's commit afterwards.
    Called by `gfh update` after its merge or rebase (with `env={}`), and by the post-merge /
    post-rewrite hook (with the environment git gave it).
    """
    if via not in ("merge", "rebase", "pull"):
        raise ValueError(f"unknown update kind {via!r}")
    environment = os.environ if env is None else env
    if environment.get(UPDATE_ENV):
        return None
    who = session_from_env() if session is _UNSET else session
    return log.record(
        "git.update",
        {"via": via, "trunk": trunk, "onto": onto, "head": head},
        surface=surface,
        branch=branch,
        session=who,
        use_env_session=False,
    )
