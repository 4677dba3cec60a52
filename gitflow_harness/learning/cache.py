"""What was parsed from pill files, kept in owner-only caches keyed by each file's stamp.

Parsing a pill means YAML (~10 ms per file in pure Python): the lessons index of the hook path
and the catalog of `pills check` and `learn --check` each keep what they read in their own cache
file under the state home, and parse a file again only when its size, mtime, ctime or inode
changed. Standard library only: the hook path imports this. A cache is named by a short hash
of its root (`home.name_hash`); two roots of one name would only parse again, as every entry
is taken by its file's stamp, inode included.
"""

from __future__ import annotations

import os

from gitflow_harness import jsonio
from gitflow_harness.home import name_hash

# Not `typing.TYPE_CHECKING`: the hook path does not import typing (mypy reads the name).
TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable, Mapping
    from typing import Any

    from gitflow_harness.store.fsutil import StrPath


def stamp(st: os.stat_result) -> list[int]:
    """Return what identifies a file's current content: its size, mtime, ctime and inode."""
    return [st.st_size, st.st_mtime_ns, st.st_ctime_ns, st.st_ino]


def markdown_stamps(
    root: StrPath, *, depth: int, unlisted: type[OSError] = OSError
) -> dict[str, list[int]]:
    """{path under `root` (posix): stamp} of every `*.md` file (symlinks to files count) at
    most `depth` folders below `root`. Symlinked folders are not followed; a folder that cannot
    be listed with an error of type `unlisted` is passed over."""
    out: dict[str, list[int]] = {}

    def scan(folder: str, prefix: str, depth: int) -> None:
        try:
            with os.scandir(folder) as it:
                items = list(it)
        except unlisted:
            return
        for item in items:
            if item.is_dir(follow_symlinks=False):
                if depth > 0:
                    scan(item.path, f"{prefix}{item.name}/", depth - 1)
            elif item.name.endswith(".md") and item.is_file():
                out[prefix + item.name] = stamp(item.stat())

    scan(os.fspath(root), "", depth)
    return out


def cached(
    root: StrPath,
    kind: str,
    version: str,
    files: Mapping[str, list[int]],
    parse: Callable[[str], Any],
) -> dict[str, Any]:
    """Return {name: parse(name)} for every file of `files` (name -> stamp) under `root`,
    from the `kind` cache of that root where the stamp is unchanged.

    The cache is rewritten when a file was parsed or went away; a cache written by another
    `version` of its format is ignored.
    """
    path = cache_path(root, kind)
    known = _read(path, version)
    out: dict[str, Any] = {}
    fresh: dict[str, dict[str, Any]] = {}
    changed = set(known) != set(files)
    for name, current in files.items():
        hit = known.get(name)
        if isinstance(hit, dict) and hit.get("stamp") == current and "value" in hit:
            fresh[name] = hit
        else:
            fresh[name] = {"stamp": current, "value": parse(name)}
            changed = True
        out[name] = fresh[name]["value"]
    if changed:
        _write(path, version, fresh)
    return out


def cache_path(root: StrPath, kind: str) -> str:
    """Return the `kind` cache file of the pills root `root`."""
    from gitflow_harness.store.state import state_home

    digest = name_hash(os.fsencode(os.path.realpath(root)))
    return os.path.join(state_home(), "cache", f"{kind}-{digest}.json")


def _read(path: str, version: str) -> dict[str, Any]:
    try:
        from gitflow_harness.store.fsutil import read_bytes

        data = jsonio.loads(read_bytes(path))
    except (OSError, ValueError):
        return {}
    if not isinstance(data, dict) or data.get("version") != version:
        return {}
    entries = data.get("entries")
    return entries if isinstance(entries, dict) else {}


def _write(path: str, version: str, entries: dict[str, dict[str, Any]]) -> None:
    from gitflow_harness.store.fsutil import write_private

    payload = jsonio.dumps({"version": version, "entries": entries}, ensure_ascii=False)
    try:
        write_private(path, payload)
    except OSError:
        pass  # a cache that cannot be written costs time on the next call, nothing else
