"""The repository a command runs in: where it is, its configuration, its event log."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from gitflow_harness import git
from gitflow_harness.store.config import Config, load_config
from gitflow_harness.store.events import Event, EventLog, session_from_env


@dataclass
class Workspace:
    """One command's view of its repository. HEAD is read once and cached."""

    repo: git.Repo
    config: Config
    log: EventLog
    # The channel this command came through (`cli`, `mcp`): what its events record as surface.
    surface: str = "cli"
    _head: git.Head | None = field(default=None, repr=False)

    @property
    def top(self) -> Path:
        return self.repo.worktree()

    @property
    def session(self) -> str | None:
        return session_from_env()

    def head(self, *, refresh: bool = False) -> git.Head:
        """Return HEAD, read once per command unless `refresh`."""
        if self._head is None or refresh:
            self._head = git.head(self.repo)
        return self._head

    def record(self, type: str, data: dict[str, Any], *, surface: str | None = None) -> Event:
        """Append an event stamped with this session, the current branch and (unless given)
        this command's surface."""
        channel = self.surface if surface is None else surface
        return self.log.record(type, data, surface=channel, branch=self.head().label)


def open_workspace(cwd: Path | str | None = None, *, surface: str = "cli") -> Workspace:
    """Discover the repository around `cwd` and load its configuration."""
    repo, head = git.discover_head(cwd)
    config = load_config(repo.top)
    log = EventLog(repo.common_dir)
    return Workspace(repo=repo, config=config, log=log, surface=surface, _head=head)
