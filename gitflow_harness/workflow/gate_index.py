"""The latest gate result per tree identity, answerable without scanning the event log.

The `verb` events of `test` and `done` are the record; this index is a small cache beside them:
one owner-only JSON file per tree under `<git-common-dir>/gitflow-harness/gates/`, replaced
atomically under a lock. `done`, `accept` and `status` read it, and so can a pre-push hook
asking whether the tree it is about to push was judged red.
"""

from __future__ import annotations

import os

from gitflow_harness import git, jsonio
from gitflow_harness.errors import GfhError
from gitflow_harness.store.eventwrite import now_at
from gitflow_harness.store.fsutil import ensure_private_dir, read_bytes, write_private
from gitflow_harness.store.locks import exclusive
from gitflow_harness.workspace import Workspace

# Not `typing.TYPE_CHECKING`: `gfh status` does not import typing (mypy reads the name).
TYPE_CHECKING = False
if TYPE_CHECKING:
    from pathlib import Path
    from typing import Any, Final, Literal, NamedTuple

    Gate = Literal["green", "red"]
else:
    from gitflow_harness.records import NamedTuple

GATES_DIR: Final = ("gitflow-harness", "gates")
# At most KEEP trees: a write past KEEP forgets the oldest down to the newest KEEP // 2, so the
# directory is scanned and pruned once per KEEP // 2 new trees, not on every write. Forgotten
# trees keep their `verb` events; they are only judged again.
KEEP: Final = 512


def _tree_id(tree: str) -> bool:
    """True for a tree's id: 40 lower-case hex digits (SHA-1), or 64 (SHA-256). (Not a regex:
    `gfh status` would compile it on every call.)"""
    return len(tree) in (40, 64) and not tree.strip("0123456789abcdef")


class GateIndexError(GfhError):
    """The gate index cannot be written: the judgement stands in the log, not in the index."""


# A NamedTuple, not a dataclass: every verb imports this module, and a frozen dataclass
# costs about five times as much to define (~0.5 ms each on these machines).
class GateRecord(NamedTuple):
    """The latest judgement of one tree."""

    tree: str
    gate: Gate
    verb: str  # "test" or "done"
    at: str
    branch: str | None
    head: str | None
    receipt: bool  # a green `done` judged this tree: `accept` may take it

    def to_dict(self) -> dict[str, Any]:
        return {
            "tree": self.tree,
            "gate": self.gate,
            "verb": self.verb,
            "at": self.at,
            "branch": self.branch,
            "head": self.head,
            "receipt": self.receipt,
        }


def gates_dir(where: Workspace | git.Repo) -> Path:
    """Return the index directory of a repository (shared by its worktrees)."""
    from pathlib import Path

    return Path(_gates_dir(where))


def _gates_dir(where: Workspace | git.Repo) -> str:
    # A `str` for `read_gate`: `gfh status` reads a gate and imports no `pathlib`.
    repo = where.repo if isinstance(where, Workspace) else where
    return os.path.join(repo.common_dir, *GATES_DIR)


def read_gate(where: Workspace | git.Repo, tree: str) -> GateRecord | None:
    """Return the latest judgement of `tree`, or None if it was never judged (or is unreadable)."""
    if not _tree_id(tree):
        raise ValueError(f"not a tree id: {tree!r}")
    path = os.path.join(_gates_dir(where), f"{tree}.json")
    try:
        raw = jsonio.loads(read_bytes(path))
    except (OSError, ValueError):
        # Missing, or damaged by something outside gfh: the events still hold the record, and an
        # unjudged tree only means the gate runs again.
        return None
    return _parse(raw, tree)


def latest_gate(where: Workspace | git.Repo, tree: str) -> Gate | None:
    """Return "green", "red" or None: the latest gate result recorded for `tree`."""
    record = read_gate(where, tree)
    return record.gate if record is not None else None


def write_gate(
    where: Workspace | git.Repo,
    tree: str,
    gate: Gate,
    *,
    verb: str,
    branch: str | None,
    head: str | None,
) -> GateRecord:
    """Record `gate` as the latest judgement of `tree`.

    A green `done` writes the receipt; a green `test` keeps an earlier receipt for the same
    tree; anything red removes it.
    """
    if not _tree_id(tree):
        raise ValueError(f"not a tree id: {tree!r}")
    directory = gates_dir(where)
    try:
        ensure_private_dir(directory)
        with exclusive(directory / ".lock"):
            previous = read_gate(where, tree)
            receipt = gate == "green" and (
                verb == "done" or (previous is not None and previous.receipt)
            )
            record = GateRecord(tree, gate, verb, now_at(), branch, head, receipt)
            path = directory / f"{tree}.json"
            write_private(path, jsonio.dumps(record.to_dict(), separators=(",", ":")) + "\n")
            try:
                _prune(directory)
            except OSError:  # housekeeping: the judgement is written
                pass
    except OSError as exc:
        where_ = exc.filename or directory
        raise GateIndexError(
            f"the {gate} gate of tree {tree[:10]} could not be written to the gate index at "
            f"{where_}: {exc.strerror or exc}; it must be a directory gfh can write: fix its "
            f"permissions, or move what is there aside, then run `gfh {verb}` again"
        ) from None
    return record


def _parse(raw: Any, tree: str) -> GateRecord | None:
    if (
        not isinstance(raw, dict)
        or raw.get("tree") != tree
        or raw.get("gate")
        not in (
            "green",
            "red",
        )
    ):
        return None
    return GateRecord(
        tree=tree,
        gate=raw["gate"],
        verb=str(raw.get("verb", "")),
        at=str(raw.get("at", "")),
        branch=raw.get("branch") if isinstance(raw.get("branch"), str) else None,
        head=raw.get("head") if isinstance(raw.get("head"), str) else None,
        receipt=raw.get("receipt") is True,
    )


def _prune(directory: Path) -> None:
    entries = [e for e in os.scandir(directory) if e.name.endswith(".json")]
    if len(entries) <= KEEP:
        return
    entries.sort(key=lambda e: e.stat().st_mtime)
    for entry in entries[: len(entries) - KEEP // 2]:
        try:
            os.unlink(entry.path)
        except FileNotFoundError:
            pass
