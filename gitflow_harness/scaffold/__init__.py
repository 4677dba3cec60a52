"""`gfh init`: plan every file change first, then show it as a diff or apply it.

Planning reads the repository and the hosts' files and computes their new contents; nothing is
written until `apply`. Running it again plans nothing: every step adds only what is missing.
"""

from __future__ import annotations

import difflib
import os
from dataclasses import dataclass, field
from pathlib import Path

from gitflow_harness.scaffold import hosts, precommit, project
from gitflow_harness.store.fsutil import atomic_write

ADAPTERS = ("claude", "cursor", "codex")
HOST_DIRS = {"claude": ".claude", "cursor": ".cursor", "codex": ".codex"}
HOST_NAMES = {"claude": "Claude Code", "cursor": "Cursor", "codex": "Codex"}


@dataclass(frozen=True, slots=True)
class Change:
    """One file gfh init creates or rewrites (None before: it does not exist yet)."""

    path: str  # repo-relative
    before: bytes | None
    after: bytes
    executable: bool = False
    note: str = ""

    @property
    def action(self) -> str:
        if self.before is None:
            return "create"
        return "update" if self.before != self.after else "unchanged"


@dataclass
class Plan:
    """What `gfh init` would do in one repository."""

    top: Path
    adapters: list[str]
    adapters_reason: str
    changes: list[Change] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    warnings: list[str] = field(default_factory=list)

    @property
    def pending(self) -> list[Change]:
        return [c for c in self.changes if c.action != "unchanged"]


def default_adapters(top: Path) -> tuple[list[str], str]:
    """The hosts whose folder the repository has, else Claude Code."""
    found = [a for a in ADAPTERS if (top / HOST_DIRS[a]).is_dir()]
    if found:
        return found, "found " + ", ".join(HOST_DIRS[a] + "/" for a in found)
    return ["claude"], "default (no .claude/, .cursor/ or .codex/ folder yet)"


def plan(
    top: Path,
    *,
    adapters: list[str] | None = None,
    pre_commit: bool = False,
    ways: list[str] | None = None,
    all_ways: bool = False,
    starter: project.Tree | None = None,
    mcp: bool = False,
) -> Plan:
    """Compute every change `gfh init` makes in the repository at `top`."""
    from gitflow_harness.store.config import load_config

    if adapters:
        chosen, reason = list(dict.fromkeys(adapters)), "chosen"
    else:
        chosen, reason = default_adapters(top)
    result = Plan(top=top, adapters=chosen, adapters_reason=reason)
    config_path = top / project.CONFIG_FILE
    if not config_path.exists():
        result.changes.append(
            Change(project.CONFIG_FILE, None, project.config_template().encode("utf-8"))
        )
    config = load_config(top)
    for folder in project.folders(config):
        if not (top / folder).exists():
            result.changes.append(Change(f"{folder}/{project.KEEP}", None, b""))
    if ways or all_ways:
        _plan_ways(result, config.paths.ways, ways or [], all_ways, starter)
    enforced = []
    for adapter in chosen:
        rel = hosts.FILES[adapter]
        before = _read(top / rel)
        text, added = hosts.merge(adapter, rel, _decode(rel, before))
        note = f"{added} hook(s) added" if added else "every hook already there"
        result.changes.append(Change(rel, before, text.encode("utf-8"), note=note))
        if added and adapter in config.ritual.enforce:
            enforced.append(adapter)
    if enforced:
        result.notes.append(_ritual_note(result, enforced, config.paths.ways))
    if "codex" in chosen:
        result.notes.append(
            "codex: review and trust the new hooks with `/hooks` in Codex; older builds also "
            "need `[features] codex_hooks = true` in config.toml"
        )
    if mcp:
        _plan_mcp(result)
    if pre_commit:
        before = _read(top / precommit.PATH)
        wanted = precommit.hooks(config.paths.ways, config.paths.pills, config.paths.requests)
        text, ids = precommit.merge(_decode(precommit.PATH, before), wanted)
        types = precommit.install_types(wanted)
        text, added_types = precommit.ensure_install_types(text, types)
        done = [f"added {', '.join(ids)}"] if ids else ["gfh hooks already there"]
        if added_types:
            done.append(f"{precommit.INSTALL_KEY} += {', '.join(added_types)}")
        result.changes.append(
            Change(precommit.PATH, before, text.encode("utf-8"), note="; ".join(done))
        )
        result.notes.append(
            "pre-commit: run `pre-commit install` once; it installs the git hooks gfh's checks "
            f"run at ({', '.join(types)}), as `{precommit.INSTALL_KEY}` says"
        )
    import shutil

    if shutil.which("gfh") is None:
        result.warnings.append(
            "`gfh` is not on PATH: the hooks run `gfh hook …` and will fail until it is "
            "(install gitflow-harness with `pipx install <path or URL of its repository>`, or "
            "put the bin folder of the venv it is installed in on PATH)"
        )
    return result


# The starter way that teaches an agent the end-of-turn ritual.
RITUAL_WAY = "workflow/end-of-turn"


def _ritual_note(result: Plan, adapters: list[str], ways_root: str) -> str:
    """Tell the user, once, that these hosts' Stop now enforces the ritual, and how the agent
    learns it: without the ritual in its instructions, every first tool turn is blocked."""
    hosts_named = " and ".join(HOST_NAMES[a] for a in adapters)
    note = (
        f"ritual: at Stop, {hosts_named} will not end a turn that used tools until the agent "
        "has run `gfh status --end-turn`, shown the status box and run `gfh task set` "
        "(see docs/ritual.md)"
    )
    way = f"{ways_root}/{RITUAL_WAY}"
    copied = any(c.path.startswith(way + "/") for c in result.changes)
    if not copied and not (result.top / way).exists():
        note += f"; `gfh init --way {RITUAL_WAY}` teaches it to the agent"
    return note


def _plan_ways(
    result: Plan, ways_root: str, wanted: list[str], every: bool, starter: project.Tree | None
) -> None:
    available = project.starter_ways(starter)
    for way_id in project.choose(available, wanted, every=every):
        destination = f"{ways_root}/{way_id}"
        if (result.top / destination).exists():
            result.notes.append(f"way {way_id}: {destination} exists; left as it is")
            continue
        for rel, content, executable in project.way_files(available[way_id], destination):
            result.changes.append(Change(rel, None, content, executable=executable))


def _plan_mcp(result: Plan) -> None:
    """Register `gfh mcp` with every chosen host (scaffold/mcp.py)."""
    from gitflow_harness.scaffold import mcp

    for adapter in result.adapters:
        rel = mcp.FILES[adapter]
        before = _read(result.top / rel)
        text, added = mcp.merge(adapter, _decode(rel, before))
        note = "gfh mcp server added" if added else "an MCP server named gfh already there"
        result.changes.append(Change(rel, before, text.encode("utf-8"), note=note))
    result.notes.append(
        "mcp: Claude Code asks before it starts a project's MCP servers (headless: "
        "`claude -p … --mcp-config .mcp.json`); Codex reads .codex/config.toml only in a "
        "trusted project (see docs/mcp.md)"
    )


def render_diff(result: Plan) -> str:
    """Return the pending changes as one unified diff."""
    chunks: list[str] = []
    for change in result.pending:
        old = [] if change.before is None else _lines(change.before)
        new = _lines(change.after)
        fromfile = "/dev/null" if change.before is None else f"a/{change.path}"
        chunks.extend(difflib.unified_diff(old, new, fromfile, f"b/{change.path}"))
        if change.after == b"" and change.before is None:
            chunks.append(f"--- /dev/null\n+++ b/{change.path}\n")  # an empty new file
    return "".join(line if line.endswith("\n") else line + "\n" for line in chunks)


def apply(result: Plan) -> list[Change]:
    """Write every pending change; return them. A file that is a symlink (settings kept in a
    dotfiles repository, say) stays one: its target is written."""
    done = []
    for change in result.pending:
        path = result.top / change.path
        if path.is_symlink():
            path = Path(os.path.realpath(path))
        path.parent.mkdir(parents=True, exist_ok=True)
        mode = None
        if change.before is None:
            mode = 0o777 & ~_umask() if change.executable else None
        atomic_write(path, change.after, mode=mode)
        done.append(change)
    return done


def _read(path: Path) -> bytes | None:
    try:
        return path.read_bytes()
    except FileNotFoundError:
        return None
    except IsADirectoryError:
        from gitflow_harness.errors import UsageError

        raise UsageError(f"{path} is a directory; gfh init expected a file there") from None


def _decode(rel: str, data: bytes | None) -> str | None:
    """Return a host file's text; a file that is not UTF-8 is a configuration error naming
    where the first bad byte is."""
    if data is None:
        return None
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as exc:
        from gitflow_harness.errors import ConfigError

        line = data.count(b"\n", 0, exc.start) + 1
        column = exc.start - (data.rfind(b"\n", 0, exc.start) + 1) + 1
        raise ConfigError(
            f"{rel}:{line}:{column}: not UTF-8 text (byte 0x{data[exc.start]:02x}); save it as "
            "UTF-8, then run `gfh init` again"
        ) from None


def _lines(data: bytes) -> list[str]:
    return data.decode("utf-8", "replace").splitlines(keepends=True)


def _umask() -> int:
    current = os.umask(0o022)
    os.umask(current)
    return current
