"""Where a rendered report goes: stdout, or a file replaced atomically."""

from __future__ import annotations

from pathlib import Path

from gitflow_harness.errors import UsageError
from gitflow_harness.store.fsutil import atomic_write


def write(text: str, path: Path) -> None:
    """Replace `path` with `text` (and a final newline): a reader sees the old file or the new."""
    try:
        atomic_write(path, text if text.endswith("\n") else text + "\n")
    except OSError as exc:
        reason = exc.strerror or type(exc).__name__
        raise UsageError(
            f"--output {path}: cannot write it ({reason}); name a file in a directory you can write"
        ) from None
