"""Helpers for hook tests: host-shaped payloads, a hook runner, real ways, transcript lines."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from gitflow_harness.hookcall.model import Offer
from tests.helpers import FIXTURES, CliRunner, Result, git, read_events

HOOK_FIXTURES = FIXTURES / "hooks"
TRANSCRIPTS = FIXTURES / "transcripts"
# Each host with the name it gives the session-start event.
SESSION_STARTS = [("claude", "SessionStart"), ("codex", "SessionStart"), ("cursor", "sessionStart")]
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


# The variable a host exports to its hooks, holding the payload's `session_id` (Claude Code
# 2.1.332). Codex 0.171.0 exports `CODEX_SESSION_ID` to the agent's commands only.
HOST_SESSION_VARIABLE = {"claude": "CLAUDE_CODE_SESSION_ID"}


def hook(
    gfh: CliRunner,
    adapter: str,
    event: str,
    data: dict[str, Any] | str,
    env: dict[str, str] | None = None,
    *,
    host_env: bool = True,
) -> Result:
    """Run `gfh hook ADAPTER EVENT` in-process with `data` on stdin.

    Like the host, it exports the payload's session id to the hook (`host_env`), unless `env`
    names that variable itself.
    """
    stdin = data if isinstance(data, str) else json.dumps(data)
    variable = HOST_SESSION_VARIABLE.get(adapter)
    ident = data.get("session_id") if isinstance(data, dict) else None
    if host_env and variable and isinstance(ident, str) and variable not in (env or {}):
        env = {**(env or {}), variable: ident}
    return gfh("hook", adapter, event, stdin=stdin, env=env)


# -- real ways in a real repository ----------------------------------------------------------

EXPONENTIAL = "curve: {type: Exponential, half_life: 10000}\n"  # refires 10001 ticks on


def way(
    repo: Path,
    way_id: str,
    frontmatter: str,
    body: str = "",
    *,
    macro: str | None = None,
    postcheck: str | None = None,
    track: bool = True,
) -> Path:
    """Write a way into `repo`'s ways root (and its scripts); commit them unless not `track`.

    `frontmatter` is the YAML between the fences, `description` added when absent; the body
    defaults to a line naming the way.
    """
    directory = repo / "hooks" / "ways" / way_id
    directory.mkdir(parents=True, exist_ok=True)
    if "description:" not in frontmatter:
        frontmatter = f"description: the {way_id} way\n{frontmatter}"
    text = f"---\n{frontmatter}---\n{body or f'Guidance of {way_id}.'}\n"
    path = directory / f"{directory.name}.md"
    path.write_text(text, encoding="utf-8")
    for name, script in (("macro.sh", macro), ("postcheck.sh", postcheck)):
        if script is not None:
            (directory / name).write_text(script, encoding="utf-8")
            (directory / name).chmod(0o755)
    if track:
        git(repo, "add", "-A", str(directory))
        git(repo, "commit", "-q", "-m", f"way {way_id}")
    return path


def context(result: Result) -> str | None:
    """The context a Claude Code or Codex answer carries, or None."""
    if not result.out:
        return None
    text: str = result.json()["hookSpecificOutput"].get("additionalContext")
    return text


def decisions(repo: Path) -> list[tuple[str, str, int, str | None]]:
    """Every `way.fired` / `way.suppressed` as (way, fired|suppressed, tick, kind or reason)."""
    out = []
    for e in read_events(repo):
        data = e["data"]
        if e["type"] == "way.fired":
            out.append((data["way"], "fired", data["tick"], data["kind"]))
        elif e["type"] == "way.suppressed":
            out.append((data["way"], "suppressed", data["tick"], data["reason"]))
    return out


def plain_source(ctx: Any) -> list[Offer]:
    """Offer one non-way text (like a hint) at every event."""
    return [Offer("plain context")]


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
    from gitflow_harness.hookcall.model import Block

    return Block("status", "Run `gfh status --end-turn` and show the box.")


def plug(monkeypatch: Any, kinds: Any, spec: str) -> None:
    """Register the context source `spec` for every kind in `kinds`."""
    from gitflow_harness.agent import sources

    for kind in kinds:
        monkeypatch.setitem(sources.CONTEXT_SOURCES, kind, (spec,))
