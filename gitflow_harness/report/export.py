"""`gfh events export`: the events of several repositories as one JSON-lines stream.

Each line is one event with the repository it came from, in a versioned schema
(`docs/events.md#export`) that DuckDB and warehouses read as it is. The logs are streamed one
after the other: memory holds one event, never a log.
"""

from __future__ import annotations

import json
from collections.abc import Iterator, Sequence
from typing import Final

from gitflow_harness.report.repos import repo_ref
from gitflow_harness.workspace import Workspace

SCHEMA: Final = 1  # the export's own version: it changes when a field's meaning changes


def export_lines(workspaces: Sequence[Workspace], *, since: str | None = None) -> Iterator[str]:
    """Yield one line (newline included) per event of each workspace's log, in order."""
    import orjson

    for ws in workspaces:
        repo = repo_ref(ws).to_dict()
        for ev in ws.log.read(since=since):
            record = {
                "schema": SCHEMA,
                "repo": repo,
                "id": ev.id,
                "at": ev.at,
                "type": ev.type,
                "surface": ev.surface,
                "session": ev.session,
                "branch": ev.branch,
                "data": ev.data,
            }
            try:
                yield orjson.dumps(record).decode() + "\n"
            except TypeError:
                # What orjson will not write (an integer past 64 bits, a lone surrogate) is in
                # lines only the standard library parsed: it writes them, escaped to ASCII.
                yield json.dumps(record, separators=(",", ":")) + "\n"
