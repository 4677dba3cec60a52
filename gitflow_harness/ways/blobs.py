"""The blob ids a worktree's git index holds for the files it knows unchanged.

A checkout writes each file, records its stat data and blob id in the index (`<git dir>/index`),
then writes the index. A file whose stat still equals its entry's, and whose entry is older than
the index file itself, holds the blob's bytes: this is git's own rule for skipping a file's
content (see git's `racy-git` notes), and it gives the first load in a new worktree the content
key of every tracked way file without opening one.

Only what can be proven is served; anything else is left to reading the file:
- an index `store.git_index` can prove things from (version 2 or 3, its checksum right, not
  split nor sparse);
- an entry at stage 0, not assumed unchanged, skipped or intent-to-add (no flag set);
- whose modification and change times, inode, mode and size equal the file's now (a regular
  file, then, as git records its mode), and whose modification time is older than the index
  file's ("racily clean" entries are never served).
"""

from __future__ import annotations

import os
import stat

from gitflow_harness.store import git_index
from gitflow_harness.store.git_index import ASSUME_VALID, EXTENDED, STAGE

TYPE_CHECKING = False  # see firing/curves.py: no `typing` import at run time
if TYPE_CHECKING:
    from collections.abc import Iterable, Mapping
    from typing import Any

U32 = 0xFFFFFFFF
FILE, EXECUTABLE = 0o100644, 0o100755
NS = 1_000_000_000


def blob_ids(git_dir: str, top: str, files: Mapping[str, os.stat_result]) -> dict[str, str]:
    """Return file -> blob id (hex) for the `files` (absolute paths under the worktree `top`,
    each with its `os.stat` taken now) the index of `git_dir` proves unchanged."""
    wanted: dict[bytes, tuple[str, tuple[int, ...]]] = {}
    prefix = os.path.join(top, "")
    for file, st in files.items():
        if file.startswith(prefix):
            path = os.fsencode(file[len(prefix) :].replace(os.sep, "/"))
            wanted[path] = file, _stat_data(st)
    data, index = git_index.read(os.path.join(git_dir, "index")) if wanted else (None, None)
    if data is None or index is None:
        return {}
    stamp = index.st_mtime_ns
    found: dict[str, str] = {}
    for path, fields in _entries(data, _shared_start(wanted)):
        want = wanted.get(path)
        if want is None:
            continue
        file, stat_data = want
        # Racily clean when not older than the index: the file may have changed since, unseen.
        if fields[:-1] == stat_data and files[file].st_mtime_ns < stamp:
            found[file] = fields[-1].hex()
    return found


def _shared_start(paths: Iterable[bytes]) -> bytes:
    """Return what all of `paths` start with: index entries are sorted by path, and only those
    starting with it are unpacked."""
    ordered = sorted(paths)
    low, high = ordered[0], ordered[-1]
    size = 0
    while size < len(low) and low[size] == high[size]:
        size += 1
    return low[:size]


def _stat_data(st: os.stat_result) -> tuple[int, ...]:
    """Return what an index entry records of a file with this stat, in the entry's order:
    change and modification times (seconds, nanoseconds), inode, mode (as git writes a regular
    file's: executable or not; 0 for anything else, which no entry served has), size, each as
    git truncates it to 32 bits."""
    ctime, mtime, mode = st.st_ctime_ns, st.st_mtime_ns, st.st_mode
    return (
        (ctime // NS) & U32,
        ctime % NS,
        (mtime // NS) & U32,
        mtime % NS,
        st.st_ino & U32,
        (EXECUTABLE if mode & 0o100 else FILE) if stat.S_ISREG(mode) else 0,
        st.st_size & U32,
    )


def _entries(data: bytes, prefix: bytes) -> list[tuple[bytes, tuple[Any, ...]]]:
    """Return (path, (stat data as `_stat_data` orders it, blob id)) of the entries of stage 0,
    of a regular file, with no flag set, whose path starts with `prefix`; [] when the index is
    partial or an entry runs past the end."""
    import struct

    listed = git_index.entries(data)
    if listed is None:
        return []
    unpack = struct.Struct(">4L4xLL8xL20s").unpack_from
    return [
        (path, unpack(data, at))
        for at, flags, path in listed
        if not flags & (ASSUME_VALID | EXTENDED | STAGE) and path.startswith(prefix)
    ]
