"""The git facts of one working tree, each read at most once per command."""

from __future__ import annotations

import os

from gitflow_harness import git
from gitflow_harness.errors import ConfigError, GfhError

# Not `typing.TYPE_CHECKING`: importing typing costs ~2 ms per hook call (mypy reads the name).
TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable
    from functools import cached_property
    from typing import Any

    from gitflow_harness.workspace import Workspace
else:

    class cached_property:  # lower case: `functools.cached_property`, which it stands for
        """`functools.cached_property` for `Facts`: computed once, kept in the instance's
        `__dict__` (which `start` reads). `functools` imports `collections` (7.5M
        instructions where `gfh status` would not load it otherwise)."""

        def __init__(self, compute: Any) -> None:
            self.compute = compute
            self.name = compute.__name__
            self.__doc__ = compute.__doc__

        def __set_name__(self, owner: type, name: str) -> None:
            self.name = name

        def __get__(self, instance: Any, owner: type | None = None) -> Any:
            if instance is None:
                return self
            value = instance.__dict__[self.name] = self.compute(instance)
            return value


class Facts:
    """Lazily read facts about the workspace's working tree. After a verb moves HEAD or
    changes files, take a fresh `Facts` (or `refresh()`) so the event records the new state."""

    def __init__(self, ws: Workspace) -> None:
        self.ws = ws

    @property
    def repo(self) -> git.Repo:
        return self.ws.repo

    @property
    def head(self) -> git.Head:
        return self.ws.head()

    @property
    def trunk(self) -> str | None:
        """The trunk's local branch name, or None when there is none."""
        return self._trunk.name

    @cached_property
    def _trunk(self) -> git.LocalTrunk:
        configured = self.ws.configured_trunk
        return git.read_local_trunk(
            self.repo, configured, git.start_local_trunk(self.repo, configured)
        )

    @cached_property
    def changes(self) -> list[git.Change]:
        return git.changes(self.repo)

    @property
    def clean(self) -> bool:
        return not self.changes

    @cached_property
    def tree(self) -> str:
        """The tree identity: HEAD's tree when clean, else the tree the changes would make."""
        from gitflow_harness.workflow.tree_identity import tree_identity

        return tree_identity(self.repo, self.head.sha, self.changes)

    @cached_property
    def ahead_behind(self) -> git.AheadBehind | None:
        """Commits ahead of and behind the local trunk; None when unknown or meaningless."""
        sha = self.head.sha
        trunk = self._trunk
        if trunk.name is None or sha is None:
            return None
        if sha == trunk.sha:
            return git.AheadBehind(ahead=0, behind=0)  # no commit is ahead of or behind itself
        if trunk.sha is None:
            return git.ahead_behind(self.repo, sha, trunk.name)
        from gitflow_harness.workflow import kept

        return kept.ahead_behind(self.repo, sha, trunk.name, trunk.sha)

    @cached_property
    def operation(self) -> str | None:
        return git.operation_in_progress(self.repo)

    @property
    def on_trunk(self) -> bool:
        return self.trunk is not None and self.head.branch == self.trunk

    def refresh(self) -> Facts:
        """Return fresh facts for the same workspace."""
        self.ws.head(refresh=True)
        return Facts(self.ws)

    def snapshot(self) -> dict[str, Any]:
        """Return the facts a `verb` event records; a fact that cannot be read is None."""
        self._read_together()
        out: dict[str, Any] = {}
        out["trunk"] = _safe(lambda: self.trunk)
        out["clean"] = _safe(lambda: self.clean)
        out["head"] = _safe(lambda: self.head.sha)
        out["tree"] = _safe(lambda: self.tree)
        counts = _safe(lambda: self.ahead_behind)
        out["ahead"] = counts.ahead if counts is not None else None
        out["behind"] = counts.behind if counts is not None else None
        return out

    def _read_together(self) -> None:
        self.start()()

    def start(self) -> Callable[[], None]:
        """Start reading the trunk, the changes and (when not known yet) HEAD's commit, their
        git processes running at once, `git status` saying HEAD's commit too; return what
        reads them. The caller may work meanwhile (`ensure` at session start); `snapshot`
        finds them read. What fails here is left unread: reading it on its own then raises as
        it would have."""
        known = self.__dict__
        if "_trunk" in known or "changes" in known:
            return _read
        head = self.ws.known_head
        try:
            configured = self.ws.configured_trunk
            trunk = git.start_local_trunk(self.repo, configured)
        except (GfhError, OSError):
            return _read
        try:
            status: git.Pending | None = git.start_status(self.repo, head=head is None)
        except (GfhError, OSError):
            status = None
        if status is None:
            return lambda: self._take_trunk(configured, trunk)

        def read() -> None:
            # A failure other than git's leaves no `git status` running behind it (`gfh mcp`
            # lives on).
            with git.reaped(status.result):
                self._take_trunk(configured, trunk)
            try:
                read = git.read_status(status)
            except (GfhError, OSError):
                return
            known["changes"] = read.changes
            if head is None:
                try:
                    branch = git.head_branch(self.repo)
                except (GfhError, OSError):
                    return
                self.ws.learn_head(git.Head(branch=branch, sha=read.head))

        return read

    def _take_trunk(self, configured: str, started: git.Pending | git.TrunkRefs) -> None:
        """Read the trunk from its refs (or their started `for-each-ref`); a failure leaves it
        unread."""
        try:
            self.__dict__["_trunk"] = git.read_local_trunk(self.repo, configured, started)
        except (GfhError, OSError):
            pass


def _read() -> None:
    """Nothing left to read (`Facts.start`)."""


def _safe(read: Any) -> Any:
    # A snapshot describes whatever state a verb left, including odd ones (a bare repository,
    # an unborn branch, a removed worktree): an unreadable fact is recorded as unknown.
    try:
        return read()
    except (GfhError, OSError):
        return None


def missing_trunk(ws: Workspace) -> tuple[str, str] | None:
    """Return the configured trunk and where it was set, when it names no local branch.

    `[repository] trunk` set to a branch that does not exist is a configuration problem, not a
    repository state: the fix is in the file, at the line this names (relative to the top).
    """
    name = ws.config.repository.trunk
    if not name or git.branch_exists(ws.repo, name):
        return None
    source = ws.config.sources.get("repository.trunk", "")
    top = ws.repo.top
    if top is not None and source.startswith(f"{top}{os.sep}"):
        source = source[len(f"{top}{os.sep}") :]
    return name, source


def require_trunk(ws: Workspace) -> str:
    """Return the trunk's local branch, or refuse: a configured trunk with no branch is a
    configuration error (exit 2) naming the file and line that set it."""
    missing = missing_trunk(ws)
    if missing is not None:
        name, source = missing
        raise ConfigError(
            f"the trunk {name!r} (from {source}) has no local branch: create it "
            f"(`git branch {name} origin/{name}`) or change [repository] trunk there"
        )
    return git.require_trunk(ws.repo, ws.config.repository.trunk)
