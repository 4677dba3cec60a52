"""Session correlation: the agent's `gfh` commands must learn the session SessionStart saw.

They read `$GFH_SESSION`, else the host's own variable (`store.session_env`). Claude Code sources
the `export` lines a SessionStart hook appends to `$CLAUDE_ENV_FILE` before each command it
runs, and exports `CLAUDE_CODE_SESSION_ID` too; Cursor takes an `env` object in its
session-start output; Codex exports `CODEX_SESSION_ID`. Where none of these reaches the agent,
SessionStart says so (`undelivered`): to the agent, on stderr, in the log.
"""

from __future__ import annotations

import os

# Not `typing.TYPE_CHECKING`: importing typing costs ~2 ms per hook call (mypy reads the name).
TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Mapping
    from types import ModuleType

VARIABLE = "GFH_SESSION"
CLAUDE_ENV_FILE = "CLAUDE_ENV_FILE"
UNDELIVERED = "SessionUndelivered"  # the `hook.error` reason (docs/events.md)
HOSTS = {"claude": "Claude Code", "cursor": "Cursor", "codex": "Codex"}


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
        raise EnvFileError(f"cannot write ${CLAUDE_ENV_FILE} {shown}: {reason}") from None
    return True


def export(adapter: ModuleType, session: str, env: dict[str, str]) -> tuple[bool, str]:
    """Put `session` into the adapter's channel to the agent's commands (`SESSION_CHANNEL`):
    Claude Code's `$CLAUDE_ENV_FILE`, or `env`, the session-start output's environment.

    Return whether it went out, and what was missing when it did not.
    """
    channel = adapter.SESSION_CHANNEL
    if channel == "env":
        env[VARIABLE] = session
        return True, ""
    if channel == "env_file":
        try:
            write_env_file(session)
        except EnvFileError as exc:
            return False, exc.message
        if os.environ.get(CLAUDE_ENV_FILE):
            return True, ""
        return False, f"no ${CLAUDE_ENV_FILE}"
    return False, f"{HOSTS.get(adapter.NAME, adapter.NAME)} takes no {VARIABLE} from its hooks"


def undelivered(adapter: ModuleType, session: str, missing: str) -> tuple[str, str]:
    """Say that no session reaches the agent's commands: the one-line problem (for stderr and
    the `hook.error`) and the context that tells the agent the one thing it can do.

    `missing` names what the channel lacked; the host's own variables are named after it. Both
    are gfh's own words: no payload text.
    """
    from gitflow_harness.store.session_env import host_variables

    name = str(adapter.NAME)
    host = HOSTS.get(name, name)
    variables = " or $".join(host_variables(name))
    if variables:
        missing += f" and no ${variables} in the hook's environment"
    problem = (
        f"{UNDELIVERED}: {missing}, so {host} passes no session to the agent's gfh commands; "
        f"the agent is told to prefix them with {VARIABLE}={name}:<id>"
    )
    context = (
        f"gfh: this session's id does not reach your commands ({missing}). Run every gfh "
        f"command with it in front, e.g. `{VARIABLE}={session} gfh status --end-turn` and "
        f'`{VARIABLE}={session} gfh task set "<focus>"`; without it they record no session '
        "and `gfh task set` refuses."
    )
    return problem, context
