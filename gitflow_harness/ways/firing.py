"""The ways source: which ways a hook call matches, whether each fires, and the text it offers.

One call: load the index of `paths.ways` (warm cache: no YAML), match every way on the lanes the
event opens (`ctx.lanes`), run the postchecks of the ways that have one, and put each match
through its way's engagement state — its curve, on its axis's tick. A match that does not fire is
recorded as `way.suppressed` (reason `salience` or `refractory`) here; one that fires becomes an
`Offer` with the way's body (and its macro's output). The runtime re-decides each offer under
the session lock, applies the budget, writes the answer, and only then commits the fire and
records `way.fired` (see `delivery`).

Whose context a fire lands in matters: a way's text in the main agent's context is not in a
subagent's. The main agent's engagement lives in the session state under `ways` (way id ->
state and epoch); a subagent's under `subagent_ways`, per agent id, for its own tool calls. A
subagent that starts has an empty context, so its `roles` ways fire as first fires. `scope`
says which of the two a way's other lanes apply to.
"""

from __future__ import annotations

import os

from gitflow_harness.hookcall import model as ev
from gitflow_harness.hookcall.model import Offer

# Not `typing.TYPE_CHECKING`: importing typing costs ~2 ms per hook call (mypy reads the name).
TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Sequence
    from typing import Any, Final

    from gitflow_harness.agent.context import HookContext
    from gitflow_harness.firing.curves import Curve
    from gitflow_harness.firing.engagement import Decision, EngagementState
    from gitflow_harness.hookcall.session import RuntimeState
    from gitflow_harness.ways.model import LoadProblem, Way

SECTION: Final = "ways"  # the main agent's engagement: way id -> engagement state and epoch
SUBAGENTS: Final = "subagent_ways"  # [[agent id, {way id: engagement}], ...], newest last
MAX_SUBAGENTS = 32  # subagents remembered per session; older ones have long finished
MAIN = ""  # the engagement key of the main agent; a subagent's is its agent id
AGENT = "agent"
SUBAGENT = "subagent"
SEPARATOR = "\n\n"


class Match:
    """A way matched by this call: how many lanes matched, and which one names the trigger."""

    __slots__ = ("magnitude", "trigger", "way")

    def __init__(self, way: Way, magnitude: int, trigger: str) -> None:
        self.way = way
        self.magnitude = magnitude
        self.trigger = trigger


def source(ctx: HookContext) -> list[Offer]:
    """Offer the ways this hook call fires (see the module docstring)."""
    if ctx.repo is None or not (ctx.deliverable or waits(ctx)):
        return []
    if not ctx.lanes and not ctx.pending:
        return []  # an event that only delivers what waits, and nothing does
    from gitflow_harness.ways import ways_root

    root = ways_root(ctx.repo.top, ctx.setting("paths", "ways"))
    if not os.path.isdir(root):
        return []
    from gitflow_harness.ways.index import load_index
    from gitflow_harness.ways.shared import shared_cache_file

    asked = _Asked(ctx)
    index = load_index(
        root,
        shared_file=shared_cache_file(ctx.repo.common_dir),  # None: no usable state dir
        checkout=(ctx.repo.top, ctx.repo.git_dir),
        select=asked.candidates,  # only the ways the call can reach, when all are as cached
    )
    if index.problems:
        report(ctx, index.problems)
    matches = asked.match(index.ways)
    if not matches:
        return []
    if ctx.store is None:
        # A curve decides against the way's last fire in this session: with no session to keep
        # it in, every match would be a first fire, at every call. Deliver none, and say so.
        ctx.report_error(no_session(ctx))
        return []
    return decide(ctx, matches, float(ctx.setting("ways", "floor")))


# Where each host puts its session id (Cursor: the conversation's, else `session_id`).
SESSION_FIELDS = {"cursor": ("conversation_id", "session_id")}


def no_session(ctx: HookContext) -> str:
    """Say why this call has no session — the id's field is missing, or holds no usable id —
    naming the field, never its value."""
    fields = SESSION_FIELDS.get(str(ctx.adapter.NAME), ("session_id",))
    payload = ctx.event.payload
    present = [f for f in fields if payload.get(f) is not None]
    if not present:
        what = f"the payload has no {fields[0]}"
    else:
        what = (
            f"the payload's {present[0]} is not a usable session id (a string of at most "
            f"{ev.MAX_NAME} letters, digits and _.:/@+-)"
        )
    return f"NoSession: {what}; no way is delivered without a session, whose state its curve needs"


def report(ctx: HookContext, problems: Sequence[LoadProblem]) -> None:
    """Report way files that do not load; the ways that do still fire."""
    assert ctx.repo is not None
    top = str(ctx.repo.top).rstrip(os.sep) + os.sep
    ctx.report_problems(
        [
            f"WayProblem: {str(p).removeprefix(top)}; the way does not fire until it is fixed "
            "(`gfh ways lint`)"
            for p in problems
        ]
    )


def waits(ctx: HookContext) -> bool:
    """True when what this call matches may wait for the session's next event that can carry
    context: a host that defers, and the main agent's context, which a later event reaches (a
    subagent's does not: its later events may be another agent's)."""
    return bool(ctx.adapter.DEFERS) and audience(ctx) == AGENT


def audience(ctx: HookContext) -> str:
    """Whose context this call's answer reaches: a subagent's (at its start, or in its own tool
    calls, which carry its agent id) or the main agent's."""
    event = ctx.event
    return SUBAGENT if event.kind == ev.SUBAGENT_START or event.agent else AGENT


def match(ctx: HookContext, ways: Sequence[Way]) -> list[Match]:
    """Return the ways this call matches, with their magnitude (lanes matched), in id order.

    A way matched where the host could not take context (Cursor, Codex) counts as a match of
    its lane at the first event that can (`ctx.pending`).
    """
    return _Asked(ctx).match(ways)


class _Asked:
    """What a call asks of the ways, worked out once: its prompt, paths, command and role on
    the lanes it opens, and the ways that wait for it (`ctx.pending`)."""

    def __init__(self, ctx: HookContext) -> None:
        event, lanes = ctx.event, ctx.lanes
        self.ctx = ctx
        text = event.prompt if "prompt" in lanes and not event.stop_remediation else None
        self.paths = ctx.paths if "files" in lanes else ()
        shell = event.command if "commands" in lanes else None
        self.session_start = "session_start" in lanes
        self.role = event.role if "roles" in lanes else None
        self.prompt = self.command = None
        if text is not None or shell is not None:
            from gitflow_harness.ways import match as lanes_of

            self.prompt = lanes_of.text_of(text) if text is not None else None
            self.command = lanes_of.text_of(shell) if shell is not None else None
        self.with_postchecks = "postcheck" in lanes
        self.pending = {
            i["way"]: i.get("trigger") for i in ctx.pending if isinstance(i.get("way"), str)
        }

    def candidates(self, ids: list[str], table: list[Any]) -> set[int] | None:
        """The places, among the way files `ids`, of the ways this call may match, by their
        table of sieves, and of the ways that wait for it; None for every way: a command (its
        regexes have no sieve) or a role is asked of every way."""
        if self.command is not None or self.role is not None:
            return None
        from gitflow_harness.ways.sieve import candidates

        found = candidates(
            table,
            self.prompt,
            self.paths,
            session_start=self.session_start,
            postcheck=self.with_postchecks,
        )
        if found is not None and self.pending:
            pending = self.pending
            found.update(place for place, way_id in enumerate(ids) if way_id in pending)
        return found

    def match(self, ways: Sequence[Way]) -> list[Match]:
        """The ways of `ways` this call matches (`match`)."""
        ctx, prompt, command, paths, role = (
            self.ctx,
            self.prompt,
            self.command,
            self.paths,
            self.role,
        )
        if ways and (prompt is not None or command is not None or paths or role is not None):
            # Not for a call the table lets no way through, nor at a session's start, whose one
            # lane is read off each way: the matcher is 1.7M instructions to load.
            from gitflow_harness.ways import match as lanes_of
        pending = self.pending
        who = audience(ctx)
        found: list[Match] = []
        checks: list[Way] = []
        for way in ways:
            magnitude, trigger = 0, None
            if prompt is not None and lanes_of.prompt_possible(way, prompt):
                magnitude = lanes_of.prompt_magnitude(way, prompt)
                trigger = "prompt" if magnitude else None
            if not magnitude and way.id in pending:
                magnitude, trigger = 1, _trigger(pending[way.id])
            if paths and lanes_of.files_possible(way, paths) and lanes_of.files_lane(way, paths):
                magnitude, trigger = magnitude + 1, trigger or "file"
            if command is not None and lanes_of.commands_lane(way, command):
                magnitude, trigger = magnitude + 1, trigger or "command"
            if self.session_start and way.session_start:
                magnitude, trigger = magnitude + 1, trigger or "session"
            postcheck = self.with_postchecks and way.has_postcheck
            if (magnitude or postcheck) and who not in way.scope:
                magnitude, trigger, postcheck = 0, None, False
            if role is not None and lanes_of.roles_lane(way, role):
                # `roles` names the subagents a way is for: it needs no `scope`.
                magnitude, trigger = magnitude + 1, trigger or "subagent"
            if postcheck:
                checks.append(way)
            if magnitude:
                found.append(Match(way, magnitude, trigger or "prompt"))
        if prompt is not None or command is not None:
            from gitflow_harness.ways.regexes import save

            save()  # the code of the regexes first compiled here, for the next calls
        if checks:
            found = _with_postchecks(ctx, found, checks)
        return found


_WAITING_TRIGGERS = ("prompt", "file", "command", "postcheck")


def _trigger(value: object) -> str:
    return value if isinstance(value, str) and value in _WAITING_TRIGGERS else "prompt"


def _with_postchecks(ctx: HookContext, found: list[Match], ways: list[Way]) -> list[Match]:
    """Run the postchecks of `ways` in parallel; each that asks adds the postcheck lane."""
    from gitflow_harness.ways.model import POSTCHECK_FILE
    from gitflow_harness.ways.postcheck import REQUESTED, Postcheck, run_for

    checks = []
    for way in ways:
        rel = sibling(ctx, way, POSTCHECK_FILE)
        if rel is not None:
            checks.append(Postcheck(way.id, rel))
    requested = {r.way for r in run_for(ctx, checks) if r.status == REQUESTED}
    if not requested:
        return found
    by_id = {m.way.id: m for m in found}
    for way in ways:
        if way.id not in requested:
            continue
        hit = by_id.get(way.id)
        if hit is None:
            by_id[way.id] = Match(way, 1, "postcheck")
        else:
            hit.magnitude += 1
    return sorted(by_id.values(), key=lambda m: m.way.id)


def sibling(ctx: HookContext, way: Way, name: str) -> str | None:
    """Return the repo-relative path of a file beside the way's file, or None outside the repo."""
    assert ctx.repo is not None
    rel = os.path.relpath(os.path.join(os.path.dirname(way.file), name), ctx.repo.top)
    if rel == os.pardir or rel.startswith(os.pardir + os.sep) or os.path.isabs(rel):
        return None
    return rel.replace(os.sep, "/")


# -- the gate --------------------------------------------------------------------------------


def decide(ctx: HookContext, matches: list[Match], floor: float) -> list[Offer]:
    """Put each match through its way's gate: record what is suppressed, offer what fires."""
    from gitflow_harness.firing.curves import ProgressiveStaircase
    from gitflow_harness.firing.engagement import REFIRE, STEP

    ticks = {}
    for m in matches:  # read every tick first: reading the transcript may reveal a compaction
        if m.way.axis not in ticks:
            ticks[m.way.axis] = ctx.tick(m.way.axis)
    epoch = ctx.epoch
    key = engagement_key(ctx)
    entries = engagements(ctx.state, key)
    fires: list[tuple[Match, dict[str, Any], Decision]] = []
    for m in matches:
        way = m.way
        axis, tick = ticks[way.axis]
        state = engagement(way.curve, entries.get(way.id), epoch, axis, tick)
        decision = state.decide(tick, m.magnitude, floor)
        fired: dict[str, Any] = {
            "trigger": m.trigger,
            "tick": tick,
            "axis": axis,
            "kind": decision.kind,
            "salience": decision.salience,
        }
        if not decision.fired:
            # The kind this match would have fired as: it is not the way's first in its episode.
            fired["kind"] = STEP if isinstance(way.curve, ProgressiveStaircase) else REFIRE
            ctx.record("way.suppressed", {"way": way.id, **fired, "reason": decision.reason})
            continue
        fires.append((m, fired, decision))
    texts = _texts(ctx, fires)
    offers = []
    for m, fired, decision in fires:
        text = texts.get(m.way.id)
        if text:  # nothing to show (an empty body, its file gone): nothing fires
            offers.append(_offer(m, fired, decision, text, key, floor))
    return offers


def _offer(
    m: Match, fired: dict[str, Any], decision: Decision, text: str, key: str | None, floor: float
) -> Offer:
    from gitflow_harness.firing.curves import ProgressiveStaircase
    from gitflow_harness.firing.engagement import FIRST, REFIRE, STEP
    from gitflow_harness.hookcall.session import epoch

    way_id, curve, magnitude = m.way.id, m.way.curve, m.magnitude
    tick, axis = fired["tick"], fired["axis"]
    offer = Offer(text, way=way_id, fired=fired, first=decision.kind == FIRST)

    def check(state: RuntimeState) -> bool:
        # Under the lock, on the freshest state: a parallel call may have fired it meanwhile.
        now = engagement(curve, engagements(state, key).get(way_id), epoch(state), axis, tick)
        again = now.decide(tick, magnitude, floor)
        if not again.fired:
            # Withdrawn: recorded as suppressed, as `decide` records a match that does not fire.
            fired["kind"] = STEP if isinstance(curve, ProgressiveStaircase) else REFIRE
            fired["salience"] = again.salience
            offer.reason = again.reason
            return False
        fired["kind"], fired["salience"] = again.kind, again.salience
        offer.first = again.kind == FIRST
        return True

    def commit(state: RuntimeState) -> None:
        entries = writable_engagements(state, key)
        if entries is None:
            return  # a subagent without an id: its context is new at every start anyway
        current = epoch(state)
        fire = engagement(curve, entries.get(way_id), current, axis, tick)
        fire = fire.record_fire(tick, magnitude)
        entries[way_id] = {**fire.to_dict(), "epoch": current, "axis": axis}

    offer.check = check
    offer.commit = commit
    return offer


def engagement(curve: Curve, stored: object, epoch: int, axis: str, now: int) -> EngagementState:
    """Rebuild a way's engagement from the session state; a new episode when the epoch moved
    (a compaction took its text out of the context) or the entry is unusable.

    A fire counted on another axis (`tokens` ticks on turns until the session reads a token
    position) is not comparable with `now`: the episode is moved so its last fire is `now`.
    That fire was shown moments ago, in the same context, whatever unit counted it.
    """
    from gitflow_harness.firing.engagement import EngagementState

    if not isinstance(stored, dict) or stored.get("epoch") != epoch:
        return EngagementState(curve)
    data = {k: v for k, v in stored.items() if k not in ("epoch", "axis")}
    last = data.get("last_fire")
    if stored.get("axis", axis) != axis and type(last) is int:
        shift = now - last

        def moved(tick: object) -> object:
            return max(0, tick + shift) if type(tick) is int else tick

        history = data.get("history")
        data = {
            "last_fire": moved(last),
            "episode_start": moved(data.get("episode_start")),
            "history": [moved(t) for t in history] if isinstance(history, list) else history,
        }
    try:
        return EngagementState.from_dict(curve, data)
    except ValueError:
        return EngagementState(curve)


def engagement_key(ctx: HookContext) -> str | None:
    """Whose engagement a fire belongs to: MAIN, a subagent's id, or None (a subagent without
    an id, whose context is new at every start and is not remembered)."""
    if audience(ctx) == AGENT:
        return MAIN
    return ctx.event.agent


def engagements(state: RuntimeState, key: str | None) -> dict[str, Any]:
    """Return the stored engagements of one context (read-only; empty when there are none)."""
    if key == MAIN:
        section = state.get(SECTION)
        return section if isinstance(section, dict) else {}
    agents = state.get(SUBAGENTS)
    if key is None or not isinstance(agents, list):
        return {}
    for item in agents:
        if isinstance(item, list) and len(item) == 2 and item[0] == key:
            return item[1] if isinstance(item[1], dict) else {}
    return {}


def writable_engagements(state: RuntimeState, key: str | None) -> dict[str, Any] | None:
    """Return the engagements of one context to change, creating them; a subagent's move to
    the end of the list, which keeps the newest `MAX_SUBAGENTS`."""
    if key is None:
        return None
    if key == MAIN:
        section = state.get(SECTION)
        if not isinstance(section, dict):
            section = {}
            state[SECTION] = section
        engagements: dict[str, Any] = section
        return engagements
    agents = state.get(SUBAGENTS)
    items = agents if isinstance(agents, list) else []
    kept = [i for i in items if isinstance(i, list) and len(i) == 2]
    mine: dict[str, Any] = {}
    for item in kept:
        if item[0] == key and isinstance(item[1], dict):
            mine = item[1]
    kept = [i for i in kept if i[0] != key]
    kept.append([key, mine])
    state[SUBAGENTS] = kept[-MAX_SUBAGENTS:]
    return mine


# -- the text ------------------------------------------------------------------------------


def _texts(ctx: HookContext, fires: list[tuple[Match, dict[str, Any], Decision]]) -> dict[str, str]:
    """Return way id -> the text to deliver: the body, with its macro's output (run in
    parallel, committed macros only) before or after it."""
    from gitflow_harness.firing.curves import ProgressiveStaircase
    from gitflow_harness.ways.model import MACRO_FILE, read_body

    wanted = []
    # Where the host takes no context at this event, what fires only waits as its id, to be
    # decided again where it can be shown: its macro runs there.
    for m, _, decision in fires if ctx.deliverable else ():
        rel = sibling(ctx, m.way, MACRO_FILE) if m.way.has_macro else None
        if rel is not None:
            staircase = isinstance(m.way.curve, ProgressiveStaircase)
            wanted.append((m.way.id, rel, decision.level if staircase else None))
    outputs: dict[str, str] = {}
    if wanted:  # `macro` imports subprocess: only when there is a macro to run
        from gitflow_harness.ways.macro import Macro, run_for

        outputs = run_for(ctx, [Macro(*w) for w in wanted])
    texts = {}
    for m, _, _ in fires:
        try:
            body = read_body(m.way).strip()
        except (OSError, ValueError):
            continue  # gone or no longer UTF-8 since the index was read: nothing to show
        extra = outputs.get(m.way.id, "").strip()
        parts = [extra, body] if m.way.macro == "prepend" else [body, extra]
        texts[m.way.id] = SEPARATOR.join(p for p in parts if p)
    return texts
