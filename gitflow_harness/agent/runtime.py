"""`gfh hook ADAPTER EVENT`: one host payload in, one host answer out, never a traceback.

The steps of a call: read stdin; parse it into a `HookEvent` (the adapter); record the evidence
it carries and keep the session's bookkeeping (turns, compactions); at session start put the
session into the agent's environment; ask the event's context sources for offers and its stop
checks for a block; deliver (`delivery.emit`). Any internal error fails open: exit 0, one line
on stderr, a `hook.error` event naming the error's class and where it happened — never its
message, which could quote the payload.
"""

from __future__ import annotations

import os
import sys

from gitflow_harness.hookcall import model as ev

# Not `typing.TYPE_CHECKING`: importing typing costs ~2 ms per hook call (mypy reads the name).
TYPE_CHECKING = False
if TYPE_CHECKING:
    from types import ModuleType
    from typing import IO, Any

    from gitflow_harness.agent.context import HookContext
    from gitflow_harness.hookcall.model import Offer, Outcome

ADAPTERS = {
    "claude": "gitflow_harness.agent.claude",
    "cursor": "gitflow_harness.agent.cursor",
    "codex": "gitflow_harness.agent.codex",
}
EXIT_USAGE = 2
MAX_STDIN = 64 * 1024 * 1024
SESSION_MAX_AGE_S = 30 * 24 * 3600  # session state untouched this long is removed


def main(
    *args: str,
    stdin: IO[Any] | None = None,
    stdout: IO[str] | None = None,
    stderr: IO[str] | None = None,
) -> int:
    """Run one hook call, `gfh hook ADAPTER EVENT`, and return the exit code the host expects.

    `args` are the command's arguments as the hook settings give them. Arguments that are not
    one known adapter and one event fail open like everything else: on every host exit 2 means
    "block", so a mistyped hook command must not block the agent.
    """
    out = sys.stdout if stdout is None else stdout
    err = sys.stderr if stderr is None else stderr
    source = sys.stdin if stdin is None else stdin
    problem = usage_problem(args)
    if problem is not None and _isatty(source):
        # A person at a terminal, not a host: a usage error as every other command gives it.
        err.write(f"gfh hook: {problem}\n")
        return EXIT_USAGE
    if problem is not None:
        return misconfigured(args, problem, source, out, err)
    adapter_name, event_name = args
    from gitflow_harness import import_module

    if _isatty(source):
        err.write(
            f"gfh hook: {adapter_name} {event_name} reads the host's JSON payload on stdin; "
            "it is run by the agent (see `gfh init`), not by hand\n"
        )
        return EXIT_USAGE
    call = HookCall(import_module(ADAPTERS[adapter_name]), event_name, out, err)
    from gitflow_harness.hookcall.budget import BudgetExceeded, arm

    disarm = arm()
    try:
        try:
            raw = _read(source)
            return call.run(raw)
        finally:
            # Before the boundary: the fail-open below writes and records without an alarm.
            disarm()
    except (Exception, BudgetExceeded) as exc:  # the fail-open boundary: nothing may escape
        return call.fail_open(exc)


USAGE = "`gfh hook ADAPTER EVENT`"
FIX = "fix the command in your hook settings"


def usage_problem(args: tuple[str, ...]) -> str | None:
    """Say what is wrong with the arguments of `gfh hook`, or None when they are usable.

    An unknown event is not a problem: it is accepted and answered neutrally.
    """
    if not args:
        return f"missing ADAPTER and EVENT ({USAGE})"
    adapter = args[0]
    if adapter not in ADAPTERS:
        expected = "claude, cursor or codex"
        if adapter.lower() in ADAPTERS:
            expected += ", in lower case"
        return f"unknown adapter {_shown(adapter)} (expected {expected})"
    if len(args) == 1:
        return f"missing EVENT after the adapter ({USAGE})"
    if len(args) > 2:
        extra = ", ".join(_shown(a) for a in args[2:4]) + (", …" if len(args) > 4 else "")
        return f"unexpected extra argument(s) {extra} ({USAGE} takes two)"
    return None


def misconfigured(
    args: tuple[str, ...], problem: str, source: IO[Any], out: IO[str], err: IO[str]
) -> int:
    """Let the host go on after a hook command with unusable arguments: exit 0, one line on
    stderr saying what to fix, the adapter's neutral answer when it can be told, and a
    `hook.error` in the repository the payload's cwd (else the process's) is in."""
    adapter = ev.name_or_none(args[0]) if args else None
    event = ev.name_or_none(args[1]) if len(args) > 1 else None
    _quietly(lambda: err.write(f"gfh hook: {problem}; {FIX}\n"))
    guess = ADAPTERS.get((args[0] if args else "").lower())
    if guess is not None:
        from gitflow_harness import import_module

        _quietly(lambda: out.write(import_module(guess).neutral()))
        _quietly(out.flush)

    def record() -> None:
        from gitflow_harness.agent.repo import append_hook_event, locate, start_dir

        cwd = None if _isatty(source) else _payload_cwd(source)
        append_hook_event(
            locate(start_dir(cwd)),
            "hook.error",
            {
                "adapter": adapter or "(invalid)",
                "event": event or "(invalid)",
                "error": f"UsageError: {problem}",
            },
        )

    _quietly(record)
    return 0


def _shown(arg: str) -> str:
    """An argument as a message may quote it: a plain name, else a placeholder."""
    return repr(arg) if ev.name_or_none(arg.lstrip("-")) is not None else "(not a plain name)"


def _payload_cwd(source: IO[Any]) -> str | None:
    """The working directory a payload names (Cursor: its first workspace root), if any; None
    too when stdin does not end within the call's budget."""
    from gitflow_harness.hookcall.budget import BudgetExceeded, arm

    disarm = arm()
    try:
        try:
            raw = _read(source)
        finally:
            disarm()
        payload = _decode(raw)
    except (ev.InvalidPayload, OSError, ValueError, BudgetExceeded):
        return None
    cwd = payload.get("cwd")
    roots = payload.get("workspace_roots")
    if not isinstance(cwd, str) and isinstance(roots, list) and roots:
        cwd = roots[0]
    return cwd if isinstance(cwd, str) else None


class HookCall:
    """One invocation: its adapter, its streams, and what it has written so far."""

    def __init__(self, adapter: ModuleType, event_name: str, out: IO[str], err: IO[str]) -> None:
        self.adapter = adapter
        self.event_name = event_name
        self.out = out
        self.err = err
        self.wrote = False
        self.said = False
        self.ctx: HookContext | None = None

    def run(self, raw: bytes) -> int:
        payload = _decode(raw)
        event = self.adapter.parse(self.event_name, payload, raw)
        if event.kind is None:
            # An event this runtime does not handle: accepted, answered neutrally, not recorded.
            self.write(self.adapter.neutral())
            return 0
        from gitflow_harness.agent import sources
        from gitflow_harness.agent.context import HookContext
        from gitflow_harness.agent.repo import locate, start_dir
        from gitflow_harness.hookcall.model import Outcome

        ctx = self.ctx = HookContext(
            self.adapter,
            event,
            locate(start_dir(event.cwd)),
            lanes=sources.LANES.get(event.kind, frozenset()),
        )
        outcome = Outcome()
        _bookkeeping(ctx)
        from gitflow_harness.agent import evidence

        evidence.record(ctx)
        offers = _correlate(ctx, outcome) if event.kind == ev.SESSION_START else []
        offers += self.collect(ctx, sources.context_sources(event.kind))
        for line in ctx.warnings:
            self.say(line)
        outcome.block = _stop_checks(ctx, sources.stop_checks(event.kind))
        if offers or ctx.observed or (ctx.deliverable and self.adapter.DEFERS):
            from gitflow_harness.agent.delivery import emit

            rendered = emit(ctx, outcome, offers, self.write)
        else:  # nothing to budget, commit or record: answer directly
            rendered = self.adapter.render(event, outcome)
            self.write(rendered.stdout)
        if rendered.stderr:
            self.err.write(rendered.stderr)
            self.err.flush()
        return rendered.code

    def collect(self, ctx: HookContext, specs: tuple[str, ...]) -> list[Offer]:
        """Ask each context source for its offers. A source that fails is left out and reported
        like any internal error (one stderr line, a `hook.error`), and the others still deliver:
        a broken way must not cost the session its environment or the workflow's hint.

        A source may answer with a function instead (it started something that runs on its
        own, a git process): that is called for the offers once every source was asked, so
        the later sources' work overlaps the wait. Offers keep the sources' order."""
        from gitflow_harness.agent.sources import resolve

        answers: list[tuple[str, Any]] = []
        for spec in specs:
            ctx.source_name = spec
            try:
                answers.append((spec, resolve(spec)(ctx)))
            except Exception as exc:
                self.report(exc)
        offers: list[Offer] = []
        for spec, answer in answers:
            ctx.source_name = spec
            try:
                offered = list((answer() if callable(answer) else answer) or ())
            except Exception as exc:
                self.report(exc)
                continue
            for offer in offered:
                offer.source = spec
                offers.append(offer)
        ctx.source_name = ""
        return offers

    def report(self, exc: BaseException) -> None:
        """Tell the host's stderr and the log about an internal error, naming no payload text."""
        from gitflow_harness.hookcall.failure import describe  # only a call that went wrong

        adapter, event = self._names()
        what = describe(exc)
        self.say(f"gfh hook {adapter} {event}: {_problem(exc, what)}; let through")
        _quietly(lambda: self._record_error(adapter, event, what))

    def say(self, line: str) -> None:
        """Write one line to stderr: the first of the call only, so the host shows one."""
        if not self.said:
            self.said = True
            _quietly(lambda: self.err.write(line + "\n"))

    def _names(self) -> tuple[str, str]:
        return str(self.adapter.NAME), ev.name_or_none(self.event_name) or "(invalid)"

    def write(self, text: str) -> None:
        """Write to stdout in full and flush: a fire counts only once this returned."""
        if not text:
            return
        self.out.write(text)
        self.out.flush()
        self.wrote = True

    def fail_open(self, exc: BaseException) -> int:
        """Let the host go on: exit 0, one line on stderr, a `hook.error` event."""
        adapter, event = self._names()
        if isinstance(exc, ev.InvalidPayload):
            what = f"InvalidPayload: {exc}"
            line = f"gfh hook {adapter} {event}: {exc}; nothing to do"
        else:
            from gitflow_harness.hookcall.failure import describe

            what = describe(exc)
            line = f"gfh hook {adapter} {event}: {_problem(exc, what)}; let through"
        self.say(line)
        if isinstance(exc, OSError | ValueError) and _is_stdout_error(exc, self.out):
            _silence(self.out)
        elif not self.wrote:
            _quietly(lambda: self.write(self.adapter.neutral()))
        _quietly(lambda: self._record_error(adapter, event, what))
        if isinstance(exc, ev.InvalidPayload):  # a Stop still owes the report its verdict
            _quietly(lambda: _payload_unreadable(self.adapter, self.event_name))
        return 0

    def _record_error(self, adapter: str, event: str, what: str) -> None:
        from gitflow_harness.agent.repo import append_hook_event, locate, start_dir

        ctx = self.ctx
        repo, session = (
            (ctx.repo, ctx.session) if ctx is not None else (locate(start_dir(None)), None)
        )
        append_hook_event(
            repo, "hook.error", {"adapter": adapter, "event": event, "error": what}, session=session
        )


def _payload_unreadable(adapter: ModuleType, event_name: str) -> None:
    """Record a `fail_open` verdict for a Stop whose stdin could not be read as a payload.

    Nothing of the turn can be judged, not even whose it is (`session` is null), but the Stop
    happened and the report counts every Stop: the ritual was skipped, and says so. Any other
    event is left to the runtime's `hook.error`.
    """
    if adapter.parse(event_name, {}, b"").kind != ev.STOP:
        return  # what this host means by the name, as for a readable payload

    from gitflow_harness.agent.repo import append_hook_event, locate, start_dir
    from gitflow_harness.hookcall.settings import hook_config
    from gitflow_harness.ritual.hook import UNREADABLE, ritual_config
    from gitflow_harness.ritual.stop import StopVerdict, enforces

    repo = locate(start_dir(None))
    if repo is None:
        return
    try:
        enforced = enforces(adapter.NAME, ritual_config(hook_config(repo.top, None)))
    except Exception:
        enforced = False  # a broken configuration is reported by the commands that read it
    verdict = StopVerdict(adapter.NAME, "fail_open", None, UNREADABLE, enforced)
    append_hook_event(repo, "stop.verdict", verdict.data())


def _problem(exc: BaseException, what: str) -> str:
    """What the stderr line says went wrong: gfh's own message for a problem with its files (a
    broken configuration is the user's to fix, not an internal error), else the class and place
    of an internal error."""
    from gitflow_harness.hookcall.failure import own_message

    own = own_message(exc)
    return own if own is not None else f"internal error ({what})"


def _isatty(stream: IO[Any]) -> bool:
    try:
        return bool(stream.isatty())
    except (AttributeError, ValueError, OSError):
        return False


def _read(stream: IO[Any]) -> bytes:
    buffer = getattr(stream, "buffer", None)
    data = (buffer if buffer is not None else stream).read(MAX_STDIN + 1)
    if isinstance(data, str):
        data = data.encode("utf-8", "surrogateescape")
    if len(data) > MAX_STDIN:
        raise ev.InvalidPayload(f"stdin is larger than {MAX_STDIN} bytes")
    return bytes(data)


def _decode(raw: bytes) -> dict[str, Any]:
    from gitflow_harness import jsonio

    try:
        payload = jsonio.loads(raw)
    except (ValueError, RecursionError):
        raise ev.InvalidPayload("stdin is not JSON") from None
    if not isinstance(payload, dict):
        raise ev.InvalidPayload("stdin is not a JSON object")
    return payload


def _bookkeeping(ctx: HookContext) -> None:
    """Compactions end every way's episode; session start cleans up old sessions."""
    event = ctx.event
    compacted = event.kind == ev.COMPACT or (
        event.kind == ev.SESSION_START and event.source in ("compact", "clear")
    )
    if not (compacted or event.kind == ev.SESSION_START) or ctx.store is None:
        return
    from gitflow_harness.hookcall import session as sessions

    if compacted:
        # PreCompact opens a compaction; PostCompact and SessionStart `compact` follow it and
        # count only when nothing opened one (they are all it was signalled by). A cleared
        # context is new whatever came before.
        opens = event.name in ev.COMPACT_OPENERS or event.source == "clear"
        with ctx.store.update() as state:
            ctx.fold_position(state)  # the size before the drop: the tick stays monotonic
            sessions.signal_compaction(state, opens=opens)
        ctx.forget_snapshot()
    if event.kind == ev.SESSION_START and event.source in (None, "startup"):
        import os
        import time

        directory, name = os.path.split(ctx.store.directory)
        sessions.prune_sessions(
            directory,
            keep=name,
            max_age_s=SESSION_MAX_AGE_S,
            now=time.time(),
        )


def _correlate(ctx: HookContext, outcome: Outcome) -> list[Offer]:
    """Put the session where the host passes it to the agent's commands; when nothing reaches
    them, say so (the agent's context, one stderr line, a `hook.error`). The rest of the answer
    (the hint, the ways) does not depend on it."""
    from gitflow_harness.agent import correlation

    session = ctx.session
    if session is None:
        return []
    exported, missing = correlation.export(ctx.adapter, session, outcome.env)
    if ctx.adapter.delivers_session(os.environ, exported=exported):
        return []
    problem, context = correlation.undelivered(ctx.adapter, session, missing)
    ctx.report_error(problem)
    from gitflow_harness.hookcall.model import Offer

    return [Offer(context)]


def _stop_checks(ctx: HookContext, specs: tuple[str, ...]) -> Any:
    from gitflow_harness.agent.sources import resolve

    for spec in specs:
        block = resolve(spec)(ctx)
        if block is not None:
            return block
    return None


def _is_stdout_error(exc: BaseException, out: IO[str]) -> bool:
    if isinstance(exc, BrokenPipeError):
        return True
    try:
        return bool(out.closed)
    except Exception:
        return True


def _silence(stream: IO[str]) -> None:
    # The host stopped reading: point the stream's descriptor at /dev/null so the interpreter's
    # final flush cannot print "Exception ignored" on the way out.
    try:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, stream.fileno())
    except (OSError, ValueError, AttributeError):
        pass


def _quietly(action: Any) -> None:
    try:
        action()
    except Exception:
        pass
