"""The HINTS registry (data only) and the process-local accumulator of supplemental hints.

A hint is short advice a verb prints, with a stable id. Ids are part of gfh's interface: scripts,
the report and users' habits depend on them, so an id is never reused for another meaning.

A hint may belong to a follow-through family: a frozen rule, one object shared by every member,
that says which later evidence counts as the advice being followed and which as it being
ignored. `gfh report` reads the rules as data; nothing here interprets them.

Hints delivered outside a verb's result envelope (the session-start line of `ensure`) go
through the accumulator: the code that produces them calls `supplement`, and every entry point
(the CLI, the agent hooks, each call of the MCP server) calls `drain` once and records what it
delivered in its event. A long-lived server gives every call its own accumulator (`isolated`).
"""

from __future__ import annotations

import _thread

from gitflow_harness import MappingProxyType

# Not `typing.TYPE_CHECKING`: importing typing costs ~2 ms per hook call (mypy reads the name).
TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Mapping
    from contextvars import ContextVar, Token
    from types import TracebackType
    from typing import Any, Final, Literal, NamedTuple

    Category = Literal["next-step", "guardrail", "notice"]
    Audience = Literal["all", "agent"]
else:
    from gitflow_harness.records import NamedTuple


# Records are NamedTuples, not dataclasses: every verb imports this module, and a frozen
# dataclass costs about five times as much to define (~0.5 ms each on these machines).
class FollowThrough(NamedTuple):
    """When the advice of a hint family counts as followed, ignored, or unknown.

    Evidence kinds, in `follow` and `end`:
    - `verb:NAME`: a `verb` event of that verb;
    - `git.update`: a `git.update` event, and a merge or rebase of the trunk found in the
      branch's reflog that no event recorded (with an unknown session: it can only censor);
    - `dirty-trunk`: a `verb` event on the trunk with `clean: false`;
    - `refire`: another firing of the same family.
    `follow` is checked before `end` on the same event.
    """

    family: str
    rule: str  # the rule in words, for docs and the report
    follow: frozenset[str]
    end: frozenset[str]
    same_branch: bool  # candidates count only on the branch the hint fired on
    remedy: str  # what following it means, as a phrase: "run `gfh update`"


BRANCH_UPDATE: Final = FollowThrough(
    family="branch-update",
    rule=(
        "followed when `update` (the verb, or a git.update) runs on the same branch in the same "
        "session before the family fires again there"
    ),
    follow=frozenset({"verb:update", "git.update"}),
    end=frozenset({"refire"}),
    same_branch=True,
    remedy="run `gfh update` when the branch falls behind",
)

RED_GATE_REMEDY: Final = FollowThrough(
    family="red-gate-remedy",
    rule="followed when `prepare` or `test` runs on the same branch before the next `done`",
    follow=frozenset({"verb:prepare", "verb:test"}),
    end=frozenset({"verb:done"}),
    same_branch=True,
    remedy="iterate with `gfh prepare` or `gfh test` after a red gate instead of rerunning `done`",
)

MAIN_WORKTREE_FIRST: Final = FollowThrough(
    family="main-worktree-first",
    rule=(
        "followed when `start` runs in the same session before later evidence of dirty-trunk "
        "work (a verb on the trunk with `clean: false`)"
    ),
    follow=frozenset({"verb:start"}),
    end=frozenset({"dirty-trunk"}),
    same_branch=False,
    remedy="run `gfh start NAME` before changing files in the main checkout",
)

FAMILIES: Final[Mapping[str, FollowThrough]] = MappingProxyType(
    {rule.family: rule for rule in (BRANCH_UPDATE, RED_GATE_REMEDY, MAIN_WORKTREE_FIRST)}
)


class Hint(NamedTuple):
    """One delivered hint: its id and its rendered text."""

    id: str
    text: str

    def to_dict(self) -> dict[str, str]:
        return {"id": self.id, "text": self.text}


class HintDef(NamedTuple):
    """The definition of a hint: a `str.format` template over named values."""

    id: str
    category: Category
    audience: Audience
    text: str
    follow_through: FollowThrough | None = None

    def render(self, **values: Any) -> Hint:
        """Return the hint with its template filled in."""
        return Hint(self.id, self.text.format(**values))


def _define(*defs: HintDef) -> Mapping[str, HintDef]:
    table: dict[str, HintDef] = {}
    for d in defs:
        if d.id in table:
            raise ValueError(f"hint id {d.id!r} defined twice")
        table[d.id] = d
    return MappingProxyType(table)


HINTS: Final[Mapping[str, HintDef]] = _define(
    # -- status ------------------------------------------------------------------------
    HintDef(
        "status-branch-behind",
        "next-step",
        "all",
        "{branch} is {behind} behind {trunk}: run `gfh update` to bring those commits in",
        BRANCH_UPDATE,
    ),
    HintDef(
        "status-trunk-dirty",
        "guardrail",
        "all",
        "uncommitted changes on the trunk {trunk}: work belongs on a branch, and "
        "`gfh start NAME` makes one in its own worktree",
    ),
    HintDef(
        "status-operation",
        "notice",
        "all",
        "a {operation} is in progress here: {how}",
    ),
    # -- start -------------------------------------------------------------------------
    HintDef("start-created", "next-step", "all", "work in the new worktree: `cd {path}`"),
    HintDef(
        "start-adopted",
        "next-step",
        "all",
        "branch {branch} existed without a worktree; it has one now: `cd {path}`",
    ),
    HintDef(
        "start-existing",
        "next-step",
        "all",
        "branch {branch} already has its worktree: `cd {path}`",
    ),
    HintDef(
        "start-branch-exists",
        "guardrail",
        "all",
        "branch {branch} already exists{where}: continue it there, or pick another name",
    ),
    HintDef(
        "start-path-exists",
        "guardrail",
        "all",
        "{path} already exists: remove it, or pick another branch name",
    ),
    # -- shared refusals ---------------------------------------------------------------
    HintDef(
        "verb-on-trunk",
        "guardrail",
        "all",
        "`gfh {verb}` works on a branch and this is the trunk {trunk}: "
        "`gfh start NAME` makes a branch in its own worktree",
    ),
    # -- update ------------------------------------------------------------------------
    HintDef(
        "update-dirty-tree",
        "guardrail",
        "all",
        "commit or stash the {count} changed file(s) first, then run `gfh update` again",
    ),
    HintDef(
        "update-integrated",
        "next-step",
        "all",
        "{branch} now contains {trunk}: check the combination with `gfh test`",
    ),
    HintDef(
        "update-conflict",
        "next-step",
        "all",
        "bringing {trunk} in conflicts in {count} file(s), so nothing was changed; integrate by "
        "hand: {how}",
    ),
    # -- gate --------------------------------------------------------------------------
    HintDef(
        "gate-failure-prepare",
        "next-step",
        "all",
        "`{command}` failed: fix what it reports and iterate with `gfh prepare` until it passes",
        RED_GATE_REMEDY,
    ),
    HintDef(
        "gate-failure-test",
        "next-step",
        "all",
        "`{command}` failed: fix the failures and iterate with `gfh test` until it is green",
        RED_GATE_REMEDY,
    ),
    HintDef(
        "gate-failure-merge",
        "next-step",
        "all",
        "{branch} does not contain the latest {trunk}: run `gfh update`, then `gfh done` again",
    ),
    HintDef(
        "gate-command-missing",
        "next-step",
        "all",
        "`{program}` {problem} (exit {code}): install it, or change [gate] {stage} in "
        ".gitflow-harness.toml",
    ),
    HintDef(
        "gate-environment",
        "next-step",
        "all",
        "`{program}` has no module {module}, so `{command}` could not run and the tree was not "
        "judged: that is this environment, not the work (a virtualenv's {program} first on PATH "
        "hides the one that has it; put only `gfh` on PATH, or install {module} there), then "
        "run `gfh {verb}` again",
    ),
    HintDef(
        "gate-left-files",
        "notice",
        "all",
        "the gate left {count} untracked file(s) ({paths}): add them to .gitignore, or the next "
        "run judges a different tree",
    ),
    HintDef(
        "gate-not-configured",
        "notice",
        "all",
        "no [gate] {stage} commands are configured: list them in .gitflow-harness.toml",
    ),
    # -- done and accept ---------------------------------------------------------------
    HintDef(
        "done-unchanged-tree-red",
        "next-step",
        "all",
        "this exact tree was already judged red: change something and iterate with "
        "`gfh test` (`gfh done --rerun` judges it again as it is)",
        RED_GATE_REMEDY,
    ),
    HintDef(
        "done-green-accept",
        "next-step",
        "all",
        "the gate is green for this tree: `gfh accept` brings it into {trunk}",
    ),
    HintDef(
        "done-green-commit",
        "next-step",
        "all",
        "the gate is green for this tree, uncommitted changes included: commit the {count} "
        "changed file(s) as they are (the receipt covers exactly this tree), then `gfh accept` "
        "brings it into {trunk}",
    ),
    HintDef(
        "accept-needs-green",
        "next-step",
        "all",
        "there is no green receipt for this exact tree: run `gfh done` first",
    ),
    HintDef(
        "accept-dirty-tree",
        "guardrail",
        "all",
        "{count} {kind} file(s) here: {remedy}",
    ),
    HintDef(
        "accept-trunk-busy",
        "guardrail",
        "all",
        "the {trunk} checkout at {path} has uncommitted changes: commit or stash them there, "
        "then run `gfh accept` again",
    ),
    HintDef(
        "accept-merged",
        "next-step",
        "all",
        "{trunk} is now at {short}; carry on from the main checkout: `cd {path}`",
    ),
    # -- ensure ------------------------------------------------------------------------
    HintDef(
        "ensure-main-worktree-first",
        "guardrail",
        "agent",
        "you are in the main checkout on {trunk}: before changing anything, run "
        "`gfh start NAME` and work in the worktree it prints",
        MAIN_WORKTREE_FIRST,
    ),
)


# What `accept-dirty-tree` advises, by what committing the changes would do.
ACCEPT_DIRTY_REMEDIES: Final[Mapping[str, str]] = MappingProxyType(
    {
        # The dirty tree itself has a green receipt: committing it as it is gives HEAD that tree.
        "judged": (
            "the receipt covers exactly this tree, so commit exactly these and run `gfh accept` "
            "(any other change needs `gfh done` again)"
        ),
        # Only untracked files, often what a tool wrote: they may belong in .gitignore.
        "untracked": "commit them or add them to .gitignore, then `gfh done` and `gfh accept`",
        "changed": "commit them, then `gfh done` and `gfh accept`",
    }
)


def hint(hint_id: str, **values: Any) -> Hint:
    """Render the registered hint `hint_id`."""
    return HINTS[hint_id].render(**values)


def deliverable(hints: tuple[Hint, ...], *, agent: bool) -> tuple[Hint, ...]:
    """Drop hints written for agents when nobody but a person is reading."""
    if agent:
        return hints
    return tuple(h for h in hints if HINTS[h.id].audience != "agent")


# -- the supplemental accumulator ---------------------------------------------------------

_SUPPLEMENTAL: list[Hint] = []
# The accumulator of the call running in this context, when a server runs calls side by side
# (threads of one process): the process-wide list would hand one call's hints to another. Made
# by the first `isolated` (`gfh mcp`'s first call): a command of its own process never scopes,
# and `contextvars` is 0.7M instructions to import.
_SCOPED: list[ContextVar[list[Hint] | None]] = []
_SCOPED_LOCK = _thread.allocate_lock()


def _queue() -> list[Hint]:
    scoped = _SCOPED[0].get() if _SCOPED else None
    return _SUPPLEMENTAL if scoped is None else scoped


def _scope() -> ContextVar[list[Hint] | None]:
    if not _SCOPED:
        with _SCOPED_LOCK:
            if not _SCOPED:  # another thread's first call may have made it meanwhile
                from contextvars import ContextVar

                _SCOPED.append(ContextVar("gfh_supplemental", default=None))
    return _SCOPED[0]


def supplement(item: Hint) -> None:
    """Queue a hint delivered outside the result envelope, for the entry point to drain."""
    _queue().append(item)


def drain() -> tuple[Hint, ...]:
    """Return and forget every queued supplemental hint, oldest first."""
    queue = _queue()
    items = tuple(queue)
    queue.clear()
    return items


class isolated:  # lower case: used as a function: `with hints.isolated():`
    """Give the code inside its own accumulator: it drains only what it queued itself, and
    what it leaves behind is dropped with it, never delivered by a later call. (A class, not
    `contextlib.contextmanager`: every verb imports this module, and `gfh status` no
    `contextlib`.)"""

    __slots__ = ("_token",)

    def __enter__(self) -> None:
        self._token: Token[list[Hint] | None] = _scope().set([])

    def __exit__(
        self, kind: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        _scope().reset(self._token)
