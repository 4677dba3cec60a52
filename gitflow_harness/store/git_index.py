"""git's index file (`<git dir>/index`), read in place: its header, checksum and entries.

Only what can be proven is read: an index of version 2 or 3 whose SHA-1 checksum is right
(version 4, a SHA-256 repository, an index written without its checksum, a damaged or
unreadable file: nothing), and none of a split index (`link`) or a sparse one (`sdir`), whose
entries are not the whole tree. Each entry is 62 bytes of stat data, its id and its flags,
then its path and 1 to 8 NULs (git's `read-cache.c`, index-format.txt).
"""

from __future__ import annotations

TYPE_CHECKING = False  # see firing/curves.py: no `typing` import at run time
if TYPE_CHECKING:
    import os

SIGNATURE = b"DIRC"
VERSIONS = (2, 3)
HEADER = 12
HASH = 20  # SHA-1
FIXED = 62  # an entry's stat data, its id and its flags
MODE, ID = 24, 40  # where an entry's mode and object id start
ASSUME_VALID, EXTENDED, STAGE, NAME_MASK = 0x8000, 0x4000, 0x3000, 0x0FFF
PARTIAL = (b"link", b"sdir")  # extensions whose index does not list every file itself
MAX_INDEX = 64 * 1024 * 1024  # past it, git's own reading is the cheaper way


def read(path: str) -> tuple[bytes | None, os.stat_result | None]:
    """Return the index file's bytes and its stat; None unless it is one this module can prove
    things from."""
    from gitflow_harness.store.digest import sha1_digest
    from gitflow_harness.store.fsutil import read_within

    try:
        data, st = read_within(path, MAX_INDEX)
    except OSError:
        return None, None
    if (
        data is None
        or len(data) < HEADER + HASH
        or data[:4] != SIGNATURE
        or int.from_bytes(data[4:8], "big") not in VERSIONS
        or sha1_digest(data[:-HASH]) != data[-HASH:]
    ):
        return None, None
    return data, st


def entries(data: bytes) -> list[tuple[int, int, bytes]] | None:
    """Return (offset, flags, path) of every entry of a `read` index, in its order (by path,
    then stage); None when the index is partial or an entry runs past the end."""
    count = int.from_bytes(data[8:12], "big")
    end = len(data) - HASH
    found: list[tuple[int, int, bytes]] = []
    append, find = found.append, data.find  # looked up once: this runs for every file
    at = HEADER
    try:
        for _ in range(count):
            flags = data[at + 60] << 8 | data[at + 61]
            start = at + FIXED + (2 if flags & EXTENDED else 0)
            # The name's length, or NAME_MASK for a longer one: it ends at its first NUL.
            stop = find(b"\0", start + (flags & NAME_MASK), end)
            if stop < 0:
                return None
            append((at, flags, data[start:stop]))
            at += (stop - at + 8) & ~7  # the name, then 1 to 8 NULs: a multiple of 8
    except IndexError:  # more entries counted than the file holds
        return None
    while at + 8 <= end:  # the extensions
        if data[at : at + 4] in PARTIAL:
            return None
        at += 8 + int.from_bytes(data[at + 4 : at + 8], "big")
    return found
