"""The session's declared task: its text in owner-only session state, never in the log.

The log records only an HMAC fingerprint of the text (`coord.task_changed`), so a reader of the
log can tell when the task changed without learning what it says. The key is random, created
once per user under the state directory, owner-only.
"""

from __future__ import annotations

import os

from gitflow_harness import jsonio
from gitflow_harness.errors import GfhError, UsageError
from gitflow_harness.store.eventwrite import now_at
from gitflow_harness.store.fsutil import (
    PRIVATE_FILE,
    FileExistsGfhError,
    create_exclusive,
    ensure_private_dir,
    read_bytes,
    write_private,
)
from gitflow_harness.store.session_env import missing_session, session_from_env
from gitflow_harness.store.state import session_dir, state_home

# Not `typing.TYPE_CHECKING`: `gfh status` does not import typing (mypy reads the name).
TYPE_CHECKING = False
if TYPE_CHECKING:
    from types import TracebackType
    from typing import Any, Final, NamedTuple

    from gitflow_harness.workspace import Workspace
else:
    from gitflow_harness.records import NamedTuple

TASK_FILE: Final = "task.json"
KEY_FILE: Final = "task.key"
MAX_CHARS: Final = 1000


class TaskStateError(GfhError):
    """The stored task cannot be read or does not match its fingerprint."""


def fingerprint(text: str) -> str:
    """Return the HMAC-SHA256 of `text` under this user's task key, as hex."""
    # Imported here: `hmac` loads OpenSSL, which `gfh status` with no task set never needs.
    import hashlib
    import hmac

    return hmac.new(_key(), text.encode("utf-8"), hashlib.sha256).hexdigest()


def set_task(session: str, text: str) -> str:
    """Store `text` as the task of `session` and return its fingerprint.

    An empty text is a valid declaration (a purely conversational turn has no focus).
    """
    if len(text) > MAX_CHARS:
        raise UsageError(
            f"the task is {len(text)} characters; say it in at most {MAX_CHARS} (one line)"
        )
    mark = fingerprint(text)
    payload = {"text": text, "fingerprint": mark, "at": now_at()}
    write_private(_path(session), jsonio.dumps(payload, ensure_ascii=False) + "\n")
    return mark


def clear_task(session: str) -> bool:
    """Forget the task of `session`; return whether there was one."""
    path = _path(session, create=False)
    try:
        os.unlink(path)
    except FileNotFoundError:
        return False
    return True


def current_task(session: str) -> str | None:
    """Return the task text of `session`, or None when none is set."""
    path = _path(session, create=False)
    try:
        raw = jsonio.loads(read_bytes(path))
    except FileNotFoundError:
        return None
    except OSError as exc:
        raise TaskStateError(
            f"cannot read the task state at {path}: {exc.strerror or exc}; point "
            "$GFH_STATE_HOME at a directory you own"
        ) from None
    except ValueError:
        raise TaskStateError(f"{path}: unreadable task state; set the task again") from None
    import hmac  # only once there is a task to check (see `fingerprint`)

    if (
        not isinstance(raw, dict)
        or not isinstance(raw.get("text"), str)
        or not isinstance(raw.get("fingerprint"), str)
        or not hmac.compare_digest(raw["fingerprint"], fingerprint(raw["text"]))
    ):
        raise TaskStateError(f"{path}: the task does not match its fingerprint; set the task again")
    return str(raw["text"])


# A NamedTuple, not a dataclass: every verb imports this module, and a frozen dataclass
# costs about five times as much to define (~0.5 ms each on these machines).
class Declaration(NamedTuple):
    """A recorded `coord.task_changed`: what was declared, as the log knows it."""

    session: str
    state: str  # "set" | "cleared"
    fingerprint: str | None
    had_task: bool

    def to_dict(self) -> dict[str, Any]:
        return {
            "session": self.session,
            "state": self.state,
            "fingerprint": self.fingerprint,
            "had_task": self.had_task,
        }


def require_session() -> str:
    """Return the agent session the environment names, or refuse: a task belongs to one."""
    session = session_from_env()
    if session is None:
        raise UsageError(
            f"no agent session: {missing_session()}; a task is the focus of an agent session's "
            "turn (run it from the agent, or prefix it with GFH_SESSION=<adapter>:<id>)"
        )
    return session


def declare(ws: Workspace, text: str) -> Declaration:
    """Set the task and record `coord.task_changed` — on every call, changed or not.

    The call is the turn's declaration for the end-of-turn ritual, so an unchanged task is
    recorded again. If the event cannot be recorded the stored task is put back: a task is
    never changed without its declaration.
    """
    session = require_session()
    had = current_task_or_none(session) is not None
    with _undone_unless_recorded(session, "set"):
        mark = set_task(session, text)
        ws.record("coord.task_changed", {"state": "set", "fingerprint": mark})
    return Declaration(session, "set", mark, had)


def declare_cleared(ws: Workspace) -> Declaration:
    """Clear the task and record `coord.task_changed` with state `cleared`."""
    session = require_session()
    with _undone_unless_recorded(session, "clear"):
        had = clear_task(session)
        ws.record("coord.task_changed", {"state": "cleared", "fingerprint": None})
    return Declaration(session, "cleared", None, had)


class _undone_unless_recorded:  # lower case: used as a function: `with _undone_...(...)`
    """The task file as it was before the block, put back when the block fails: a class, not
    `contextlib.contextmanager`, which `gfh status` (it imports this module) would load."""

    __slots__ = ("_before", "_path", "_verb")

    def __init__(self, session: str, verb: str) -> None:
        self._path = _path(session)
        self._verb = verb
        self._before: bytes | None = None

    def __enter__(self) -> None:
        try:
            self._before = read_bytes(self._path)
        except FileNotFoundError:
            self._before = None

    def __exit__(
        self, kind: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        if not isinstance(exc, GfhError):
            return
        if self._before is None:
            try:
                os.unlink(self._path)
            except FileNotFoundError:
                pass
        else:
            write_private(self._path, self._before)
        raise GfhError(
            f"{exc.message}; the task was left as it was: retry `gfh task {self._verb}`"
        ) from None


def current_task_or_none(session: str) -> str | None:
    """Like `current_task`, but damaged state reads as no task (it is about to be replaced)."""
    try:
        return current_task(session)
    except TaskStateError:
        return None


def _path(session: str, *, create: bool = True) -> str:
    return os.path.join(session_dir(session, create=create), TASK_FILE)


def _key() -> bytes:
    path = os.path.join(state_home(), KEY_FILE)
    try:
        key = read_bytes(path)
    except FileNotFoundError:
        ensure_private_dir(os.path.dirname(path))
        # Another process may make it first: then use theirs.
        import secrets

        try:
            create_exclusive(path, secrets.token_bytes(32), mode=PRIVATE_FILE)
        except FileExistsGfhError:
            pass
        key = read_bytes(path)
    if len(key) < 32:
        raise TaskStateError(f"{path}: the task key is damaged; delete the file to make a new one")
    return key
