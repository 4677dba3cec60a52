from __future__ import annotations

from typing import Any

import pytest

from gitflow_harness.ritual.box import (
    MAX_WIDTH,
    NARROW,
    clean_text,
    display_width,
    render_box,
    status_box,
    wrap,
)

EXAMPLE_ROWS = [
    ("branch", "feature/parser · 2 behind main · 1 ahead"),
    ("tree", "clean"),
    ("gate", "red for this tree"),
    ("task", "fix the frontmatter parser"),
    ("session", "claude:8f3a…"),
]
EXAMPLE = [
    "┌─ gfh · feature/parser ─────────────────────────────┐",
    "│ branch   feature/parser · 2 behind main · 1 ahead  │",
    "│ tree     clean                                     │",
    "│ gate     red for this tree                         │",
    "│ task     fix the frontmatter parser                │",
    "│ session  claude:8f3a…                              │",
    "└────────────────────────────────────────────────────┘",
]


def widths(box: str) -> set[int]:
    return {display_width(line) for line in box.splitlines()}


def test_renders_the_documented_box() -> None:
    assert render_box("feature/parser", EXAMPLE_ROWS).splitlines() == EXAMPLE


def test_frame_is_rectangular_and_starts_with_the_detection_signal() -> None:
    box = render_box("feature/parser", EXAMPLE_ROWS)
    lines = box.splitlines()
    assert lines[0].startswith("┌─ gfh")
    assert lines[-1].startswith("└")
    assert lines[-1].endswith("┘")
    assert all(line.startswith("│ ") and line.endswith(" │") for line in lines[1:-1])
    assert len(widths(box)) == 1


def rows(box: str, key_width: int) -> dict[str, list[str]]:
    """The value pieces of each row: continuation rows belong to the key above them."""
    found: dict[str, list[str]] = {}
    key = ""
    for line in box.splitlines()[1:-1]:
        cell = line[2:-3]
        key = cell[:key_width].strip() or key
        found.setdefault(key, []).append(cell[key_width:].rstrip())
    return found


def test_long_values_wrap_within_100_columns_keeping_every_word() -> None:
    task = " ".join(f"word{i}" for i in range(60))
    path = "/very/long/" + "x" * 150
    box = render_box("feature/a-very-long-branch-name", [("task", task), ("where", path)])
    assert widths(box) == {MAX_WIDTH}
    found = rows(box, key_width=len("where") + 2)
    assert len(found["task"]) > 1
    assert " ".join(found["task"]) == task
    assert len(found["where"]) > 1
    assert "".join(found["where"]) == path


def test_the_box_s_own_characters_take_the_columns_unicodedata_gives_them() -> None:
    """If a character the box measures without `unicodedata` were combining, invisible or
    wide, then its lines would not line up."""
    import unicodedata

    for ch in NARROW:
        assert not ch.isascii()
        assert not unicodedata.combining(ch)
        assert unicodedata.category(ch) not in ("Mn", "Me", "Cf")
        assert unicodedata.east_asian_width(ch) not in ("W", "F")
    assert display_width("a · b") == 5
    assert display_width("· 漢") == 4  # a wide character among them still counts two


def test_wide_characters_count_two_columns() -> None:
    assert display_width("漢字") == 4
    assert display_width("e\u0301") == 1
    box = render_box("b", [("task", "漢字" * 60)])
    assert widths(box) == {MAX_WIDTH}


def test_control_characters_and_escapes_never_reach_the_terminal() -> None:
    assert clean_text("a\nb\x1b[31mred\x1b[0m\tc") == "a b red c"
    box = render_box("x", [("task", "line one\nline two")])
    assert "line one line two" in box


def test_a_long_title_is_cut_with_an_ellipsis() -> None:
    box = render_box("b" * 200, [("k", "v")])
    first = box.splitlines()[0]
    assert first.startswith("┌─ gfh · bbb")
    assert "…" in first
    assert display_width(first) == MAX_WIDTH


@pytest.mark.parametrize(("text", "width"), [("", 10), ("one", 10), ("a b c d e f", 3)])
def test_wrap_never_exceeds_width(text: str, width: int) -> None:
    lines = wrap(text, width)
    assert all(display_width(line) <= width for line in lines)
    assert " ".join(lines).split() == text.split()


def status_data(**over: Any) -> dict[str, Any]:
    data: dict[str, Any] = {
        "location": "worktree",
        "top": "/w/repo.worktrees/feature-parser",
        "branch": "feature/parser",
        "head": "a" * 40,
        "trunk": "main",
        "on_trunk": False,
        "changes": [],
        "ahead": 1,
        "behind": 2,
        "operation": None,
        "gate": "red",
        "receipt": False,
        "task": {"state": "set", "text": "fix the frontmatter parser"},
        "session": "claude:8f3a91bc",
    }
    data.update(over)
    return data


def test_status_box_rows_from_status_data() -> None:
    """The rows are exactly branch, tree, gate, task and session, in that order (docs/workflow.md);
    where the branch is checked out is in
    the title, and its path only in the --json data."""
    box = status_box(status_data())
    assert box.splitlines()[0].startswith("┌─ gfh · feature/parser · worktree ─")
    assert "│ branch   feature/parser · 2 behind main · 1 ahead" in box
    assert "│ gate     red for this tree" in box
    assert "│ task     fix the frontmatter parser" in box
    assert "│ session  claude:8f3a…" in box
    assert list(rows(box, key_width=len("session") + 2)) == [
        "branch", "tree", "gate", "task", "session",
    ]  # fmt: skip
    assert "/w/repo.worktrees" not in box


def test_the_title_says_main_checkout_in_the_main_checkout() -> None:
    box = status_box(status_data(location="main", branch="main", on_trunk=True))
    assert box.splitlines()[0].startswith("┌─ gfh · main · main checkout ─")
    assert status_box(status_data(branch=None)).splitlines()[0].startswith("┌─ gfh · HEAD · ")


@pytest.mark.parametrize(
    ("over", "expected"),
    [
        ({"branch": None}, "HEAD detached at aaaaaaa"),
        ({"head": None}, "feature/parser · no commits yet"),
        ({"behind": None, "ahead": None}, "unknown (shallow clone"),
        ({"on_trunk": True, "branch": "main"}, "main · the trunk"),
        ({"trunk": None}, "no trunk found (set [repository] trunk)"),
        (
            {"trunk": None, "trunk_missing": {"name": "nope", "source": ".gitflow-harness.toml:2"}},
            "feature/parser · trunk 'nope' (from .gitflow-harness.toml:2) has no local branch",
        ),
        ({"gate": None}, "not judged for this tree"),
        ({"gate": "green", "receipt": True}, "green for this tree · ready for gfh accept"),
        (
            {"gate": "green", "receipt": True, "changes": [{"xy": ".M", "path": "a.py"}]},
            "green for this tree · commit it as it is, then gfh accept",
        ),
        ({"task": {"state": "set", "text": ""}}, "(empty: a conversational turn)"),
        (
            {"task": {"state": "no-session", "text": None}, "session": None},
            "none (no $GFH_SESSION, nor a host's session id)",
        ),
        ({"changes": [{"xy": "??", "path": f"f{i}"} for i in range(7)]}, "7 changed: f0, f1"),
        ({"operation": "merge"}, "merge in progress"),
    ],
)
def test_status_box_states(over: dict[str, Any], expected: str) -> None:
    box = status_box(status_data(**over))
    flat = " ".join(line[2:-2].strip() for line in box.splitlines()[1:-1])
    assert expected in " ".join(flat.split())


@pytest.mark.parametrize(
    "over",
    [
        {"changes": [{"xy": "??", "path": "src/__pycache__/calc.pyc"}]},
        {"on_trunk": True, "branch": "main"},
        {"branch": None},
        {"trunk": None},
        {"operation": "merge"},
    ],
    ids=["dirty", "on-trunk", "detached", "no-trunk", "operation"],
)
def test_ready_for_accept_only_where_accept_would_run(over: dict[str, Any]) -> None:
    """If `accept` would refuse (a dirty tree, the trunk itself, a detached HEAD, no trunk, an
    unfinished operation), the box does not call the tree ready for it."""
    box = status_box(status_data(gate="green", receipt=True, **over))
    assert "ready for gfh accept" not in box
    assert "green for this tree" in box
