"""The repositories a report or an export reads: opened from `--repo` paths, and named."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from gitflow_harness import git
from gitflow_harness.errors import UsageError
from gitflow_harness.workspace import Workspace, open_workspace


@dataclass(frozen=True, slots=True)
class RepoRef:
    """What names a repository in a report across repositories and in an export.

    `id` is the root commit of its trunk (of HEAD when there is no trunk; None before the first
    commit): the same in every clone, on every machine. `path` is where this machine has its
    main checkout; `name` that folder's name.
    """

    name: str
    path: str
    id: str | None

    def to_dict(self) -> dict[str, Any]:
        return {"name": self.name, "path": self.path, "id": self.id}


def repo_ref(ws: Workspace) -> RepoRef:
    """Return the name, path and stable id of the workspace's repository."""
    repo = ws.repo
    trunk = git.local_trunk(repo, ws.config.repository.trunk) or "HEAD"
    where = repo.main_top or repo.top or repo.common_dir
    return RepoRef(repo.name, str(where), git.root_commit(repo, trunk))


def open_repositories(paths: Sequence[str]) -> list[Workspace]:
    """Open each `--repo` path as a workspace, in order, each repository once."""
    found: list[Workspace] = []
    seen: set[str] = set()
    for path in paths:
        if not Path(path).is_dir():
            raise UsageError(f"--repo {path}: no such directory; give the path of a git repository")
        try:
            ws = open_workspace(path)
        except git.NotARepository:
            raise UsageError(
                f"--repo {path}: not a git repository; give its working tree or a folder in it"
            ) from None
        if ws.repo.common_dir not in seen:
            seen.add(ws.repo.common_dir)
            found.append(ws)
    return found
