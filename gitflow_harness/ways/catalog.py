"""Finding ways for the commands: the repository's ways root, lookup by id, counts from the log."""

from __future__ import annotations

import os
from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

from gitflow_harness.errors import GfhError, UsageError
from gitflow_harness.store.config import Config
from gitflow_harness.store.events import Event
from gitflow_harness.ways.index import WayIndex, load_index, ways_root
from gitflow_harness.ways.model import Way

if TYPE_CHECKING:
    from gitflow_harness.workspace import Workspace


def load(top: Path, config: Config) -> WayIndex:
    """Load the index of a worktree's ways through the cache."""
    return load_index(ways_root(top, config.paths.ways))


def find(index: WayIndex, query: str) -> Way:
    """Return the way named by an exact id, else a unique last segment (`commit-messages`),
    else a unique prefix of its id or of its trailing segments (`git/com`, `commit`)."""
    query = query.strip("/")
    exact = index.get(query)
    if exact is not None:
        return exact
    named = [w for w in index.ways if w.id.rsplit("/", 1)[-1] == query]
    if len(named) == 1:
        return named[0]
    candidates = named or [w for w in index.ways if _prefixes(w.id, query)]
    if len(candidates) == 1:
        return candidates[0]
    if candidates:
        names = ", ".join(w.id for w in candidates)
        raise UsageError(f"{query!r} names several ways ({names}); give the full id")
    for problem in index.problems:
        if Path(problem.path).parent.as_posix().endswith("/" + query):
            raise GfhError(f"{problem} (run `gfh ways lint` to see every problem)")
    raise UsageError(f"no way {query!r} under {index.root}; `gfh ways list` shows their ids")


def _prefixes(way_id: str, query: str) -> bool:
    """True when `query` begins the id or the id without some of its leading segments."""
    parts = way_id.split("/")
    return any("/".join(parts[i:]).startswith(query) for i in range(len(parts)))


@dataclass
class Counts:
    """How often a way fired and was suppressed, from the event log."""

    fired: int = 0
    suppressed: int = 0
    reasons: Counter[str] = field(default_factory=Counter)


def count_events(events: Iterable[Event]) -> dict[str, Counts]:
    """Count `way.fired` and `way.suppressed` per way id."""
    out: dict[str, Counts] = {}
    for ev in events:
        if ev.type not in ("way.fired", "way.suppressed"):
            continue
        way_id = ev.data.get("way")
        if not isinstance(way_id, str):
            continue
        counts = out.setdefault(way_id, Counts())
        if ev.type == "way.fired":
            counts.fired += 1
        else:
            counts.suppressed += 1
            reason = ev.data.get("reason")
            counts.reasons[reason if isinstance(reason, str) else "unknown"] += 1
    return out


def describe_lanes(way: Way) -> dict[str, object]:
    """Return the way's triggers as data: each lane's value, the postcheck, the roles."""
    out = way.lanes.to_json()
    if way.has_postcheck:
        out["postcheck"] = "postcheck.sh"
    if way.roles:
        out["roles"] = list(way.roles)
    return out


def row(way: Way, floor: float, counts: Counts | None) -> dict[str, object]:
    """Return one `gfh ways list` row."""
    counts = counts or Counts()
    return {
        "id": way.id,
        "description": way.description,
        "lanes": list(way.trigger_names()),
        "curve": way.curve.to_dict(),
        "axis": way.axis,
        "refire_delta": way.curve.refire_delta(floor),
        "fired": counts.fired,
        "suppressed": counts.suppressed,
        "suppressed_by": dict(sorted(counts.reasons.items())),
    }


@dataclass(frozen=True, slots=True)
class Listing:
    """What `gfh ways list` shows: the index, the floor, one row per way."""

    index: WayIndex
    floor: float
    rows: list[dict[str, object]]

    def to_dict(self, base: str | None = None) -> dict[str, object]:
        """Return the `--json` object, paths shown from `base` (default: the current
        directory)."""
        return {
            "root": relative(str(self.index.root), base),
            "floor": self.floor,
            "ways": self.rows,
            "problems": [problem_text(p, base) for p in self.index.problems],
        }


def listing(ws: Workspace) -> Listing:
    """List the workspace's ways with their fires and suppressions from the log."""
    index = load(ws.top, ws.config)
    floor = ws.config.ways.floor
    counts = count_events(ws.log.read())
    return Listing(index, floor, [row(way, floor, counts.get(way.id)) for way in index.ways])


def relative(path: str, base: str | None = None) -> str:
    """Return `path` relative to `base` (default: the current directory) when it lies below."""
    try:
        rel = os.path.relpath(path, base)
    except ValueError:
        return path
    return path if rel.startswith("..") else rel


def problem_text(problem: object, base: str | None = None) -> str:
    """One problem of the index as a line, its path shown from `base`."""
    path = getattr(problem, "path", "")
    text = str(problem)
    return relative(path, base) + text[len(path) :] if path and text.startswith(path) else text


MAX_TICKS = 100_000  # matches one simulation expands to: enough for any curve, bounded memory


def parse_ticks(spec: str, magnitude: float) -> list[tuple[int, float]]:
    """Parse `--ticks`: comma-separated `T`, `T:M` or `START..END/STEP` (each may add `:M`),
    at most `MAX_TICKS` matches in all."""
    out: list[tuple[int, float]] = []
    for raw in spec.split(","):
        item = raw.strip()
        if not item:
            continue
        ticks_part, _, mag_part = item.partition(":")
        try:
            mag = float(mag_part) if mag_part else magnitude
            if ".." in ticks_part:
                span, _, step_part = ticks_part.partition("/")
                start_part, _, end_part = span.partition("..")
                start, end = int(start_part), int(end_part)
                step = int(step_part) if step_part else 1
                if step < 1 or end < start:
                    raise ValueError
                ticks = range(start, end + 1, step)
            else:
                ticks = range(int(ticks_part), int(ticks_part) + 1)
        except ValueError:
            raise UsageError(
                f"--ticks: {item!r} is not T, T:MAGNITUDE or START..END/STEP with integer ticks"
            ) from None
        if ticks[0] < 0 or not mag > 0:
            raise UsageError(f"--ticks: {item!r}: ticks are non-negative, magnitudes positive")
        if len(out) + len(ticks) > MAX_TICKS:
            raise UsageError(
                f"--ticks: {item!r} makes {len(out) + len(ticks)} matches; at most {MAX_TICKS} "
                "in one run: use a larger STEP or a shorter range"
            )
        out.extend((t, mag) for t in ticks)
    if not out:
        raise UsageError("--ticks: give at least one tick")
    return out
