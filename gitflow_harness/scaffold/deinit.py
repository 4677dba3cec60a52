"""`gfh deinit`: plan the removal of exactly what `gfh init` added, as init plans its changes.

Removed: gfh's entries in the hosts' hook files and its `gfh mcp` server in their MCP files (a
file left with nothing of anyone's is deleted), the `.pre-commit-config.yaml` entry init wrote
(one `repos:` item holding only gfh's hooks, cut out by lines), and the git shims (a hook they
chained is put back). Kept: anything that is the user's, and what became the project's own once
committed (the configuration file, the ways, pills and requests folders).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from gitflow_harness.scaffold import Change, Plan, decode, display, githooks, hosts, read_bytes
from gitflow_harness.scaffold import precommit as pc


def plan(top: Path) -> Plan:
    """Compute every removal `gfh deinit` makes in the repository at `top`."""
    result = Plan(top=top, adapters=[], adapters_reason="")
    for adapter, rel in hosts.FILES.items():
        before = read_bytes(top / rel)
        text = decode(rel, before)
        if text is None:
            continue
        after, removed = _strip_host(adapter, rel, text)
        if removed:
            result.adapters.append(adapter)
            note = f"{removed} gfh hook(s) removed"
            result.changes.append(Change(rel, before, after, note=note))
    _plan_mcp(result)
    _plan_pre_commit(result)
    _plan_shims(result)
    result.notes.append(
        "kept: .gitflow-harness.toml and the ways, pills and requests folders (the project's "
        "own content now); remove them by hand if you want them gone"
    )
    return result


def _strip_host(adapter: str, rel: str, text: str) -> tuple[bytes | None, int]:
    """The host file without gfh's entries (None: nothing else was in it), and how many."""
    data = hosts.load(rel, text)
    table = data.get("hooks")
    if not isinstance(table, dict):
        return text.encode("utf-8"), 0
    removed = 0
    for event in list(table):
        entries = table[event]
        if not isinstance(entries, list):
            continue
        kept: list[Any] = []
        for entry in entries:
            if adapter == "cursor":
                if isinstance(entry, dict) and hosts.is_ours(entry.get("command"), adapter, event):
                    removed += 1
                    continue
                kept.append(entry)
                continue
            handlers = entry.get("hooks") if isinstance(entry, dict) else None
            if not isinstance(handlers, list):
                kept.append(entry)
                continue
            mine = [
                h
                for h in handlers
                if isinstance(h, dict) and hosts.is_ours(h.get("command"), adapter, event)
            ]
            removed += len(mine)
            rest = [h for h in handlers if h not in mine]
            if rest or not mine:
                kept.append({**entry, "hooks": rest} if mine else entry)
        if kept:
            table[event] = kept
        else:
            del table[event]
    if not removed:
        return text.encode("utf-8"), 0
    if not table:
        del data["hooks"]
    if not data or (adapter == "cursor" and data == {"version": 1}):
        return None, removed
    return hosts.dump(data, text).encode("utf-8"), removed


def _plan_mcp(result: Plan) -> None:
    """The `gfh mcp` server of each host's MCP file (`gfh init --mcp`)."""
    from gitflow_harness.scaffold import mcp

    for adapter, rel in mcp.FILES.items():
        found = mcp.removal(result.top, adapter)
        if found is not None:
            before, after = found
            result.changes.append(Change(rel, before, after, note="gfh mcp server removed"))


def _plan_pre_commit(result: Plan) -> None:
    before = read_bytes(result.top / pc.PATH)
    text = decode(pc.PATH, before)
    if text is None:
        return
    after, ids, mixed = strip_pre_commit(text)
    if ids:
        gone = after is not None and not after.strip()
        new = None if gone or after is None else after.encode("utf-8")
        note = f"removed {', '.join(ids)}"
        result.changes.append(Change(pc.PATH, before, new, note=note))
    for repo in mixed:
        result.notes.append(
            f"pre-commit: the entry `{repo}` holds gfh hooks beside hooks of yours; gfh init "
            "did not write it that way, so it is left for you to edit"
        )
    stale = pc.stale_install_types(text)
    if stale:
        result.notes.append(
            f"pre-commit: `{pc.INSTALL_KEY}` is left as it is; if an older `gfh init "
            "--pre-commit` added it rather than you, delete that line"
        )


def strip_pre_commit(text: str) -> tuple[str | None, list[str], list[str]]:
    """Return the text without the `repos:` items that hold only gfh's hooks, their hook ids,
    and the repos of items that mix gfh's hooks with others (left alone)."""
    gfh_ids = {h["id"] for h in pc.manifest()}
    parsed = pc.load(text) or {}
    repos = parsed.get("repos") or [] if isinstance(parsed, dict) else []
    drop: list[int] = []
    ids: list[str] = []
    mixed: list[str] = []
    for i, repo in enumerate(repos):
        hooks = repo.get("hooks") if isinstance(repo, dict) else None
        names = [str(h.get("id")) for h in hooks or [] if isinstance(h, dict)]
        ours = [n for n in names if n in gfh_ids]
        if ours and len(ours) == len(names):
            drop.append(i)
            ids += ours
        elif ours:
            mixed.append(str(repo.get("repo")))
    if not drop:
        return text, [], mixed
    lines = text.split("\n")
    spans = _item_spans(lines)
    if spans is None or len(spans) != len(repos):
        return None, [], mixed
    for i in reversed(drop):
        start, end = spans[i]
        del lines[start:end]
    out = "\n".join(lines)
    after = pc.load(out) or {}
    kept = [r for i, r in enumerate(repos) if i not in drop]
    rest = {k: v for k, v in parsed.items() if k != "repos"}
    if (after.get("repos") or []) != kept or {
        k: v for k, v in after.items() if k != "repos"
    } != rest:
        return None, [], mixed
    if not kept and not rest:
        return "", ids, mixed
    return out, ids, mixed


def _item_spans(lines: list[str]) -> list[tuple[int, int]] | None:
    """The line spans `[start, end)` of each item of the block list under `repos:`."""
    start = next((i for i, line in enumerate(lines) if pc.REPOS_LINE.match(line)), None)
    if start is None:
        return None
    spans: list[list[int]] = []
    indent: str | None = None
    last = start
    i = start + 1
    while i < len(lines):
        line = lines[i]
        stripped = line.strip()
        if stripped and not line[0].isspace() and not line.startswith(("-", "#")):
            break
        if stripped and not stripped.startswith("#"):
            lead = line[: len(line) - len(line.lstrip())]
            if stripped.startswith("- ") and (indent is None or lead == indent):
                indent = lead
                if spans:
                    spans[-1][1] = last + 1
                spans.append([i, i + 1])
            last = i
        i += 1
    if spans:
        spans[-1][1] = last + 1
    return [(a, b) for a, b in spans]


def _plan_shims(result: Plan) -> None:
    from gitflow_harness.errors import UsageError

    try:
        folder = githooks.hooks_dir(result.top)
    except UsageError:
        return  # husky's folder: init never wrote there
    for stage in githooks.STAGES:
        path = folder / stage
        before = read_bytes(path)
        if not githooks.is_shim(before):
            continue
        chained = path.with_name(stage + githooks.CHAINED)
        kept = read_bytes(chained)
        rel = display(result.top, path)
        if kept is None:
            result.changes.append(Change(rel, before, None, note="gfh's shim"))
            continue
        import os

        runs = os.access(chained, os.X_OK)
        note = f"your {stage} hook put back"
        result.changes.append(Change(rel, before, kept, executable=runs, note=note))
        result.changes.append(Change(display(result.top, chained), kept, None))
