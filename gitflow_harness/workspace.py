"""The repository a command runs in: where it is, its configuration, its event log.

The SessionStart hook runs `ensure` in a workspace too, so this module imports neither
`dataclasses` nor `typing` nor the configuration's schema: a workspace the hook builds from
what it already knows (`agent/repo.py`, its cached configuration) loads no configuration, and
opens no event log: the hook appends its events itself.
"""

from __future__ import annotations

from gitflow_harness import git
from gitflow_harness.store.session_env import session_from_env

# Not `typing.TYPE_CHECKING`: importing typing costs ~2 ms per hook call (mypy reads the name).
TYPE_CHECKING = False
if TYPE_CHECKING:
    from pathlib import Path
    from typing import Any

    from gitflow_harness.store.config import Config
    from gitflow_harness.store.events import Event, EventLog
    from gitflow_harness.store.fsutil import StrPath


class Workspace:
    """One command's view of its repository. HEAD is read once and cached; the configuration
    and the event log are opened when first asked for, unless they were given."""

    __slots__ = ("_config", "_head", "_log", "_trunk", "repo", "surface")

    def __init__(
        self,
        repo: git.Repo,
        log: EventLog | None = None,
        *,
        config: Config | None = None,
        surface: str = "cli",
        head: git.Head | None = None,
        trunk: str | None = None,
    ) -> None:
        self.repo = repo
        self._log = log
        # The channel this command came through (`cli`, `mcp`, `hook`): what its events record.
        self.surface = surface
        self._config = config
        self._head = head
        self._trunk = trunk  # `[repository] trunk`, when the caller read it already

    def __repr__(self) -> str:
        return f"Workspace(top={self.repo.top}, surface={self.surface})"

    @property
    def config(self) -> Config:
        if self._config is None:
            self._config = load_config(self.repo.top)
        return self._config

    @config.setter
    def config(self, config: Config) -> None:
        self._config = config
        self._trunk = None  # read from it again

    @property
    def log(self) -> EventLog:
        """The repository's event log, in its common dir."""
        if self._log is None:
            from gitflow_harness.store.events import EventLog

            self._log = EventLog(self.repo.common_dir)
        return self._log

    @property
    def configured_trunk(self) -> str:
        """`[repository] trunk` as configured: a branch name, or "" to detect the trunk."""
        if self._trunk is None:
            self._trunk = self.config.repository.trunk
        return self._trunk

    @property
    def top(self) -> Path:
        """The working tree's root, as a `Path` (`repo.worktree()` is the `str`)."""
        from pathlib import Path

        return Path(self.repo.worktree())

    @property
    def session(self) -> str | None:
        return session_from_env()

    @property
    def known_head(self) -> git.Head | None:
        """HEAD when it was read already, else None (reading it costs a git process)."""
        return self._head

    def head(self, *, refresh: bool = False) -> git.Head:
        """Return HEAD, read once per command unless `refresh`."""
        if self._head is None or refresh:
            self._head = git.head(self.repo)
        return self._head

    @property
    def label(self) -> str:
        """The branch as the event envelope records it (`git.Head.label`), from HEAD when it
        was read already, else from the HEAD file alone: no git process for HEAD's commit."""
        if self._head is not None:
            return self._head.label
        branch = git.head_branch(self.repo)
        return branch if branch is not None else "HEAD"

    def learn_head(self, head: git.Head) -> None:
        """Keep `head`, read by another git call of this command, as HEAD."""
        self._head = head

    @property
    def log_directory(self) -> Path:
        """Where the event log's files are, whether or not the log was opened."""
        if self._log is not None:
            return self._log.directory
        from gitflow_harness.store.eventwrite import log_directory

        return log_directory(self.repo.common_dir)

    def append(
        self,
        type: str,
        data: dict[str, Any],
        *,
        surface: str,
        session: str | None,
        branch: str | None,
    ) -> dict[str, Any]:
        """Append one event and return its envelope: to the log when it was given or opened,
        else through the log's writer alone, which imports none of its reader (`gfh status`)."""
        if self._log is not None:
            event = self._log.record(
                type, data, surface=surface, branch=branch, session=session, use_env_session=False
            )
            return event.to_dict()
        from gitflow_harness.store.eventwrite import append_event

        return append_event(
            self.repo.common_dir, type, data, surface=surface, session=session, branch=branch
        )

    def record(self, type: str, data: dict[str, Any], *, surface: str | None = None) -> Event:
        """Append an event stamped with this session, the current branch and (unless given)
        this command's surface."""
        channel = self.surface if surface is None else surface
        return self.log.record(type, data, surface=channel, branch=self.head().label)


def open_workspace(cwd: Path | str | None = None, *, surface: str = "cli") -> Workspace:
    """Discover the repository around `cwd` and load its configuration; its event log is
    opened when first asked for (`gfh pills check` never asks)."""
    repo, head = git.discover_head(cwd)
    config = load_config(repo.top)
    return Workspace(repo, config=config, surface=surface, head=head)


def load_config(top: StrPath | None) -> Config:
    """Load the configuration of the worktree at `top`: `store/config.py`'s reader, whose schema
    is imported on first use."""
    from pathlib import Path

    from gitflow_harness.store import config

    return config.load_config(None if top is None else Path(top))
