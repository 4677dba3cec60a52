"""Per-session runtime state: one small JSON document, owner-only, changed under a lock.

It lives in `store.state.session_dir(session)` as `runtime.json`. Keys the runtime owns: `turns`
(count of `turn.started`), `epoch` (bumped by every compaction: a way's episode belongs to one
epoch), `compacting` (a compaction was signalled and no new turn or response has come since),
`tokens` (the monotonic context-position bookkeeping of `ticks`), `transcript` (where `ticks`
read the transcript to: offsets, the file's numbers, the position found), `turn_start` (the log
file, offset and event id of the latest `turn.started`), `pending` (way ids a host could not take
yet), `reported` (fingerprints of problems already reported) and `model` (the model named at
session start). Context sources keep their own sections (`ways` and `subagent_ways` for the
firing engine).
Only ids, names, counts and booleans go in here. Beside it: `handoff/` (postcheck hand-offs,
see `postcheck`).
"""

from __future__ import annotations

import os

from gitflow_harness import jsonio
from gitflow_harness.store.fsutil import read_bytes
from gitflow_harness.store.locks import exclusive

# Not `typing.TYPE_CHECKING`: importing typing costs ~2 ms per hook call (mypy reads the name).
TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any, Final, TypedDict

    class RuntimeState(TypedDict, total=False):
        """The keys of `runtime.json`, for the type checker alone (nothing is imported for it
        at run time). Every value is `object`: the file is JSON a person may have edited, so
        each reader checks the shape it needs before it uses a value."""

        v: object  # the format's version, `VERSION`
        turns: object  # int: `turn.started` events counted
        epoch: object  # int: compactions counted
        compacting: object  # bool: a compaction was signalled, no turn or response since
        open_turn: object  # int: the turn whose Stop has not yet let the agent stop
        turn_start: object  # dict: where the latest `turn.started` landed in the log
        tokens: object  # dict: the context position's bookkeeping (`agent.ticks`)
        transcript: object  # dict: where the transcript was read to (`agent.ticks`)
        pending: object  # list of way ids a host could not take yet (`agent.delivery`)
        reported: object  # list of fingerprints of problems reported (`agent.context`)
        model: object  # str: the model named at session start (`agent.evidence`)
        reply: object  # dict: Cursor's afterAgentResponse observations (`ritual.hook`)
        ways: object  # dict: the main agent's way engagements (`ways.firing`)
        subagent_ways: object  # list: each subagent's way engagements (`ways.firing`)


STATE_FILE = "runtime.json"
COMPACTING: Final = "compacting"
OPEN_TURN: Final = "open_turn"  # the turn whose Stop has not yet let the agent stop
# Where the session's latest `turn.started` landed: its monthly file, the offset of its line
# and its event id, so its Stop reads the log on from there (`ritual.stop.turn_events`).
TURN_START: Final = "turn_start"
REPLY: Final = "reply"  # Cursor: afterAgentResponse's booleans and generation, for its stop
LOCK_FILE = "runtime.lock"
VERSION = 1


class SessionState:
    """The runtime state of one `<adapter>:<id>` session."""

    __slots__ = ("_dir", "session")

    def __init__(self, session: str) -> None:
        self.session = session
        self._dir: str | None = None

    @property
    def directory(self) -> str:
        """The session's owner-only directory (created on first use)."""
        if self._dir is None:
            from gitflow_harness.store.state import session_dir

            self._dir = session_dir(self.session)
        return self._dir

    def read(self) -> RuntimeState:
        """Return a snapshot of the state, without the lock (it is replaced atomically)."""
        return _load(os.path.join(self.directory, STATE_FILE))

    def update(self) -> Update:
        """Hold the session lock; give the freshest state; save it if the block changed it."""
        return Update(self.directory)


class Update:
    """`with store.update() as state:` the session's state under its lock, saved at the end of
    the block if the block changed it (and the block did not raise). A class, not
    `contextlib.contextmanager`: an installed hook imports no `contextlib` (2.7M instructions
    where the interpreter has not loaded it)."""

    __slots__ = ("_before", "_directory", "_lock", "_state")

    def __init__(self, directory: str) -> None:
        self._directory = directory
        self._lock = exclusive(os.path.join(directory, LOCK_FILE))
        self._state: RuntimeState = {}
        self._before = ""

    def __enter__(self) -> RuntimeState:
        self._lock.__enter__()
        try:
            self._state = _load(os.path.join(self._directory, STATE_FILE))
            self._before = _dump(self._state)
        except BaseException:
            self._lock.__exit__(None, None, None)
            raise
        return self._state

    def __exit__(self, kind: object, error: object, trace: object) -> None:
        try:
            if kind is None:
                after = _dump(self._state)
                if after != self._before:
                    from gitflow_harness.store.fsutil import write_private

                    # Replaced atomically, not flushed to the disk first: a call that fires a
                    # way would wait on the disk for bookkeeping the event log (itself never
                    # flushed) already records. After a system crash a damaged file reads as a
                    # fresh start.
                    write_private(os.path.join(self._directory, STATE_FILE), after, sync=False)
        finally:
            self._lock.__exit__(None, None, None)


def _load(path: str) -> RuntimeState:
    try:
        data = jsonio.loads(read_bytes(path))
    except FileNotFoundError:
        return {"v": VERSION}
    except (OSError, ValueError):
        # Unreadable or hand-edited into nonsense: start the session's bookkeeping afresh
        # rather than failing every hook call from now on.
        return {"v": VERSION}
    if not isinstance(data, dict) or data.get("v") != VERSION:
        return {"v": VERSION}
    state: RuntimeState = data  # type: ignore[assignment]  # JSON: each reader checks its value
    return state


def _dump(state: RuntimeState) -> str:
    return jsonio.dumps(state, sort_keys=True, separators=(",", ":"))


def bump_turn(state: RuntimeState) -> int:
    """Count one more `turn.started` in the session; return its number."""
    turns = state.get("turns")
    turn = (turns if isinstance(turns, int) and turns >= 0 else 0) + 1
    state["turns"] = turn
    state[OPEN_TURN] = turn
    state.pop(COMPACTING, None)  # a new turn: the next compaction signal is a new compaction
    return turn


def remember_turn_start(state: RuntimeState, landed: tuple[dict[str, Any], int] | None) -> None:
    """Keep where the turn's `turn.started` landed (`HookContext.record`'s answer), or forget
    an older one when it landed nowhere (outside a repository)."""
    if landed is None:
        state.pop(TURN_START, None)
        return
    envelope, offset = landed
    from gitflow_harness.store.eventwrite import log_file

    state[TURN_START] = {"file": log_file(envelope["at"]), "at": offset, "id": envelope["id"]}


def open_turn(state: RuntimeState) -> int | None:
    """Return the turn that started and has not yet been let stop, or None."""
    value = state.get(OPEN_TURN)
    return value if isinstance(value, int) and not isinstance(value, bool) else None


def close_turn(state: RuntimeState) -> None:
    """The agent was let stop: the session's latest turn is over."""
    state.pop(OPEN_TURN, None)


def forget_reply(state: RuntimeState) -> None:
    """At a new prompt: drop a reply whose stop never came, so it cannot decide a later turn
    (`ritual.hook` keeps and takes it)."""
    state.pop(REPLY, None)


def epoch(state: RuntimeState) -> int:
    """Return the session's compaction epoch."""
    value = state.get("epoch")
    return value if isinstance(value, int) and value >= 0 else 0


def signal_compaction(state: RuntimeState, *, opens: bool) -> bool:
    """Count a compaction signalled by a hook once; True when it started a new epoch.

    A host signals one compaction several times (Claude Code: PreCompact, PostCompact, then
    SessionStart `compact`). The signal that opens one (PreCompact) always counts; any other
    counts only when no compaction is already signalled and still unfollowed by a new turn or
    a new response in the transcript (`COMPACTING`).
    """
    if not opens and state.get(COMPACTING) is True:
        return False
    compact(state)
    return True


def compact(state: RuntimeState) -> None:
    """Record a compaction: a new epoch ends every way's episode (their text left the context).

    The next drop in the context position or the next compaction boundary in the transcript
    belongs to this same compaction and must not count again, nor must the host's next
    signals of it.
    """
    state["epoch"] = epoch(state) + 1
    state[COMPACTING] = True
    tokens = state.setdefault("tokens", {})
    if isinstance(tokens, dict):
        tokens["expect"] = True
    else:
        state["tokens"] = {"expect": True}


PRUNE_EVERY_S = 24 * 3600  # how often a session start looks for sessions to remove
PRUNED = ".pruned"  # in the sessions directory: its time is when that last happened


def prune_sessions(
    root: str, *, keep: str, max_age_s: float, now: float, every_s: float = PRUNE_EVERY_S
) -> int:
    """Remove session directories untouched for `max_age_s`; return how many went.

    `root` is looked through at most once per `every_s`, which its `.pruned` file's time says:
    a session start otherwise pays one `stat`, not two system calls and a `stat` per file for
    each of a month's sessions (hundreds, for someone who starts many a day)."""
    marker = os.path.join(root, PRUNED)
    try:
        # A time ahead of the clock (set back since) counts as long ago.
        if 0 <= now - os.stat(marker, follow_symlinks=False).st_mtime < every_s:
            return 0
    except FileNotFoundError:
        pass
    except OSError:
        return 0
    removed = 0
    try:
        entries = list(os.scandir(root))
        os.close(os.open(marker, os.O_WRONLY | os.O_CREAT | getattr(os, "O_NOFOLLOW", 0), 0o600))
        os.utime(marker, (now, now))
    except OSError:
        return 0
    for entry in entries:
        if entry.name == keep or not entry.is_dir(follow_symlinks=False):
            continue
        try:
            newest = max(
                (e.stat(follow_symlinks=False).st_mtime for e in os.scandir(entry.path)),
                default=entry.stat(follow_symlinks=False).st_mtime,
            )
        except OSError:
            continue
        if now - newest > max_age_s:
            import shutil  # only when one goes: it loads bz2, lzma and zlib

            shutil.rmtree(entry.path, ignore_errors=True)
            removed += 1
    return removed
