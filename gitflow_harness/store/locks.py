"""Cross-process exclusive locks.

On POSIX these are `fcntl.flock` locks: they cost nothing to import (the hook path runs on every
tool call, and `filelock` alone costs ~40 ms to import) and the kernel drops them when a holder
dies, so a killed writer never leaves a stale lock. Elsewhere `filelock` provides the same.
"""

from __future__ import annotations

import os
from contextlib import contextmanager

from gitflow_harness.store.fsutil import CLOEXEC, NOFOLLOW, PRIVATE_FILE

TYPE_CHECKING = False  # see store/eventwrite.py: no `typing` import at run time
if TYPE_CHECKING:
    from collections.abc import Iterator
    from pathlib import Path

try:
    import fcntl
except ImportError:  # pragma: no cover - Windows
    fcntl = None  # type: ignore[assignment]


@contextmanager
def exclusive(path: Path) -> Iterator[None]:
    """Hold an exclusive lock on the lock file `path` (created 0600) for the block."""
    if fcntl is None:  # pragma: no cover - Windows
        import filelock

        with filelock.FileLock(str(path)):
            yield
        return
    # Never through a symlink planted in the lock's place (ELOOP: an OSError the caller names).
    fd = os.open(path, os.O_RDWR | os.O_CREAT | NOFOLLOW | CLOEXEC, PRIVATE_FILE)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX)
        yield
    finally:
        os.close(fd)  # closing releases the lock
