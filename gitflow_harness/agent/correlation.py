"""Session correlation: put `GFH_SESSION=<adapter>:<id>` into the agent's environment.

Every `gfh` verb the agent runs later reads `$GFH_SESSION` and stamps its events with it; nothing
else guesses a session. Claude Code sources the `export` lines a SessionStart hook appends to
`$CLAUDE_ENV_FILE` before each command it runs; Cursor and Codex take an `env` object in their
session-start output.
"""

from __future__ import annotations

import os

# Not `typing.TYPE_CHECKING`: importing typing costs ~2 ms per hook call (mypy reads the name).
TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Mapping

VARIABLE = "GFH_SESSION"
CLAUDE_ENV_FILE = "CLAUDE_ENV_FILE"


def export_line(session: str) -> str:
    """Return the shell line that exports `session`, single-quoted."""
    quoted = "'" + session.replace("'", "'\"'\"'") + "'"
    return f"export {VARIABLE}={quoted}\n"


class EnvFileError(Exception):
    """`$CLAUDE_ENV_FILE` could not be written: its message names the path and the reason."""

    def __init__(self, message: str) -> None:
        super().__init__(message)
        self.message = message


def write_env_file(session: str, environ: Mapping[str, str] | None = None) -> bool:
    """Append the export line to `$CLAUDE_ENV_FILE`; False when there is none or it is there.

    Raises `EnvFileError` (never `OSError`) when the file cannot be written: a missing
    directory, a directory in its place, no permission.
    """
    env = os.environ if environ is None else environ
    target = env.get(CLAUDE_ENV_FILE)
    if not target:
        return False
    line = export_line(session).encode("utf-8")
    try:
        fd = os.open(target, os.O_RDWR | os.O_APPEND | os.O_CREAT, 0o600)
        try:
            size = os.fstat(fd).st_size
            existing = os.pread(fd, size, 0) if size else b""
            if line in existing.splitlines(keepends=True):
                return False
            if existing and not existing.endswith(b"\n"):
                line = b"\n" + line
            os.write(fd, line)
        finally:
            os.close(fd)
    except OSError as exc:
        shown = target if target.isprintable() else repr(target)
        reason = exc.strerror or type(exc).__name__
        raise EnvFileError(
            f"cannot write ${CLAUDE_ENV_FILE} {shown}: {reason}; the agent's commands do not "
            f"get {VARIABLE}, so their events carry no session"
        ) from None
    return True
