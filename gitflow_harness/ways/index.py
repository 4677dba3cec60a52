"""The index of every way under a ways root, cached so a warm load parses no YAML.

The agent hook loads the index on every tool call, so a warm load does as little as it can:
- one `stat` per directory of the tree: a directory whose modification time did not change
  still holds the entries it held (adding, removing or renaming an entry changes it), so its
  cached listing (subdirectories, way file, `macro.sh`, `postcheck.sh`) is reused unread;
- one `stat` per way file: a way is taken from its cache entry when the file's size and
  modification time (ns) are unchanged, and parsed again otherwise;
- one JSON read, and the cache is rewritten only when something changed.

A file or directory modified within the last two seconds is "racy": a change within the
filesystem's timestamp granularity could leave its time as it was, so it is read again on every
load until it has settled. Warm loads import the standard library, `firing` and `ways.model`
only: check with `python -X importtime`.
"""

from __future__ import annotations

import json
import os
import time

from gitflow_harness.errors import GfhError
from gitflow_harness.firing.record import Record
from gitflow_harness.ways.model import MACRO_FILE, POSTCHECK_FILE, LoadProblem, Way

TYPE_CHECKING = False  # see firing/curves.py: no `typing` import at run time
if TYPE_CHECKING:
    from pathlib import Path
    from typing import Any

    StrPath = str | os.PathLike[str]

CACHE_FORMAT = 5
RACY_NS = 2_000_000_000

if TYPE_CHECKING:
    # A cached directory: [mtime_ns, racy, subdirectories, has macro.sh, has postcheck.sh, way],
    # the way None (no <dir>.md), [] (not read yet) or [size, mtime_ns, racy, payload, problems].
    Entry = list[Any]
    # What the walk finds for each way file, as a plain tuple (500 of them per hook call): the
    # fields of Found, then the directory's cache entry.
    Raw = tuple[str, str, int, int, bool, bool, Entry]


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


def scan(root: StrPath) -> list[Found]:
    """Walk `root` for way files `<dir>/<dir>.md`, sorted by id (no cache).

    Hidden entries are skipped and symlinked directories not followed (a tree cannot loop).
    """
    found, _, _ = _walk(os.path.abspath(os.fspath(root)), {}, time.time_ns())
    return [Found._make(*f[:6]) for f in found]


def load_index(
    root: StrPath, *, cache_file: StrPath | None = None, use_cache: bool = True
) -> WayIndex:
    """Load every way under `root`, from the cache where nothing changed.

    `cache_file` defaults to one file per root in the user state dir; `use_cache=False` parses
    everything and writes nothing. A missing root is an empty index.
    """
    root_s = os.path.abspath(os.fspath(root))
    if use_cache and cache_file is None:
        try:
            cache_file = default_cache_file(root_s)
        except (OSError, GfhError):  # no usable state dir: load without a cache
            use_cache = False
    cache_s = os.fspath(cache_file) if use_cache and cache_file is not None else None
    cached = _read_cache(cache_s, root_s) if cache_s else {}
    now = time.time_ns()
    found, entries, changed = _walk(root_s, cached, now)
    ways: list[Way] = []
    problems: list[LoadProblem] = []
    for raw in found:
        entry = raw[6]
        result = _from_entry(entry[5], raw)
        if result is None:
            entry[5], result = _parse(Found._make(*raw[:6]), now)
            changed = True
        if isinstance(result, list):
            problems.extend(result)
        else:
            ways.append(result)
    if cache_s and (changed or len(entries) != len(cached)):
        _write_cache(cache_s, root_s, entries)
    return WayIndex(root_s, tuple(ways), tuple(problems))


def ways_root(top: StrPath, relative: str) -> str:
    """Return the ways root of the worktree at `top`: `paths.ways`, relative to it."""
    return os.path.join(os.path.abspath(os.fspath(top)), relative)


def default_cache_file(root: StrPath) -> Path:
    """Return the cache file for a ways root: `<state>/ways-index/<hash of the root>.json`."""
    import hashlib

    from gitflow_harness.store.state import user_dir

    digest = hashlib.sha256(os.path.abspath(os.fspath(root)).encode("utf-8")).hexdigest()
    return user_dir("ways-index") / f"{digest[:24]}.json"


def _walk(
    root: str, cached: dict[str, Entry], now: int
) -> tuple[list[Raw], dict[str, Entry], bool]:
    """Walk the tree, reusing the listing of every directory whose mtime did not change."""
    found: list[Raw] = []
    entries: dict[str, Entry] = {}
    changed = False
    stat = os.stat  # locals: this loop runs once per directory on every hook call
    stack = [""]
    pop, push, add = stack.pop, stack.append, found.append
    while stack:
        rel = pop()
        path = root + "/" + rel if rel else root
        try:
            mtime = stat(path).st_mtime_ns
        except OSError:
            changed = True
            continue
        entry = cached.get(rel)
        if (
            type(entry) is not list
            or len(entry) != 6
            or entry[0] != mtime
            or entry[1]
            or type(entry[2]) is not list
        ):
            listing = _list(path, rel, mtime, now)
            if listing is None:
                changed = True
                continue
            if listing[5]:  # keep the way's entry: its file may well be unchanged
                old = entry[5] if type(entry) is list and len(entry) == 6 else None
                listing[5] = old if type(old) is list else []
            else:
                listing[5] = None
            entry = listing
            changed = True
        entries[rel] = entry
        prefix = rel + "/" if rel else ""
        for name in entry[2]:
            push(prefix + name)
        if entry[5] is None:
            continue
        file = path + "/" + rel.rpartition("/")[2] + ".md"
        try:
            st = stat(file)
        except OSError:
            changed = True
            continue
        add((rel, file, st.st_size, st.st_mtime_ns, entry[3], entry[4], entry))
    found.sort(key=_first)
    return found, entries, changed


def _first(raw: Raw) -> str:
    return raw[0]


def _list(path: str, rel: str, mtime: int, now: int) -> Entry | None:
    try:
        entries = list(os.scandir(path))
    except OSError:
        return None
    wanted = rel.rsplit("/", 1)[-1] + ".md" if rel else None
    subdirs: list[str] = []
    has_way = has_macro = has_postcheck = False
    for entry in entries:
        name = entry.name
        if name.startswith("."):
            continue
        if entry.is_dir(follow_symlinks=False):
            subdirs.append(name)
        elif name == wanted and entry.is_file():
            has_way = True
        elif name == MACRO_FILE:
            has_macro = entry.is_file()
        elif name == POSTCHECK_FILE:
            has_postcheck = entry.is_file()
    return [mtime, mtime >= now - RACY_NS, sorted(subdirs), has_macro, has_postcheck, has_way]


def _from_entry(way_entry: list[Any], raw: Raw) -> Way | list[LoadProblem] | None:
    """Return the way (or its problems) a cache entry holds, or None if stale or damaged.

    A way's entry is `[size, mtime_ns, racy, payload, problems]`.
    """
    way_id, file, size, mtime, has_macro, has_postcheck, _ = raw
    try:
        cached_size, cached_mtime, racy, payload, problems = way_entry
        if cached_size != size or cached_mtime != mtime or racy:
            return None
        if type(problems) is list:
            return [
                LoadProblem._make(file, line, severity, message)
                for line, severity, message in problems
            ]
        return Way.from_payload(
            payload,
            id=way_id,
            file=file,
            has_macro=has_macro,
            has_postcheck=has_postcheck,
            repair=reparse,
        )
    except (KeyError, TypeError, ValueError):
        return None


def reparse(way: Way) -> Way:
    """Parse a cached way's file again: its cache entry turned out damaged when decoded."""
    from gitflow_harness.ways.parse import parse_way_file

    again, problems = parse_way_file(
        way.file, way.id, has_macro=way.has_macro, has_postcheck=way.has_postcheck
    )
    if again is None:
        raise ValueError(f"{problems[0]}" if problems else f"{way.file}: cannot be read")
    return again


def _parse(found: Found, now: int) -> tuple[list[object], Way | list[LoadProblem]]:
    """Parse one way file; return its cache entry and the way (or its problems)."""
    from gitflow_harness.ways.parse import parse_way_file

    way, problems = parse_way_file(
        found.file, found.id, has_macro=found.has_macro, has_postcheck=found.has_postcheck
    )
    racy = found.mtime_ns >= now - RACY_NS
    if way is None:
        rows = [[p.line, p.severity, p.message] for p in problems]
        entry: list[object] = [found.size, found.mtime_ns, racy, None, rows]
        return entry, [LoadProblem(found.file, p.line, p.severity, p.message) for p in problems]
    return [found.size, found.mtime_ns, racy, way.to_payload(), None], way


def _read_cache(cache_file: str, root: str) -> dict[str, Entry]:
    try:
        with open(cache_file, "rb") as fh:
            data = json.loads(fh.read())
    except (OSError, ValueError):
        return {}
    if (
        type(data) is not dict
        or data.get("format") != CACHE_FORMAT
        or data.get("root") != root
        or type(data.get("entries")) is not dict
    ):
        return {}
    entries: dict[str, Entry] = data["entries"]
    return entries


def _write_cache(cache_file: str, root: str, entries: dict[str, Entry]) -> None:
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
