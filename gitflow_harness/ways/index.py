"""The index of every way under a ways root, cached so a warm load parses no YAML.

The agent hook loads the index on every tool call, so a warm load does as little as it can:
- one `stat` per directory of the tree: a directory whose modification time did not change
  still holds the entries it held (adding, removing or renaming an entry changes it), so its
  cached listing (subdirectories, way file, `macro.sh`, `postcheck.sh`) is reused unread;
- one `stat` per way file: a way is taken from its cache entry when the file's size and
  modification time (ns) are unchanged;
- one read of the cache (in `marshal`, in the user's private state dir; it is this Python's
  own format, and one it cannot read is rebuilt), rewritten only when something changed;
- with `select` (the hook's), when every way is as cached, only the ways the call can reach by
  the cache's table of their sieves are built (`sieve.table`, `sieve.candidates`).

A way file whose stat changed is never parsed again for a content already seen. Its content key
is its blob id: the worktree's own entry remembers it, and the repository's shared cache (one
per git common dir, in the state dir, so every worktree of it, and `gfh start` makes one per
task, finds what another parsed) maps it to the parsed way. Many such files at once (a new
worktree, a checkout of another branch) take their blob ids from the worktree's git index where
it proves a file unchanged since git wrote it (`blobs`), the others are read and hashed. A file
or directory modified within the last two seconds is "racy": a change within the filesystem's
timestamp granularity could leave its time as it was, so its key is found again on every load
until it has settled. Warm loads import the standard library, `firing` and `ways.model` only:
check with `python -X importtime`.
"""

from __future__ import annotations

import marshal
import os
import time

from gitflow_harness.errors import GfhError
from gitflow_harness.firing.record import Record
from gitflow_harness.home import name_hash
from gitflow_harness.store.digest import blob_id
from gitflow_harness.ways import ways_root as ways_root  # re-exported: its callers' name
from gitflow_harness.ways.model import MACRO_FILE, POSTCHECK_FILE, LoadProblem, Way
from gitflow_harness.ways.shared import Shared, write_cache
from gitflow_harness.ways.sieve import table as sieve_table

TYPE_CHECKING = False  # see firing/curves.py: no `typing` import at run time
if TYPE_CHECKING:
    from collections.abc import Callable, Sequence
    from typing import Any, TypeGuard

    from gitflow_harness.store.fsutil import StrPath

CACHE_FORMAT = 11  # `marshal`: faster than JSON; 9: sieves; 10: lanes opaque; 11: the table
RACY_NS = 2_000_000_000
INDEX_AFTER = 32  # stale way files from which the git index is read for their blob ids

if TYPE_CHECKING:
    # A cached directory: [mtime_ns, racy, subdirectories, has macro.sh, has postcheck.sh, way],
    # the way None (no <dir>.md), [] (not read yet) or
    # [size, mtime_ns, racy, payload, problems, content key (None: not hashed)].
    Entry = list[Any]
    # What the walk finds for each way file, as a plain tuple (500 of them per hook call): the
    # fields of Found, the directory's cache entry, then the file's stat.
    Raw = tuple[str, str, int, int, bool, bool, Entry, os.stat_result]


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
    root: StrPath,
    *,
    cache_file: StrPath | None = None,
    use_cache: bool = True,
    shared_file: StrPath | None = None,
    checkout: tuple[StrPath, StrPath] | None = None,
    select: Callable[[list[str], list[Any]], set[int] | None] | None = None,
) -> WayIndex:
    """Load every way under `root`, from the cache where nothing changed.

    `cache_file` defaults to one file per root in the user state dir; `shared_file` is the
    repository's cache by content (`shared.shared_cache_file`), shared by its worktrees;
    `checkout` is the worktree's top and git dir, whose index gives the content key of the
    files it checked out (`blobs`); `use_cache=False` parses everything and writes nothing. A
    missing root is an empty index.

    With `select`, the index holds only the ways `select` picks, and every problem: it is
    given the ids of the way files and the table of their sieves (`sieve.table`), and answers
    their places, or None for all (`sieve.candidates`). A load that finds every way as cached
    asks it of the cache's table and builds only those; any other, of the table it makes.
    """
    root_s = os.path.abspath(os.fspath(root))
    if use_cache and cache_file is None:
        try:
            cache_file = default_cache_file(root_s)
        except (OSError, GfhError):  # no usable state dir: load without a cache
            use_cache = False
    cache_s = os.fspath(cache_file) if use_cache and cache_file is not None else None
    cached, table = _read_cache(cache_s, root_s) if cache_s else ({}, None)
    shared = Shared(os.fspath(shared_file)) if use_cache and shared_file is not None else None
    now = time.time_ns()
    found, entries, changed = _walk(root_s, cached, now)
    ids = [raw[0] for raw in found]
    if select is not None and not changed and len(entries) == len(cached) and _table_of(table, ids):
        try:
            places = select(ids, table[1])
        except (AttributeError, IndexError, KeyError, TypeError, ValueError):
            places, table = None, None  # the table is damaged inside: written again below
        selected = _selected(root_s, found, places) if places is not None else None
        if selected is not None:
            return selected
    cached_results = [_from_entry(raw[6][5], raw) for raw in found]
    stale = [raw for raw, result in zip(found, cached_results, strict=True) if result is None]
    blobs = _blobs(stale, checkout, shared) if use_cache and checkout is not None else {}
    refreshed = _refresh_all(stale, now, shared, blobs) if stale else {}
    ways: list[Way] = []
    problems: list[LoadProblem] = []
    placed: list[Way | None] = []  # each way file's way, None where it has problems
    for raw, result in zip(found, cached_results, strict=True):
        if result is None:
            result = refreshed[id(raw)]
            changed = True
        if isinstance(result, list):
            problems.extend(result)
            placed.append(None)
        else:
            ways.append(result)
            placed.append(result)
    outdated = changed or len(entries) != len(cached) or not _table_of(table, ids)
    sieves = sieve_table(placed) if (cache_s and outdated) or select is not None else None
    if cache_s and outdated:
        _write_cache(cache_s, root_s, entries, [ids, sieves])
    if shared is not None:
        shared.save()
    if select is not None and sieves is not None:
        # The ways the call can reach, by the table just made of them, as a warm load picks.
        places = select(ids, sieves)
        if places is not None:
            ways = [way for place, way in enumerate(placed) if way is not None and place in places]
    return WayIndex(root_s, tuple(ways), tuple(problems))


def _selected(root: str, found: list[Raw], places: set[int]) -> WayIndex | None:
    """The index of the ways at `places` among the way files `found`, and of every problem,
    when each file is as its entry has it; else None (the full load decides)."""
    ways: list[Way] = []
    problems: list[LoadProblem] = []
    for place, raw in enumerate(found):
        way_entry = raw[6][5]
        if not _fresh(way_entry, raw):
            return None  # changed, racy or damaged: read again
        if way_entry[4] is None and place not in places:
            continue
        result = _build(way_entry[3], way_entry[4], raw)
        if result is None:
            return None
        if isinstance(result, list):
            problems.extend(result)
        else:
            ways.append(result)
    return WayIndex(root, tuple(ways), tuple(problems))


def _table_of(table: object, ids: list[str]) -> TypeGuard[list[Any]]:
    """Whether the cache's table is one of the way files `ids`, in their order."""
    return type(table) is list and len(table) == 2 and table[0] == ids


def _reusable(stale: list[Raw], shared: Shared | None) -> bool:
    """True when a stale way may hold a content parsed before: the shared cache holds some, or
    its directory's entry remembers one. Else (the first load of a tree) nothing is looked up by
    content, and the git index is not read for blob ids: hashing the files read anyway costs a
    fifth of reading it (3M instructions against 17M for 500 ways)."""
    if shared is not None and shared.holds_any():
        return True
    return any(type(raw[6][5]) is list and len(raw[6][5]) == 6 for raw in stale)


def _blobs(
    stale: list[Raw], checkout: tuple[StrPath, StrPath], shared: Shared | None
) -> dict[str, str]:
    """Return file -> blob id of the stale way files the worktree's git index proves unchanged;
    {} for none or a few (reading them costs less than reading the index), or when none of them
    can have been parsed before (`_reusable`)."""
    if len(stale) < INDEX_AFTER or not _reusable(stale, shared):
        return {}
    from gitflow_harness.ways.blobs import blob_ids

    top, git_dir = checkout
    return blob_ids(
        os.fspath(git_dir), os.path.abspath(os.fspath(top)), {raw[1]: raw[7] for raw in stale}
    )


KEEP_CACHE_S = 30 * 86400  # a worktree's cache unwritten this long is removed (`prune_caches`)


def forget_cache(root: StrPath) -> None:
    """Remove the cache of a ways root whose worktree is gone (`gfh accept` removed it)."""
    try:
        cache = default_cache_file(root)
    except (OSError, GfhError):
        return
    _remove(str(cache))


def prune_caches(now: float | None = None) -> int:
    """Remove the ways caches not written for `KEEP_CACHE_S`, and return how many.

    `gfh start` makes a worktree, and so a cache, per task; a worktree removed by hand leaves
    its cache behind. One still in use but unwritten that long (its ways unchanged) costs only
    its rebuild, from the repository's shared cache. A repository's shared cache is kept however
    old (its rebuild is a parse of every way), but for the files an earlier gfh named otherwise
    (`shared.named_here`), which none reads any more."""
    from gitflow_harness.store.state import remove_unwritten
    from gitflow_harness.ways.shared import named_here

    before = (time.time() if now is None else now) - KEEP_CACHE_S
    worktrees = remove_unwritten("ways-index", lambda f: f.endswith((".marshal", ".json")), before)
    return worktrees + remove_unwritten("ways-shared", lambda f: not named_here(f), before)


def default_cache_file(root: StrPath) -> str:
    """Return the cache file for a ways root: `<state>/ways-index/<hash of the root>.marshal`."""
    from gitflow_harness.store.state import user_dir

    digest = name_hash(os.path.abspath(os.fspath(root)).encode("utf-8", "surrogateescape"))
    return os.path.join(user_dir("ways-index"), f"{digest}.marshal")


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
        add((rel, file, st.st_size, st.st_mtime_ns, entry[3], entry[4], entry, st))
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
    """Return the way (or its problems) a cache entry holds, or None if stale or damaged."""
    if not _fresh(way_entry, raw):
        return None
    return _build(way_entry[3], way_entry[4], raw)


def _fresh(way_entry: object, raw: Raw) -> bool:
    """Whether a way's cache entry is of its file as the walk found it: the same size and
    mtime, and settled (not racy); False for an entry damaged in its shape."""
    return (
        type(way_entry) is list
        and len(way_entry) == 6
        and way_entry[0] == raw[2]
        and way_entry[1] == raw[3]
        and not way_entry[2]
    )


def _build(payload: object, problems: object, raw: Raw) -> Way | list[LoadProblem] | None:
    """Return the way (or its problems) from a stored payload, or None if it is damaged."""
    way_id, file, _, _, has_macro, has_postcheck, _, _ = raw
    try:
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


def _refresh_all(
    stale: list[Raw], now: int, shared: Shared | None, blobs: dict[str, str]
) -> dict[int, Way | list[LoadProblem]]:
    """Bring every stale way up to date (`_refresh`); return each one's result by `id` of its
    raw tuple. Those a proved blob id finds parsed before are taken first; when many are left to
    read and parse (the first load of a tree), a forked child does half of them (`halves`)."""
    results: dict[int, Way | list[LoadProblem]] = {}
    left: list[tuple[Raw, str | None]] = []  # each with its proved content key, if any
    for raw in stale:
        blob = blobs.get(raw[1])
        key = None if blob is None else _head(raw[0], raw[4], raw[5]) + blob
        if key is not None:
            result = _reuse(raw[6], raw, key, shared, raw[3] >= now - RACY_NS)
            if result is not None:
                results[id(raw)] = result
                continue
        left.append((raw, key))

    def mine(part: Sequence[tuple[Raw, str | None]]) -> None:
        for raw, key in part:
            results[id(raw)] = _refresh(raw[6], raw, now, shared, key)

    def theirs(part: Sequence[tuple[Raw, str | None]]) -> list[object]:
        mine(part)
        return [raw[6][5] for raw, _ in part]

    def take(part: Sequence[tuple[Raw, str | None]], answer: object) -> bool:
        if type(answer) is not list or len(answer) != len(part):
            return False
        for (raw, _), way_entry in zip(part, answer, strict=True):
            result = _from_parsed(raw, way_entry, shared)
            if result is None:
                return False  # damaged on the way: this process parses them itself
            results[id(raw)] = result
        return True

    if left:
        from gitflow_harness.halves import in_halves

        in_halves(left, mine, theirs, take, ready=_import_parser)
    return results


def _import_parser() -> None:
    """Import the parser before a fork, so that both processes have it from one import."""
    import gitflow_harness.ways.parse  # noqa: F401


def _from_parsed(
    raw: Raw, way_entry: object, shared: Shared | None
) -> Way | list[LoadProblem] | None:
    """Return the way (or its problems) a child parsed into `way_entry` (as `_refresh` fills
    it) and remember it in the directory's entry and the shared cache; None if unusable."""
    if type(way_entry) is not list or len(way_entry) != 6:
        return None
    size, mtime_ns, _, payload, problems, key = way_entry
    if size != raw[2] or mtime_ns != raw[3]:
        return None
    result = _build(payload, problems, raw)
    if result is None:
        return None
    raw[6][5] = way_entry
    if shared is not None and type(key) is str:
        shared.put(key, [payload, problems])
    return result


def _refresh(
    entry: Entry, raw: Raw, now: int, shared: Shared | None, key: str | None
) -> Way | list[LoadProblem]:
    """Bring the way of a directory's entry up to date, `key` its content key when the git index
    proved its blob id (whose reuse `_refresh_all` tried): from the content it held or the
    shared cache when its bytes were seen before, else by parsing it."""
    racy = raw[3] >= now - RACY_NS
    found = Found._make(*raw[:6])
    data = _read_bytes(found.file)
    if data is None:
        key = None  # its parse says why: nothing to remember by content
    elif key is None or len(data) != found.size:
        # Not proved by the git index (or changed since it was): its bytes say what it holds.
        # A proved file is not hashed again: its blob id is the key of the bytes just read.
        key = content_key(found, data)
        result = _reuse(entry, raw, key, shared, racy)
        if result is not None:
            return result
    payload, problems, result = _parse(found, data)
    entry[5] = [found.size, found.mtime_ns, racy, payload, problems, key]
    if shared is not None and key is not None:
        shared.put(key, [payload, problems])
    return result


def _reuse(
    entry: Entry, raw: Raw, key: str, shared: Shared | None, racy: bool
) -> Way | list[LoadProblem] | None:
    """Return the way a content key was parsed to before, by this worktree or another (and
    remember it in the directory's entry), or None."""
    old = entry[5]
    stored = None
    if type(old) is list and len(old) == 6 and old[5] == key:
        stored = old[3], old[4]
    elif shared is not None:
        stored = shared.get(key)
    if stored is None:
        return None
    result = _build(stored[0], stored[1], raw)
    if result is not None:
        entry[5] = [raw[2], raw[3], racy, stored[0], stored[1], key]
    return result


def content_key(found: Found, data: bytes) -> str:
    """Return what a way's parse depends on: its id, its siblings and its bytes' blob id."""
    return _head(found.id, found.has_macro, found.has_postcheck) + blob_id(data)


def _head(way_id: str, has_macro: bool, has_postcheck: bool) -> str:
    return f"{way_id}\0{int(has_macro)}{int(has_postcheck)}\0"


def _read_bytes(file: str) -> bytes | None:
    """Return a way file's bytes; None when it cannot be read or is past the size bound (its
    parse reports why)."""
    from gitflow_harness.store.frontmatter import MAX_DOCUMENT_BYTES
    from gitflow_harness.store.fsutil import read_within

    try:
        return read_within(file, MAX_DOCUMENT_BYTES)[0]
    except OSError:
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


def _parse(
    found: Found, data: bytes | None
) -> tuple[list[object] | None, list[list[object]] | None, Way | list[LoadProblem]]:
    """Parse one way file (from `data`, its bytes, when read); return its payload or its
    problems' rows, and the way (or its problems)."""
    from gitflow_harness.ways.parse import parse_way_file

    way, problems = parse_way_file(
        found.file,
        found.id,
        has_macro=found.has_macro,
        has_postcheck=found.has_postcheck,
        data=data,
    )
    if way is None:
        rows: list[list[object]] = [[p.line, p.severity, p.message] for p in problems]
        loaded = [LoadProblem(found.file, p.line, p.severity, p.message) for p in problems]
        return None, rows, loaded
    return way.to_payload(), None, way


def _read_cache(cache_file: str, root: str) -> tuple[dict[str, Entry], object]:
    """Return the worktree's cached entries and table of sieves (`[way files' ids, table]`);
    ({}, None) when the file is missing, damaged, of another format (or Python: `marshal`'s)
    or of another root."""
    try:
        with open(cache_file, "rb") as fh:
            data = marshal.loads(fh.read())
    except (OSError, EOFError, ValueError, TypeError):
        return {}, None
    if (
        type(data) is not dict
        or data.get("format") != CACHE_FORMAT
        or data.get("root") != root
        or type(data.get("entries")) is not dict
    ):
        return {}, None
    entries: dict[str, Entry] = data["entries"]
    return entries, data.get("table")


def _write_cache(cache_file: str, root: str, entries: dict[str, Entry], table: object) -> None:
    data = {"format": CACHE_FORMAT, "root": root, "entries": entries, "table": table}
    write_cache(cache_file, marshal.dumps(data))
    stem, ext = os.path.splitext(cache_file)
    if ext == ".marshal":  # the JSON cache an earlier gfh kept for this root goes with it
        _remove(f"{stem}.json")


def _remove(path: str) -> bool:
    """Remove a cache file; False when it could not be (gone already, say): only speed."""
    try:
        os.unlink(path)
    except OSError:
        return False
    return True
