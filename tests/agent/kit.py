"""Helpers for hook tests: host-shaped payloads, a hook runner, and a stand-in context source.

`GateSource` is a deliberately small way engine (a flat refire delta per way) so the runtime's
lanes, ticks, epochs, budget and commit-after-delivery can be tested before the real firing
engine is plugged in. It is test scaffolding, not product code.
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

from gitflow_harness.agent.model import Offer
from tests.helpers import FIXTURES, CliRunner, Result

HOOK_FIXTURES = FIXTURES / "hooks"
TRANSCRIPTS = FIXTURES / "transcripts"
PLACEHOLDER = "/home/dev/project"


def fixture_files() -> list[tuple[str, str, Path]]:
    """Every fixture as (adapter, event name, path)."""
    out = []
    for path in sorted(HOOK_FIXTURES.glob("*/*.json")):
        out.append((path.parent.name, path.name.split(".")[0], path))
    return out


def payload(adapter: str, name: str, repo: Path | None = None, **fields: Any) -> dict[str, Any]:
    """Load `hooks/<adapter>/<name>.json`, pointing its paths at `repo`, with `fields` set."""
    text = (HOOK_FIXTURES / adapter / f"{name}.json").read_text(encoding="utf-8")
    if repo is not None:
        text = text.replace(PLACEHOLDER, str(repo))
    data: dict[str, Any] = json.loads(text)
    data.update(fields)
    return data


def hook(
    gfh: CliRunner,
    adapter: str,
    event: str,
    data: dict[str, Any] | str,
    env: dict[str, str] | None = None,
) -> Result:
    """Run `gfh hook ADAPTER EVENT` in-process with `data` on stdin."""
    stdin = data if isinstance(data, str) else json.dumps(data)
    return gfh("hook", adapter, event, stdin=stdin, env=env)


# -- a stand-in context source -------------------------------------------------------------

# way id -> {"text", "prompt" (regex) | "files" (prefix), "delta"}; tests fill it in.
WAYS: dict[str, dict[str, Any]] = {}
SECTION = "kit-ways"


def gate_source(ctx: Any) -> list[Offer]:
    """Offer each matching way under a flat rule: first fire, then again past `delta` ticks."""
    offers = []
    pending = {item["way"] for item in ctx.pending}
    for way, spec in WAYS.items():
        trigger = _match(ctx, spec) or ("prompt" if way in pending else None)
        if trigger is None:
            continue
        axis, tick = ctx.tick(spec.get("axis", "tokens"))
        kind = _decide(ctx.state, way, tick, ctx.epoch, spec["delta"])
        fired = {"trigger": trigger, "tick": tick, "axis": axis, "kind": kind, "salience": 1.0}
        if kind is None:
            ctx.record(
                "way.suppressed", {"way": way, **fired, "kind": "refire", "reason": "salience"}
            )
            continue
        epoch = ctx.epoch
        offers.append(
            Offer(
                spec["text"],
                way=way,
                fired=fired,
                first=kind == "first",
                check=lambda state, w=way, t=tick, e=epoch, d=spec["delta"]: (
                    _decide(state, w, t, e, d) is not None
                ),
                commit=lambda state, w=way, t=tick, e=epoch: state.setdefault(SECTION, {}).update(
                    {w: {"last": t, "epoch": e}}
                ),
            )
        )
    return offers


def plain_source(ctx: Any) -> list[Offer]:
    """Offer one non-way text (like a hint) at every event."""
    return [Offer("plain context")]


def _match(ctx: Any, spec: dict[str, Any]) -> str | None:
    prompt = ctx.event.prompt if "prompt" in ctx.lanes else None
    if "prompt" in spec and prompt and re.search(spec["prompt"], prompt, re.I):
        return "prompt"
    paths = ctx.paths if "files" in ctx.lanes else ()
    if "files" in spec and any(p.startswith(spec["files"]) for p in paths):
        return "file"
    return None


def _decide(state: dict[str, Any], way: str, tick: int, epoch: int, delta: int) -> str | None:
    last = state.get(SECTION, {}).get(way)
    if last is None or last["epoch"] != epoch:
        return "first"
    return "refire" if tick - last["last"] > delta else None


def transcript_line(message_id: str, tokens: int, **extra: Any) -> str:
    """One main-chain assistant line whose position is `tokens`."""
    obj = {
        "type": "assistant",
        "isSidechain": False,
        "uuid": f"{message_id}-u",
        "message": {
            "id": message_id,
            "role": "assistant",
            "content": [{"type": "text", "text": "..."}],
            "usage": {
                "input_tokens": 1,
                "cache_creation_input_tokens": 0,
                "cache_read_input_tokens": tokens - 1,
                "output_tokens": 5,
            },
        },
        **extra,
    }
    return json.dumps(obj) + "\n"


def boundary_line(uuid: str) -> str:
    return (
        json.dumps(
            {
                "type": "system",
                "subtype": "compact_boundary",
                "uuid": uuid,
                "compactMetadata": {"trigger": "auto", "preTokens": 1},
            }
        )
        + "\n"
    )


def block_check(ctx: Any) -> Any:
    """A stop check that always blocks, naming rule `status`."""
    from gitflow_harness.agent.model import Block

    return Block("status", "Run `gfh status --end-turn` and show the box.")


def plug(monkeypatch: Any, kinds: Any, spec: str) -> None:
    """Register the context source `spec` for every kind in `kinds`."""
    from gitflow_harness.agent import sources

    for kind in kinds:
        monkeypatch.setitem(sources.CONTEXT_SOURCES, kind, (spec,))
