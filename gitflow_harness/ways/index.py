"""The index of every way under a ways root, cached so a warm load parses no YAML.

The agent hook loads the index on every tool call. A load walks the tree (one `scandir` per
directory, one `stat` per way file) and takes each way from a JSON cache entry keyed by the
file's path, size and mtime; only files that changed are parsed again, and the cache is
rewritten only when something changed. An entry whose file was modified within the last two
seconds is "racy" (a same-size edit within the filesystem's timestamp granularity would look
unchanged) and is parsed again on the next load until it has settled.

Warm loads import the standard library, `firing` and `ways.model` only: check with
`python -X importtime`.
"""

from __future__ import annotations

import json
import os
import time

from gitflow_harness.firing.record import Record
from gitflow_harness.ways.model import MACRO_FILE, POSTCHECK_FILE, LoadProblem, Way

TYPE_CHECKING = False  # see firing/curves.py: no `typing` import at run time
if TYPE_CHECKING:
    from pathlib import Path

    StrPath = str | os.PathLike[str]

CACHE_FORMAT = 1
RACY_NS = 2_000_000_000


class WayIndex(Record):
    """Every way under `root` that loaded, sorted by id, and the problems of those that did not."""

    FIELDS = ("root", "ways", "problems")
    __slots__ = FIELDS
    root: str
    ways: tuple[Way, ...]
    problems: tuple[LoadProblem, ...]

    def __init__(
        self, root: str, ways: tuple[Way, ...], problems: tuple[LoadProblem, ...] = ()
    ) -> None:
        self._init(root=root, ways=ways, problems=problems)

    def get(self, way_id: str) -> Way | None:
        """Return the way with this exact id, or None."""
        for way in self.ways:
            if way.id == way_id:
                return way
        return None


class Found(Record):
    """A way file found by the walk: its id, path, stat key and siblings."""

    FIELDS = ("id", "file", "size", "mtime_ns", "has_macro", "has_postcheck")
    __slots__ = FIELDS
    id: str
    file: str
    size: int
    mtime_ns: int
    has_macro: bool
    has_postcheck: bool

    def __init__(
        self,
        id: str,
        file: str,
        size: int,
        mtime_ns: int,
        has_macro: bool,
        has_postcheck: bool,
    ) -> None:
        self._init(
            id=id,
            file=file,
            size=size,
            mtime_ns=mtime_ns,
            has_macro=has_macro,
            has_postcheck=has_postcheck,
        )


def scan(root: StrPath) -> list[Found]:
    """Walk `root` for way files `<dir>/<dir>.md`, sorted by id.

    Hidden entries are skipped and symlinked directories not followed (a tree cannot loop).
    """
    found: list[Found] = []
    stack: list[tuple[str, str]] = [("", os.fspath(root))]
    while stack:
        rel, directory = stack.pop()
        try:
            entries = list(os.scandir(directory))
        except OSError:
            continue
        wanted = rel.rsplit("/", 1)[-1] + ".md" if rel else None
        way_entry = None
        has_macro = has_postcheck = False
        for entry in entries:
            name = entry.name
            if name.startswith("."):
                continue
            if entry.is_dir(follow_symlinks=False):
                stack.append((f"{rel}/{name}" if rel else name, entry.path))
            elif name == wanted:
                way_entry = entry
            elif name == MACRO_FILE:
                has_macro = entry.is_file()
            elif name == POSTCHECK_FILE:
                has_postcheck = entry.is_file()
        if way_entry is None:
            continue
        try:
            st = way_entry.stat()
        except OSError:
            continue
        found.append(
            Found(rel, way_entry.path, st.st_size, st.st_mtime_ns, has_macro, has_postcheck)
        )
    found.sort(key=lambda f: f.id)
    return found


def load_index(
    root: StrPath, *, cache_file: StrPath | None = None, use_cache: bool = True
) -> WayIndex:
    """Load every way under `root`, from the cache where the files did not change.

    `cache_file` defaults to one file per root in the user state dir; `use_cache=False` parses
    everything and writes nothing. A missing root is an empty index.
    """
    root_s = os.path.abspath(os.fspath(root))
    if use_cache and cache_file is None:
        cache_file = default_cache_file(root_s)
    cache_s = os.fspath(cache_file) if use_cache and cache_file is not None else None
    cached = _read_cache(cache_s, root_s) if cache_s else {}
    entries: dict[str, dict[str, object]] = {}
    ways: list[Way] = []
    problems: list[LoadProblem] = []
    changed = False
    for found in scan(root_s):
        entry = cached.get(found.id)
        result = None if entry is None else _from_entry(entry, found)
        if entry is None or result is None:
            entry = _parse(found)
            result = _from_entry(entry, found, trust_racy=True)
            changed = True
        entries[found.id] = entry
        if isinstance(result, Way):
            ways.append(result)
        elif result is not None:
            problems.extend(result)
    if cache_s and (changed or entries.keys() != cached.keys()):
        _write_cache(cache_s, root_s, entries)
    return WayIndex(root_s, tuple(ways), tuple(problems))


def default_cache_file(root: StrPath) -> Path:
    """Return the cache file for a ways root: `<state>/ways-index/<hash of the root>.json`."""
    import hashlib

    from gitflow_harness.store.state import user_dir

    digest = hashlib.sha256(os.path.abspath(os.fspath(root)).encode("utf-8")).hexdigest()
    return user_dir("ways-index") / f"{digest[:24]}.json"


def _from_entry(
    entry: dict[str, object], found: Found, *, trust_racy: bool = False
) -> Way | list[LoadProblem] | None:
    """Return the way (or its problems) a cache entry holds, or None if it is stale or bad."""
    if entry.get("size") != found.size or entry.get("mtime_ns") != found.mtime_ns:
        return None
    if entry.get("racy") and not trust_racy:
        return None
    try:
        if "problems" in entry:
            raw = entry["problems"]
            assert isinstance(raw, list)
            return [
                LoadProblem(found.file, line, severity, message) for line, severity, message in raw
            ]
        data = entry["way"]
        assert isinstance(data, dict)
        return Way.from_json(
            data, file=found.file, has_macro=found.has_macro, has_postcheck=found.has_postcheck
        )
    except (AssertionError, KeyError, TypeError, ValueError):
        return None


def _parse(found: Found) -> dict[str, object]:
    from gitflow_harness.ways.parse import parse_way_file

    way, problems = parse_way_file(
        found.file, found.id, has_macro=found.has_macro, has_postcheck=found.has_postcheck
    )
    entry: dict[str, object] = {"size": found.size, "mtime_ns": found.mtime_ns}
    if found.mtime_ns >= time.time_ns() - RACY_NS:
        entry["racy"] = True
    if way is None:
        entry["problems"] = [[p.line, p.severity, p.message] for p in problems]
    else:
        entry["way"] = way.to_json()
    return entry


def _read_cache(cache_file: str, root: str) -> dict[str, dict[str, object]]:
    try:
        with open(cache_file, "rb") as fh:
            data = json.loads(fh.read())
    except (OSError, ValueError):
        return {}
    if (
        not isinstance(data, dict)
        or data.get("format") != CACHE_FORMAT
        or data.get("root") != root
        or not isinstance(data.get("entries"), dict)
    ):
        return {}
    entries: dict[str, dict[str, object]] = data["entries"]
    return {k: v for k, v in entries.items() if isinstance(v, dict)}


def _write_cache(cache_file: str, root: str, entries: dict[str, dict[str, object]]) -> None:
    """Replace the cache atomically; a cache that cannot be written only costs speed."""
    import contextlib
    from pathlib import Path

    from gitflow_harness.store.fsutil import write_private

    payload = json.dumps(
        {"format": CACHE_FORMAT, "root": root, "entries": entries},
        ensure_ascii=False,
        separators=(",", ":"),
    )
    with contextlib.suppress(OSError):
        write_private(Path(cache_file), payload)
