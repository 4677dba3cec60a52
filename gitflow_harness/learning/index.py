"""The lessons index of a role: what the SubagentStart hook injects, and `gfh pills index` prints.

This runs on the hook path, so it imports the standard library alone, and takes the two values
of the configuration it needs (the pills root, `graph.stages`) rather than a parsed
configuration: the hook has them from its session's copy. The few fields the index needs are
kept in an owner-only cache keyed by each pill file's size, mtime, ctime and inode; YAML is
imported and a pill parsed only when its file changed since the last call.
"""

from __future__ import annotations

import os

from gitflow_harness.learning.cache import cached, markdown_stamps

# Not `typing.TYPE_CHECKING`: importing typing costs ~2 ms per hook call (mypy reads the name).
TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Collection
    from typing import Any, Final

    from gitflow_harness.store.fsutil import StrPath

CACHE_VERSION: Final = "index-2"
TRIGGER_WIDTH: Final = 160
_SEVERITY_ORDER: Final = {"high": 0, "medium": 1, "low": 2}


def injects(stages: Collection[str], role: str) -> bool:
    """True when a subagent of `role` is given its lessons index as it starts.

    With `graph.stages` declared, only those roles are; without, every role is (a role without
    an active lesson then gets an empty index, that is nothing).
    """
    return not stages or role in stages


def lessons_index(repo_top: StrPath, pills_root: str, role: str) -> str:
    """Return the lessons index of `role` (empty when no active lesson applies to it)."""
    return _render(pills_root, role, _entries(os.path.join(repo_top, pills_root)))


def subagent_context(repo_top: StrPath, pills_root: str, stages: Collection[str], role: str) -> str:
    """Return what SubagentStart injects for `role`: its index if the role is injected, else ""."""
    return lessons_index(repo_top, pills_root, role) if injects(stages, role) else ""


def _render(root_rel: str, role: str, entries: dict[str, dict[str, Any]]) -> str:
    lessons = [
        (rel, entry)
        for rel, entry in entries.items()
        if entry["status"] == "active" and role in entry["roles"]
    ]
    if not lessons:
        return ""
    lessons.sort(
        key=lambda item: (
            _SEVERITY_ORDER.get(item[1]["severity"], 3),
            -item[1]["occurrences"],
            item[1]["key"],
        )
    )
    noun = "lesson" if len(lessons) == 1 else "lessons"
    lines = [
        f"Lessons learned for the {role} role ({len(lessons)} {noun}). When a trigger matches",
        "your task, read that pill's file for its rule before you act:",
    ]
    for rel, entry in lessons:
        lines.append(
            f"- [{entry['severity']}] {entry['id']}: {collapse(entry['trigger'])} "
            f"({root_rel}/{rel})"
        )
    return "\n".join(lines) + "\n"


def collapse(text: str, width: int = TRIGGER_WIDTH) -> str:
    """Collapse whitespace to single spaces and cut to `width` characters (with an ellipsis)."""
    flat = " ".join(text.split())
    return flat if len(flat) <= width else flat[: width - 1].rstrip() + "…"


def _entries(root: str) -> dict[str, dict[str, Any]]:
    """Return {path under root: index fields} for every usable pill, through the cache."""
    fields = cached(root, "pills", CACHE_VERSION, _pill_files(root), lambda rel: _parse(root, rel))
    return {rel: pill for rel, pill in fields.items() if pill is not None}


def _pill_files(root: str) -> dict[str, list[int]]:
    """Map `folder/slug.md` and `retired/folder/slug.md` to a stamp of the file's metadata."""
    return {name: s for name, s in markdown_stamps(root, depth=2).items() if "/" in name}


def _parse(root: str, rel: str) -> dict[str, Any] | None:
    # The one place the hook path may pay for YAML (and `pathlib`): a pill changed since the
    # last call.
    from pathlib import Path

    from gitflow_harness.learning.pills import parse_pill, place_of

    place = place_of(rel.split("/"))
    if place is None:
        return None
    pill, _ = parse_pill(Path(root, rel), rel, place)
    if pill is None:
        return None
    return {
        "key": pill.key,
        "id": pill.id,
        "roles": list(pill.roles),
        "status": pill.status,
        "severity": pill.severity,
        "occurrences": pill.occurrences,
        "trigger": pill.trigger,
    }
