"""`status`: where this working tree stands, and what to do next."""

from __future__ import annotations

from gitflow_harness import git
from gitflow_harness.errors import GfhError
from gitflow_harness.hints import Hint, hint
from gitflow_harness.workflow.facts import Facts, missing_trunk
from gitflow_harness.workflow.gate_index import read_gate
from gitflow_harness.workflow.result import EndTurnNotRecorded, VerbData, VerbResult
from gitflow_harness.workspace import Workspace

# Not `typing.TYPE_CHECKING`: `gfh status` does not import typing (mypy reads the name).
TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any


class StatusView(VerbData):
    """The data of `status`: the facts the box is drawn from, and the box itself (`box`). They
    stay one mapping: the box and the hints read it as it is. (A plain class: `gfh status`
    imports no dataclasses.)"""

    __slots__ = ("values",)

    values: dict[str, Any]

    def __init__(self, values: dict[str, Any]) -> None:
        # Set past the frozen `__setattr__` a `VerbData` may have: a view is never changed.
        object.__setattr__(self, "values", values)

    def __eq__(self, other: object) -> bool:
        return isinstance(other, StatusView) and other.values == self.values

    def __repr__(self) -> str:
        return f"StatusView({self.values!r})"

    @property
    def box(self) -> str:
        return str(self.values["box"])

    def to_dict(self) -> dict[str, Any]:
        return self.values


def status(ws: Workspace, *, end_turn: bool = False) -> VerbResult:
    """Describe the working tree: location, branch, trunk, changes, ahead/behind, gate, task.

    With `end_turn`, first append `coord.status_observed` (`end_turn_checked`): the end-of-turn
    ritual's evidence. If that append fails the result is `failed` and carries no status, so
    nothing shows a box the ritual cannot account for.
    """
    repo = ws.repo
    top = repo.worktree()
    # `git status` reads every file's metadata: it runs while the trunk is asked, and the
    # counts are kept by commit pair (`kept`), so the command pays for the slowest question.
    # It says HEAD's commit too, when the workspace does not know it yet: HEAD is asked after.
    known = Facts(ws)
    facts = known.snapshot()
    head = ws.head()
    trunk = known.trunk
    changes = known.changes
    tree = known.tree
    record = read_gate(ws, tree)
    session = ws.session
    data: dict[str, Any] = {
        "location": "worktree" if repo.linked else "main",
        "top": str(top),
        "branch": head.branch,
        "detached": head.detached,
        "head": head.sha,
        "trunk": trunk,
        "trunk_missing": _trunk_missing(ws) if trunk is None else None,
        "on_trunk": trunk is not None and head.branch == trunk,
        "clean": not changes,
        "changes": [{"xy": c.xy, "path": c.path} for c in changes],
        "ahead": facts["ahead"],
        "behind": facts["behind"],
        "shallow": repo.shallow,
        "operation": git.operation_in_progress(repo),
        "tree": tree,
        "gate": record.gate if record is not None else None,
        "receipt": record.receipt if record is not None else False,
        "task": _task(session),
        "session": session,
    }
    from gitflow_harness.ritual.box import status_box

    # The box itself, for whoever shows it from the data: an MCP host may hand its model only
    # the structured result, and the reply must carry the box whole.
    data["box"] = status_box(data)
    if end_turn:
        try:
            ws.append(
                "coord.status_observed",
                {"status": "end_turn_checked"},
                surface=ws.surface,
                session=session,
                branch=head.label,
            )
        except (OSError, GfhError) as exc:
            reason = exc.strerror if isinstance(exc, OSError) and exc.strerror else str(exc)
            return VerbResult(
                "status",
                "failed",
                EndTurnNotRecorded("end-turn-not-recorded", reason),
                facts=facts,
                message=(
                    f"could not record the end-of-turn check in {ws.log_directory}: {reason}; "
                    "retry `gfh status --end-turn`"
                ),
            )
    return VerbResult("status", "ok", StatusView(data), hints=_hints(data), facts=facts)


def _hints(data: dict[str, Any]) -> tuple[Hint, ...]:
    if data["operation"] is not None:
        # The one next step: every verb that would act on the other advice (`update`, `start`)
        # is refused until the operation is finished or aborted.
        operation = data["operation"]
        return (hint("status-operation", operation=operation, how=git.HOW_TO_FINISH[operation]),)
    found: list[Hint] = []
    if data["behind"] and not data["on_trunk"] and data["branch"] is not None:
        found.append(
            hint(
                "status-branch-behind",
                branch=data["branch"],
                behind=_commits(data["behind"]),
                trunk=data["trunk"],
            )
        )
    if data["on_trunk"] and not data["clean"]:
        found.append(hint("status-trunk-dirty", trunk=data["trunk"]))
    return tuple(found)


def _trunk_missing(ws: Workspace) -> dict[str, str] | None:
    missing = missing_trunk(ws)
    return None if missing is None else {"name": missing[0], "source": missing[1]}


def _task(session: str | None) -> dict[str, Any]:
    if session is None:
        return {"state": "no-session", "text": None}
    from gitflow_harness.ritual.task import current_task

    try:
        text = current_task(session)
    except GfhError as exc:
        return {"state": "unreadable", "text": None, "error": exc.message}
    return {"state": "unset" if text is None else "set", "text": text}


def _commits(n: int) -> str:
    return f"{n} commit" if n == 1 else f"{n} commits"
