"""Cross-process exclusive locks.

On POSIX these are `fcntl.flock` locks: they cost nothing to import (the hook path runs on every
tool call, and `filelock` alone costs ~40 ms to import) and the kernel drops them when a holder
dies, so a killed writer never leaves a stale lock. Elsewhere `filelock` provides the same.
"""

from __future__ import annotations

import os

from gitflow_harness.store.fsutil import CLOEXEC, NOFOLLOW, PRIVATE_FILE

TYPE_CHECKING = False  # see store/eventwrite.py: no `typing` import at run time
if TYPE_CHECKING:
    from types import TracebackType
    from typing import Any

    from gitflow_harness.store.fsutil import StrPath

try:
    import fcntl
except ImportError:  # pragma: no cover - Windows
    fcntl = None  # type: ignore[assignment]


class exclusive:  # lower case: used as a function: `with exclusive(path):`
    """Hold an exclusive lock on the lock file `path` (created 0600) for the block.

    A class, not `contextlib.contextmanager`: `gfh status` appends its event under this lock
    and imports no `contextlib` (2.7M instructions where an interpreter has not loaded it).
    """

    __slots__ = ("_fallback", "_fd", "_path")

    def __init__(self, path: StrPath) -> None:
        self._path = path
        self._fd = -1
        self._fallback: Any = None

    def __enter__(self) -> None:
        if fcntl is None:  # pragma: no cover - Windows
            import filelock

            self._fallback = filelock.FileLock(str(self._path))
            self._fallback.acquire()
            return
        # Never through a symlink planted in the lock's place (ELOOP: an OSError the caller
        # names).
        fd = os.open(self._path, os.O_RDWR | os.O_CREAT | NOFOLLOW | CLOEXEC, PRIVATE_FILE)
        try:
            fcntl.flock(fd, fcntl.LOCK_EX)
        except BaseException:
            os.close(fd)
            raise
        self._fd = fd

    def __exit__(
        self, kind: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        if self._fallback is not None:  # pragma: no cover - Windows
            self._fallback.release()
            return
        os.close(self._fd)  # closing releases the lock
