"""`gfh init`: plan every file change first, then show it as a diff or apply it.

Planning reads the repository and the hosts' files and computes their new contents; nothing is
written until `apply`. Running it again plans nothing: every step adds only what is missing.
"""

from __future__ import annotations

import difflib
import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

from gitflow_harness.errors import UsageError
from gitflow_harness.scaffold import hosts, precommit, project
from gitflow_harness.store.fsutil import atomic_write

if TYPE_CHECKING:
    from gitflow_harness.store.config import Config

ADAPTERS = ("claude", "cursor", "codex")
HOST_DIRS = {"claude": ".claude", "cursor": ".cursor", "codex": ".codex"}
HOST_NAMES = {"claude": "Claude Code", "cursor": "Cursor", "codex": "Codex"}


@dataclass(frozen=True, slots=True)
class Change:
    """One file gfh init creates or rewrites (None before: it does not exist yet)."""

    path: str  # repo-relative, or absolute outside the working tree (git's hooks folder)
    before: bytes | None
    after: bytes | None  # None: remove the file (`gfh deinit`)
    executable: bool = False
    note: str = ""

    @property
    def action(self) -> str:
        if self.after is None:
            return "remove" if self.before is not None else "unchanged"
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
    pre_commit_local: bool = False,
    hooks_source: precommit.Source | None = None,
    git_hooks: bool = False,
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
    enforcing = [a for a in chosen if a in config.ritual.enforce and a != "codex"]
    taught = not enforcing or _teach_ritual(result, config.paths.ways, starter)
    enforced = []
    for adapter in chosen:
        rel = hosts.FILES[adapter]
        before = read_bytes(top / rel)
        skip = frozenset() if taught or adapter not in enforcing else hosts.STOP_EVENTS
        text, added = hosts.merge(adapter, rel, decode(rel, before), skip=skip)
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
    if pre_commit or pre_commit_local:
        _plan_pre_commit(result, config, None if pre_commit_local else hooks_source)
    if git_hooks:
        _plan_git_hooks(result)
    import shutil

    if shutil.which("gfh") is None:
        result.warnings.append(
            "`gfh` is not on PATH: the agent hooks run `gfh hook …` and will fail until it is "
            "(install gitflow-harness with `pipx install <path or URL of its repository>` or "
            "`uv tool install …`, or link only the `gfh` of the venv it is installed in onto "
            "PATH, never the venv's whole bin folder)"
        )
    return result


def _plan_pre_commit(result: Plan, config: Config, source: precommit.Source | None) -> None:
    """gfh's hooks in `.pre-commit-config.yaml`: published from `source` (None: `repo: local`).

    Nothing else in the file changes: not `default_install_hook_types`, not a project's hook.
    """
    before = read_bytes(result.top / precommit.PATH)
    text = decode(precommit.PATH, before)
    wanted = precommit.hooks(config.paths.ways, config.paths.pills, config.paths.requests)
    new, ids = precommit.merge(text, wanted, source)
    if source is not None and ids:
        note = f"added {', '.join(ids)} from {source.repo} at {source.rev[:12]}"
    elif ids:
        note = f"added {', '.join(ids)} as `repo: local` (runs the gfh on PATH)"
    else:
        note = "gfh hooks already there"
    result.changes.append(Change(precommit.PATH, before, new.encode("utf-8"), note=note))
    types = precommit.install_types(wanted)
    install = precommit.install_command(types)
    result.notes.append(
        f"pre-commit: every clone installs gfh's git hooks once with `{install}`; a hook of "
        "yours without `stages:` then runs at those stages too (`default_stages: "
        "[pre-commit]` keeps such hooks to commits)"
    )
    stale = precommit.stale_install_types(text)
    if stale:
        result.notes.append(
            f"pre-commit: `{precommit.INSTALL_KEY}` makes a plain `pre-commit install` install "
            f"{', '.join(stale)} as well, where every hook without `stages:` also runs; if an "
            "older `gfh init --pre-commit` added that line rather than you, delete it and install "
            "gfh's stages with the command above"
        )
    if source is None:
        result.notes.append(
            "pre-commit: the `repo: local` hooks run `gfh` from each committer's PATH: everyone "
            "who commits here needs gfh installed"
        )


def _plan_git_hooks(result: Plan) -> None:
    """A shim per stage; a hook that is not ours moves beside it, chained."""
    from gitflow_harness.scaffold import githooks

    folder = githooks.hooks_dir(result.top)
    written = 0
    for stage in githooks.STAGES:
        path = folder / stage
        before = read_bytes(path)
        wanted = githooks.shim(stage).encode()
        rel = display(result.top, path)
        if before is not None and not githooks.is_shim(before):
            chained = path.with_name(stage + githooks.CHAINED)
            if chained.exists():
                raise UsageError(
                    f"{rel} and {display(result.top, chained)} both exist and neither is "
                    "gfh's; merge them by hand, then run `gfh init --git-hooks` again"
                )
            runs = os.access(path, os.X_OK)
            note = f"your {stage} hook, run first by gfh's"
            result.changes.append(
                Change(display(result.top, chained), None, before, executable=runs, note=note)
            )
        change = Change(rel, before, wanted, executable=True)
        if change.action != "unchanged":
            written += 1
        result.changes.append(change)
    if written:
        result.notes.append(
            f"git hooks: gfh's checks run from {display(result.top, folder)} (a hook that was "
            "there runs first); `gfh deinit` removes them"
        )
    config = read_bytes(result.top / precommit.PATH) or b""
    if written and any(f"id: {h['id']}".encode() in config for h in precommit.manifest()):
        result.warnings.append(
            f"{precommit.PATH} runs gfh's hooks too: where pre-commit is installed, each check "
            "would run twice; keep one of the two"
        )


def display(top: Path, path: Path) -> str:
    """`path` relative to `top` when it is inside it, else in full."""
    try:
        return path.relative_to(top).as_posix()
    except ValueError:
        return str(path)


# The starter way that teaches an agent the end-of-turn ritual.
RITUAL_WAY = "workflow/end-of-turn"
TEACHES = "teaches the end-of-turn ritual the Stop hook enforces"


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
    if any(c.note == TEACHES for c in result.changes):
        note += f"; the starter way {way}, copied now, teaches it to the agent"
    return note


def _teach_ritual(result: Plan, ways_root: str, starter: project.Tree | None) -> bool:
    """Make sure the way that teaches the ritual is there for a host whose Stop enforces it:
    without it every first tool turn of a session is blocked. False when this installation has
    no such way (then the Stop hook is left out, and a warning says why)."""
    way = f"{ways_root}/{RITUAL_WAY}"
    if (result.top / way).exists() or any(c.path.startswith(way + "/") for c in result.changes):
        return True
    available = project.starter_ways(starter)
    if RITUAL_WAY not in available:
        result.warnings.append(
            f"this installation has no starter way {RITUAL_WAY}, which teaches the end-of-turn "
            "ritual: the Stop hook that enforces it was left out"
        )
        return False
    for rel, content, executable in project.way_files(available[RITUAL_WAY], way):
        result.changes.append(Change(rel, None, content, executable=executable, note=TEACHES))
    return True


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
        before = read_bytes(result.top / rel)
        text, added = mcp.merge(adapter, decode(rel, before))
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
        new = [] if change.after is None else _lines(change.after)
        fromfile = "/dev/null" if change.before is None else f"a/{change.path}"
        tofile = "/dev/null" if change.after is None else f"b/{change.path}"
        chunks.extend(difflib.unified_diff(old, new, fromfile, tofile))
        if change.after is None and change.before == b"":
            chunks.append(f"--- a/{change.path}\n+++ /dev/null\n")  # an empty file removed
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
        if change.after is None:
            path.unlink(missing_ok=True)
            done.append(change)
            continue
        path.parent.mkdir(parents=True, exist_ok=True)
        mode = 0o777 & ~_umask() if change.executable else None
        atomic_write(path, change.after, mode=mode)
        done.append(change)
    return done


def read_bytes(path: Path) -> bytes | None:
    """The file's bytes, None when it does not exist; a directory there is a usage error."""
    try:
        return path.read_bytes()
    except FileNotFoundError:
        return None
    except IsADirectoryError:
        from gitflow_harness.errors import UsageError

        raise UsageError(f"{path} is a directory; gfh init expected a file there") from None


def decode(rel: str, data: bytes | None) -> str | None:
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
