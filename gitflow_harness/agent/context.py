"""`HookContext`: what a context source or stop check may know and do during one hook call.

Everything is lazy: a source that matches nothing never reads the session state, the
transcript or the configuration, so a PostToolUse that fires nothing stays cheap.
"""

from __future__ import annotations

import os

from gitflow_harness.agent.repo import append_hook_event

# Not `typing.TYPE_CHECKING`: importing typing costs ~2 ms per hook call (mypy reads the name).
TYPE_CHECKING = False
if TYPE_CHECKING:
    from types import ModuleType
    from typing import Any, Final

    from gitflow_harness.agent.repo import RepoInfo
    from gitflow_harness.agent.ticks import Position
    from gitflow_harness.hookcall.model import HookEvent
    from gitflow_harness.hookcall.session import RuntimeState, SessionState
    from gitflow_harness.hookcall.settings import HookConfig


REPORTED: Final = "reported"  # session state: fingerprints of the problems already reported
MAX_REPORTED = 64


class HookContext:
    """One hook call as the runtime, its sources and its checks see it."""

    def __init__(
        self,
        adapter: ModuleType,
        event: HookEvent,
        repo: RepoInfo | None,
        *,
        lanes: frozenset[str] = frozenset(),
    ) -> None:
        self.adapter = adapter
        self.event = event
        self.repo = repo
        self.lanes = lanes
        self.source_name = ""  # the source being consulted (set by the runtime)
        self.warnings: list[str] = []  # lines for the host's stderr (the runtime writes one)
        self._store: SessionState | None = None
        self._snapshot: RuntimeState | None = None
        self._observed: list[Position] = []
        self._config: HookConfig | None = None
        self._paths: tuple[str, ...] | None = None
        self._position: Position | None = None
        self._position_read = False
        self._cursor: dict[str, Any] | None = None  # where this call read the transcript to
        # When the scripts of this call must be done by (monotonic): set by the first to run.
        self.scripts_deadline: float | None = None

    # -- facts -------------------------------------------------------------------------------

    @property
    def session(self) -> str | None:
        return self.event.session

    @property
    def store(self) -> SessionState | None:
        """The session's runtime state (None without a session id)."""
        if self._store is None and self.event.session is not None:
            from gitflow_harness.hookcall.session import SessionState

            self._store = SessionState(self.event.session)
        return self._store

    def forget_snapshot(self) -> None:
        """Drop the snapshot after the state changed under the lock; it is re-read on demand."""
        self._snapshot = None

    @property
    def deliverable(self) -> bool:
        """True when this event's output can carry context to the agent."""
        return bool(self.adapter.can_inject(self.event.name))

    @property
    def paths(self) -> tuple[str, ...]:
        """The files the tool touched, relative to the repository root (POSIX separators)."""
        if self._paths is None:
            self._paths = repo_relative(self.event.paths, self.event.cwd, self.repo)
        return self._paths

    @property
    def state(self) -> RuntimeState:
        """A snapshot of the session state (empty without a session). Changes here are not
        saved: sources change state only through an offer's `commit`, under the lock."""
        if self._snapshot is None:
            self._snapshot = self.store.read() if self.store is not None else {}
        return self._snapshot

    @property
    def epoch(self) -> int:
        """The compaction epoch: a way fired in an earlier epoch starts a new episode."""
        from gitflow_harness.hookcall.session import epoch

        return epoch(self.state)

    @property
    def pending(self) -> list[dict[str, Any]]:
        """Way ids this source offered where the host could not take them, waiting for now."""
        if not self.adapter.DEFERS or not self.deliverable:
            return []
        items = self.state.get("pending")
        if not isinstance(items, list):
            return []
        return [i for i in items if isinstance(i, dict) and i.get("source") == self.source_name]

    def tick(self, axis: str) -> tuple[str, int]:
        """Return `(axis used, tick)`: `tokens` falls back to `turns` until the session has read
        a token position (hosts without usage, a transcript that never gives one)."""
        from gitflow_harness.agent import ticks
        from gitflow_harness.hookcall import session as sessions

        if axis == ticks.SECONDS:
            return ticks.SECONDS, ticks.seconds_tick()
        if axis == ticks.TOKENS:
            if not self._position_read:  # read and fold the transcript once per call
                self._position_read = True
                self._position = self._read_position(self.state)
                if self._position is not None:
                    if ticks.observe(self.state, self._position):
                        sessions.compact(self.state)
                    self._observed.append(self._position)
            # On turns until the session has read a token position; on tokens ever after.
            if ticks.has_tokens(self.state):
                return ticks.TOKENS, ticks.token_tick(self.state)
        return ticks.TURNS, ticks.turn_tick(self.state)

    def _read_position(self, state: RuntimeState) -> Position | None:
        """Read the context position, on from where `state`'s cursor says the transcript was
        read to; the cursor for the next call is kept for `replay` (or `fold_position`)."""
        from gitflow_harness.agent.ticks import CURSOR, LINES, read_position

        host = self.adapter.TOKENS or ""
        path = self.event.transcript
        if host not in LINES or not path or not os.path.isfile(path):
            return None  # absent, or not a regular file (a FIFO would block the hook)
        try:
            position, self._cursor = read_position(path, host, state.get(CURSOR))
        except (OSError, ValueError):
            return None  # not there yet, or not a file: the host writes it asynchronously
        return position

    def fold_position(self, state: RuntimeState) -> None:
        """Read the context position now and fold it into `state` (under the lock).

        At a compaction signal, so the size before the drop is known whether or not a way read
        the transcript since: the tick then stays monotonic across the compaction.
        """
        from gitflow_harness.agent import ticks

        position = self._read_position(state)
        if position is not None:
            ticks.observe(state, position)
            self._keep_cursor(state)

    def _keep_cursor(self, state: RuntimeState) -> None:
        from gitflow_harness.agent.ticks import CURSOR

        if self._cursor is not None:
            state[CURSOR] = self._cursor
        else:
            state.pop(CURSOR, None)

    @property
    def observed(self) -> bool:
        """True when this call read a context position that must be folded into the state."""
        return bool(self._observed)

    def replay(self, state: RuntimeState) -> None:
        """Apply this call's transcript observations to the freshest state (under the lock)."""
        from gitflow_harness.agent import ticks
        from gitflow_harness.hookcall import session as sessions

        for position in self._observed:
            if ticks.observe(state, position):
                sessions.compact(state)
        if self._observed:
            self._keep_cursor(state)

    # -- configuration and evidence ------------------------------------------------------------

    def config(self) -> HookConfig:
        """The effective configuration as plain data, section by section (cached per session)."""
        if self._config is None:
            from gitflow_harness.hookcall.settings import hook_config

            self._config = hook_config(self.repo.top if self.repo else None, self.store)
        return self._config

    def setting(self, section: str, key: str) -> Any:
        """Return one configuration value (`ways`, `floor`), validated when it was cached."""
        from gitflow_harness.hookcall.settings import setting

        return setting(self.config(), section, key)

    def record(self, type: str, data: dict[str, Any]) -> tuple[dict[str, Any], int] | None:
        """Append an event stamped with this session and branch (nothing outside a repository);
        return its envelope and the offset of its line in its monthly file."""
        return append_hook_event(self.repo, type, data, session=self.session)

    def report_problems(self, problems: list[str]) -> None:
        """Report problems found on the way (a way file that does not load) as an internal error
        is reported — one stderr line, a `hook.error` each — but once per session each, so a
        broken file does not flood every tool call. Each is one line naming a file, no payload."""
        from gitflow_harness.home import name_hash

        def fingerprint(text: str) -> str:
            return name_hash(text.encode("utf-8", "replace"))

        seen = self.state.get(REPORTED)
        fresh = [p for p in problems if not (isinstance(seen, list) and fingerprint(p) in seen)]
        if not fresh:
            return
        if self.store is not None:
            with self.store.update() as state:
                reported = state.get(REPORTED)
                known = (
                    [f for f in reported if isinstance(f, str)]
                    if isinstance(reported, list)
                    else []
                )
                fresh = [p for p in fresh if fingerprint(p) not in known]
                state[REPORTED] = (known + [fingerprint(p) for p in fresh])[-MAX_REPORTED:]
            self.forget_snapshot()
        if not fresh:
            return  # a parallel call of the session reported them a moment ago
        for problem in fresh:
            self.record_error(problem)
        more = f" (and {len(fresh) - 1} more)" if len(fresh) > 1 else ""
        self.warnings.append(f"{self.prefix}: {fresh[0]}{more}")

    def report_error(self, problem: str) -> None:
        """Report a problem this call works around — one `hook.error`, one stderr line — every
        time it happens (for what no session state can remember). `problem` is one line, with
        no payload text: a name, a path of gfh's own, the fix."""
        from gitflow_harness.errors import GfhError

        line = f"{self.prefix}: {problem}"
        try:
            self.record_error(problem)
        except (GfhError, OSError) as exc:
            # A problem worked around must not become the call's failure because the log is
            # unwritable too: the one stderr line says both.
            line += f" (not recorded: {exc})"
        self.warnings.append(line)

    def record_error(self, problem: str) -> None:
        from gitflow_harness.hookcall.model import name_or_none

        adapter, event = str(self.adapter.NAME), name_or_none(self.event.name) or "(invalid)"
        self.record("hook.error", {"adapter": adapter, "event": event, "error": problem})

    @property
    def prefix(self) -> str:
        """What every stderr line of this call begins with: `gfh hook ADAPTER EVENT`."""
        from gitflow_harness.hookcall.model import name_or_none

        return f"gfh hook {self.adapter.NAME} {name_or_none(self.event.name) or '(invalid)'}"


def repo_relative(
    paths: tuple[str, ...], cwd: str | None, repo: RepoInfo | None
) -> tuple[str, ...]:
    """Return `paths` relative to the top of the worktree holding each, when it is one of the
    repository's worktrees, else relative to the repository root; paths outside are dropped.

    A host may keep its cwd at the main checkout while the agent edits in a linked worktree,
    which `gfh start` puts outside it (`../{repo}.worktrees`): such a file is still this
    repository's `src/a.py`, not a path outside it.
    """
    if repo is None or not paths:
        return ()
    from gitflow_harness.agent.repo import worktree_top

    tops = {str(repo.top)}
    common = None
    try:
        tops.add(os.path.realpath(repo.top))
        common = os.path.realpath(repo.common_dir)
    except (OSError, ValueError):
        pass
    base = cwd if cwd and os.path.isabs(cwd) else str(repo.top)
    out: list[str] = []
    for raw in paths:
        try:
            full = os.path.normpath(raw if os.path.isabs(raw) else os.path.join(base, raw))
            candidates = [full, os.path.realpath(full)]
        except (OSError, ValueError):
            continue
        for candidate in candidates:
            owner = worktree_top(candidate, common) if common is not None else None
            for top in (owner,) if owner is not None else tops:
                if candidate.startswith(top.rstrip(os.sep) + os.sep):
                    rel = os.path.relpath(candidate, top).replace(os.sep, "/")
                    if rel not in out:
                        out.append(rel)
                    break
            else:
                continue
            break
    return tuple(out)
