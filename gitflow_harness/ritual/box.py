"""The status box: the frame `gfh status` prints and the end-of-turn ritual looks for.

    ┌─ gfh · feature/parser · worktree ──────────────────┐
    │ branch   feature/parser · 2 behind main · 1 ahead  │
    │ tree     clean                                     │
    └────────────────────────────────────────────────────┘

The first line starts with `┌─ gfh` (the Stop ritual's detection signal), every line has the
same display width, at most 100 columns; long values wrap onto continuation rows.
"""

from __future__ import annotations

# Not `typing.TYPE_CHECKING`: `gfh status` does not import typing (mypy reads the name).
TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Sequence
    from typing import Any, Final

MAX_WIDTH: Final = 100
GAP: Final = 2  # spaces between the key column and the values
# The characters the box draws itself (separators, the frame, an elision): one column each, as
# `unicodedata` says (neither combining nor wide).
NARROW: Final = frozenset("·─│┌┐└┘…")
ONE_COLUMN: Final = NARROW.union(map(chr, range(128)))  # and every ASCII character
# An escape sequence, or a control character: compiled only for a text that has one.
_CONTROL: Final = r"\x1b\[[0-9;?]*[ -/]*[@-~]|[\x00-\x1f\x7f-\x9f]"


def display_width(text: str) -> int:
    """Return the columns `text` takes in a terminal (wide East Asian characters take two)."""
    if text.isascii():
        return len(text)  # every ASCII character takes one column
    if ONE_COLUMN.issuperset(text):
        return len(text)  # the box's own separators and frame: `unicodedata` not loaded
    import unicodedata

    total = 0
    for ch in text:
        if unicodedata.combining(ch) or unicodedata.category(ch) in ("Mn", "Me", "Cf"):
            continue
        total += 2 if unicodedata.east_asian_width(ch) in ("W", "F") else 1
    return total


def clean_text(text: str) -> str:
    """Return `text` on one line: escape sequences and control characters become spaces."""
    if not text.isprintable():  # a printable text has neither (both start with a Cc character)
        import re

        text = re.sub(_CONTROL, " ", text)
    return " ".join(text.split())


def wrap(text: str, width: int) -> list[str]:
    """Wrap `text` at spaces into lines of at most `width` columns, splitting long words."""
    width = max(1, width)
    lines: list[str] = []
    line = ""
    for word in text.split():
        while display_width(word) > width:
            if line:
                lines.append(line)
                line = ""
            head, word = _split_at(word, width)
            lines.append(head)
        if not word:
            continue
        if not line:
            line = word
        elif display_width(line) + 1 + display_width(word) <= width:
            line = f"{line} {word}"
        else:
            lines.append(line)
            line = word
    if line or not lines:
        lines.append(line)
    return lines


def render_box(subject: str, rows: Sequence[tuple[str, str]], *, max_width: int = MAX_WIDTH) -> str:
    """Render a titled box of `key  value` rows, at most `max_width` columns wide."""
    keys = [clean_text(k) for k, _ in rows]
    values = [clean_text(v) for _, v in rows]
    key_width = max((display_width(k) for k in keys), default=0) + GAP
    title = "gfh" + (f" · {clean_text(subject)}" if subject else "")
    widest = max((display_width(v) for v in values), default=0)
    # "│ " + key column + value column + "  │"; the top line needs "┌─ " + title + " ─┐".
    width = max(5 + key_width + widest, display_width(title) + 5)
    width = min(width, max_width)
    value_width = max(1, width - 5 - key_width)
    if display_width(title) > width - 5:
        title = _truncate(title, width - 5)
    top = f"┌─ {title} " + "─" * (width - 5 - display_width(title)) + "┐"
    out = [top]
    for key, value in zip(keys, values, strict=True):
        for i, piece in enumerate(wrap(value, value_width)):
            label = key if i == 0 else ""
            cell = _pad(label, key_width) + _pad(piece, value_width)
            out.append(f"│ {cell}  │")
    out.append("└" + "─" * (width - 2) + "┘")
    return "\n".join(out)


def status_box(data: dict[str, Any]) -> str:
    """Render the status box from `status`'s envelope data.

    The title names the branch and where it is checked out (`worktree` or `main checkout`);
    the rows are branch, tree, gate, task and session, in that order. The path itself is in
    the `--json` data (`top`).
    """
    where = "worktree" if data["location"] == "worktree" else "main checkout"
    return render_box(f"{data.get('branch') or 'HEAD'} · {where}", status_rows(data))


def status_rows(data: dict[str, Any]) -> list[tuple[str, str]]:
    """The rows of the status box, from `status`'s envelope data."""
    return [
        ("branch", _branch_row(data)),
        ("tree", _tree_row(data)),
        ("gate", _gate_row(data)),
        ("task", _task_row(data["task"])),
        ("session", _session_row(data["session"])),
    ]


def _branch_row(data: dict[str, Any]) -> str:
    if data["branch"] is None:
        at = f" at {data['head'][:7]}" if data["head"] else ""
        return f"HEAD detached{at}"
    name = data["branch"]
    if data["head"] is None:
        return f"{name} · no commits yet"
    trunk = data["trunk"]
    if trunk is None:
        missing = data.get("trunk_missing")
        if missing:
            where = f" (from {missing['source']})" if missing["source"] else ""
            return f"{name} · trunk {missing['name']!r}{where} has no local branch"
        return f"{name} · no trunk found (set [repository] trunk)"
    if data["on_trunk"]:
        return f"{name} · the trunk"
    if data["behind"] is None:
        return f"{name} · behind/ahead of {trunk} unknown (shallow clone: git fetch --unshallow)"
    return f"{name} · {data['behind']} behind {trunk} · {data['ahead']} ahead"


def _tree_row(data: dict[str, Any]) -> str:
    parts = []
    if data["operation"]:
        parts.append(f"{data['operation']} in progress")
    changes = data["changes"]
    if not changes:
        parts.append("clean")
    else:
        shown = ", ".join(c["path"] for c in changes[:5])
        more = f", +{len(changes) - 5} more" if len(changes) > 5 else ""
        parts.append(f"{len(changes)} changed: {shown}{more}")
    return " · ".join(parts)


def _gate_row(data: dict[str, Any]) -> str:
    if data["gate"] is None:
        return "not judged for this tree"
    row = f"{data['gate']} for this tree"
    # `accept` works only on a branch other than the trunk, with a clean tree: say "ready" only
    # then. A receipt for uncommitted changes holds once they are committed exactly as they are.
    if data["gate"] != "green" or not data["receipt"]:
        return row
    if data["branch"] is None or data["trunk"] is None or data["on_trunk"] or data["operation"]:
        return row
    if data["changes"]:
        return f"{row} · commit it as it is, then gfh accept"
    return f"{row} · ready for gfh accept"


def _task_row(task: dict[str, Any]) -> str:
    state = task["state"]
    if state == "set":
        return task["text"] if task["text"] else "(empty: a conversational turn)"
    if state == "unreadable":
        return "unreadable: set it again"
    if state == "no-session":
        return "none (no session)"
    return "none"


def _session_row(session: str | None) -> str:
    if session is None:
        return "none (no $GFH_SESSION, nor a host's session id)"
    adapter, sep, ident = session.partition(":")
    if sep and len(ident) > 4:
        return f"{adapter}:{ident[:4]}…"
    return session


def _pad(text: str, width: int) -> str:
    return text + " " * max(0, width - display_width(text))


def _split_at(word: str, columns: int) -> tuple[str, str]:
    used = 0
    for i, ch in enumerate(word):
        w = display_width(ch)
        if used + w > columns:
            return word[: max(i, 1)], word[max(i, 1) :]
        used += w
    return word, ""


def _truncate(text: str, columns: int) -> str:
    head, _ = _split_at(text, max(1, columns - 1))
    return head + "…"
