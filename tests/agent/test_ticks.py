"""Tick sources: context positions read from transcript tails, kept monotonic across compaction."""

from __future__ import annotations

import builtins
import itertools
import json
import os
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from gitflow_harness.agent import ticks
from gitflow_harness.hookcall import session as sessions
from gitflow_harness.store import tail
from tests.agent import kit

FIXTURE = kit.TRANSCRIPTS / "claude-session.jsonl"


def test_the_fixture_transcript_yields_its_documented_positions(tmp_path: Path) -> None:
    """Read after each line is written: 18000 (msg_01, two lines), 24500 (msg_02), unchanged by
    the sidechain and API-error lines, 31000 (msg_03), unknown after the boundary, 9000."""
    path = tmp_path / "t.jsonl"
    seen = []
    with open(path, "w") as out:
        for line in FIXTURE.read_text().splitlines(keepends=True):
            out.write(line)
            out.flush()
            position = ticks.claude_position(path)
            seen.append((position.tokens, position.boundary))
    assert seen == [
        (None, None),
        (18000, None),
        (18000, None),
        (24500, None),
        (24500, None),
        (24500, None),
        (31000, None),
        (None, ticks._id("cb1")),
        (9000, None),
    ]


def test_the_tick_is_monotonic_across_the_compaction(tmp_path: Path) -> None:
    path = tmp_path / "t.jsonl"
    state: dict[str, Any] = {}
    found = []
    with open(path, "w") as out:
        for line in FIXTURE.read_text().splitlines(keepends=True):
            out.write(line)
            out.flush()
            compacted = ticks.observe(state, ticks.claude_position(path))
            found.append((ticks.token_tick(state), compacted))
    assert found == [
        (0, False),
        (18000, False),
        (18000, False),
        (24500, False),
        (24500, False),
        (24500, False),
        (31000, False),
        (31000, True),  # the boundary: a compaction, the position unknown for now
        # The drop belongs to that same compaction: the tick carries on from 31000 (offset
        # 31000 - 9000), so fires made just before the new context's first response are not
        # aged by the summary and system prompt it starts with.
        (31000, False),
    ]


def test_a_drop_alone_is_a_compaction() -> None:
    state: dict[str, Any] = {}
    assert not ticks.observe(state, ticks.Position(50000, message="m1"))
    assert ticks.observe(state, ticks.Position(12000, message="m2"))
    assert ticks.token_tick(state) == 50000  # carried on from where it stood
    assert not ticks.observe(state, ticks.Position(15000, message="m3"))
    assert ticks.token_tick(state) == 53000  # and grows with the new context


def test_a_signalled_compaction_is_not_counted_again_by_its_drop() -> None:
    state: dict[str, Any] = {}
    ticks.observe(state, ticks.Position(50000, message="m1"))
    sessions.compact(state)
    assert sessions.epoch(state) == 1
    assert not ticks.observe(state, ticks.Position(None, boundary="b1"))
    assert not ticks.observe(state, ticks.Position(8000, message="m2"))
    assert ticks.token_tick(state) == 50000
    assert ticks.observe(state, ticks.Position(3000, message="m3"))  # a later, new compaction


def test_a_signal_without_a_drop_does_not_swallow_the_next_compaction() -> None:
    state: dict[str, Any] = {}
    ticks.observe(state, ticks.Position(20000, message="m1"))
    sessions.compact(state)
    ticks.observe(state, ticks.Position(30000, message="m2"))  # grew: nothing was compacted
    assert ticks.observe(state, ticks.Position(5000, message="m3"))


class _Reads:
    count = 0


@pytest.fixture
def bytes_read(monkeypatch: pytest.MonkeyPatch) -> _Reads:
    """Count the bytes the transcript reader reads, through every file it opens."""
    seen = _Reads()
    real_open = builtins.open

    class Counting:
        def __init__(self, fh: Any) -> None:
            self.fh = fh

        def __enter__(self) -> Counting:
            return self

        def __exit__(self, *exc: object) -> None:
            self.fh.close()

        def read(self, n: int = -1) -> bytes:
            data = self.fh.read(n)
            seen.count += len(data)
            return data  # type: ignore[no-any-return]

        def __getattr__(self, name: str) -> Any:
            return getattr(self.fh, name)

    monkeypatch.setattr(tail, "open", lambda *a, **k: Counting(real_open(*a, **k)), raising=False)
    return seen


def test_the_transcript_is_read_from_its_end(tmp_path: Path, bytes_read: _Reads) -> None:
    """If the transcript holds megabytes before its last assistant line, then reading the
    position reads a few blocks from the end, not the file."""
    path = tmp_path / "t.jsonl"
    user = json.dumps({"type": "user", "message": {"content": "x" * 1000}}) + "\n"
    with open(path, "w") as out:
        out.write(user * 8000)  # ~8 MB
        out.write(kit.transcript_line("msg_last", 123456))
        out.write(user * 3)
    assert ticks.claude_position(path).tokens == 123456
    assert bytes_read.count <= 2 * tail.BLOCK


def test_sidechain_and_api_error_lines_are_skipped(tmp_path: Path) -> None:
    path = tmp_path / "t.jsonl"
    path.write_text(
        kit.transcript_line("m1", 1000)
        + kit.transcript_line("m2", 99999, isSidechain=True)
        + kit.transcript_line("m3", 88888, isApiErrorMessage=True)
        + '{"type": "assistant", "message": {"id": "m4", "usage": {"input_tokens": "x"}}}\n'
        + '{"type":"assistant","isSidechain":false,"message":{"id":"m5"'  # torn: being written
    )
    assert ticks.claude_position(path).tokens == 1000


def test_a_position_too_far_back_is_unknown(tmp_path: Path) -> None:
    path = tmp_path / "t.jsonl"
    path.write_text(kit.transcript_line("m1", 1000) + "x" * 5000 + "\n")
    assert ticks.claude_position(path, max_bytes=4096).tokens is None
    assert ticks.claude_position(path).tokens == 1000


def _rollout(*lines: dict[str, Any]) -> str:
    return "".join(json.dumps(line) + "\n" for line in lines)


def _count(tokens: int | None, at: str) -> dict[str, Any]:
    info = None
    if tokens is not None:
        usage = {"input_tokens": tokens, "cached_input_tokens": 0, "output_tokens": 9}
        info = {"total_token_usage": usage, "last_token_usage": usage, "model_context_window": 1}
    return {"timestamp": at, "type": "event_msg", "payload": {"type": "token_count", "info": info}}


def test_a_last_line_longer_than_the_budget_is_not_read_past_it(
    tmp_path: Path, bytes_read: _Reads
) -> None:
    """If the transcript ends with one line longer than the budget (a base64 image), then
    reading stops at the budget inside it and the position is unknown."""
    path = tmp_path / "t.jsonl"
    with open(path, "w") as out:
        out.write(kit.transcript_line("m1", 1000))
        out.write('{"type": "user", "image": "' + "A" * (3 * 1024 * 1024) + '"}\n')
    for reader in (ticks.claude_position, ticks.codex_position):
        bytes_read.count = 0
        assert reader(path, max_bytes=1024 * 1024).tokens is None
        assert bytes_read.count == 1024 * 1024


def test_codex_rollout_token_count_is_the_position(tmp_path: Path) -> None:
    path = tmp_path / "rollout.jsonl"
    path.write_text(
        _rollout(
            {"timestamp": "t0", "type": "session_meta", "payload": {}},
            _count(5000, "t1"),
            _count(7000, "t2"),
            _count(None, "t3"),  # no info yet: not a position
            {"timestamp": "t4", "type": "response_item", "payload": {"type": "message"}},
        )
    )
    position = ticks.codex_position(path)
    assert (position.tokens, position.message) == (7000, ticks._id("t2"))
    with open(path, "a") as out:
        out.write(_rollout({"timestamp": "t5", "type": "compacted", "payload": {"message": ""}}))
    assert ticks.codex_position(path).boundary == ticks._id("t5")


def test_a_transcript_line_nested_past_the_stack_is_skipped(tmp_path: Path) -> None:
    """If the host's transcript holds a line nested deeper than Python can parse, then the
    position comes from the other lines, not a RecursionError."""
    path = tmp_path / "t.jsonl"
    good = FIXTURE.read_text().splitlines(keepends=True)[:2]
    deep = '{"type": "assistant", "x": ' + "[" * 5000 + "]" * 5000 + "}\n"
    path.write_text("".join(good) + deep)
    assert ticks.claude_position(path).tokens == 18000


def test_a_tail_of_subagent_lines_is_passed_over_unparsed(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """If a subagent's lines fill the transcript's tail, then they are told apart by their
    top-level `"isSidechain":true` and never parsed; the main chain's last line gives the
    position, and a main-chain line whose nested content names the key is parsed as ever."""
    parsed: list[bytes] = []
    real = ticks._json

    def counting(raw: bytes) -> object:
        parsed.append(raw)
        return real(raw)

    monkeypatch.setattr(ticks, "_json", counting)
    compact = json.dumps(
        {"parentUuid": None, "isSidechain": True, "type": "assistant", "message": {"id": "s"}},
        separators=(",", ":"),
    )
    usage = {"input_tokens": 2000, "cache_creation_input_tokens": 0, "cache_read_input_tokens": 0}
    content = [{"type": "tool_use", "input": {"isSidechain": True}}]
    nested = (
        json.dumps(
            {"type": "assistant", "message": {"id": "m2", "content": content, "usage": usage}}
        )
        + "\n"
    )
    path = tmp_path / "t.jsonl"
    path.write_text(
        kit.transcript_line("m1", 1000)
        + nested
        + kit.transcript_line("sub", 99999, isSidechain=True) * 50
        + (compact + "\n") * 50
    )
    assert ticks.claude_position(path).tokens == 2000
    assert len(parsed) == 1
    path.write_text(kit.transcript_line("m1", 1000) + (compact + "\n") * 3)
    parsed.clear()
    assert ticks.claude_position(path).tokens == 1000
    assert len(parsed) == 1


def _backward(path: Path, max_bytes: int) -> tuple[int | None, str | None, str | None]:
    """The position as read back from the end line by line: the reading the cursor replaces,
    written out as it was, so the two can be compared on any transcript."""
    scanned = 0
    for raw in tail.reverse_lines(path, max_bytes=max_bytes):
        scanned += len(raw) + 1
        if b"compact_boundary" not in raw and (b'"assistant"' not in raw or ticks._sidechain(raw)):
            continue
        obj = ticks._json(raw)
        if obj is None:
            continue
        if obj.get("type") == "system" and obj.get("subtype") == "compact_boundary":
            return None, None, ticks._id(obj.get("uuid")) or f"@{scanned}"
        if obj.get("type") != "assistant" or obj.get("isSidechain") or obj.get("isApiErrorMessage"):
            continue
        message = obj.get("message")
        if not isinstance(message, dict):
            continue
        tokens = ticks._usage(message.get("usage"))
        if tokens is not None:
            return tokens, ticks._id(message.get("id")), None
    return None, None, None


_POOL = [
    kit.transcript_line("m1", 1000),
    kit.transcript_line("m2", 2000),
    kit.transcript_line("m2", 2000),
    kit.transcript_line("s1", 9000, isSidechain=True),
    kit.transcript_line("e1", 7000, isApiErrorMessage=True),
    kit.boundary_line("b1"),
    kit.boundary_line("b2"),
    '{"type": "system", "subtype": "compact_boundary"}\n',  # a boundary without an id
    json.dumps({"type": "user", "message": {"content": "x" * 300}}) + "\n",
    '{"type": "assistant", "isSidechain": false, "message": {"id": "t"\n',  # torn
    "\n",
]


@settings(max_examples=150, deadline=None)
@given(
    st.lists(st.integers(min_value=0, max_value=len(_POOL) - 1), min_size=1, max_size=30),
    st.lists(st.integers(min_value=1, max_value=400), min_size=1, max_size=30),
    st.lists(st.sampled_from(["append", "append", "append", "replace", "rewrite", "shrink"])),
    st.sampled_from([ticks.MAX_SCAN_BYTES, 700, 1500]),
)
def test_reading_on_from_the_cursor_gives_the_backward_reading(
    tmp_path_factory: pytest.TempPathFactory,
    picks: list[int],
    chunks: list[int],
    actions: list[str],
    max_bytes: int,
) -> None:
    """If a transcript grows in chunks that cut lines anywhere (a compaction boundary, torn and
    sidechain lines among them), and is now and then replaced by another file, rewritten in
    place or cut short, then the position read on from the cursor after each change is the
    one a read back from the end gives. (A file cut short and grown again to the same bytes
    before the cursor's offset, with no call in between, is the one change it cannot tell.)"""
    path = tmp_path_factory.mktemp("cursor") / "t.jsonl"
    data = "".join(_POOL[i] for i in picks).encode()
    path.write_bytes(b"")
    cursor: object = None
    written = 0
    steps = iter(actions)

    def check() -> object:
        position, cursor = ticks.read_position(path, "claude", previous, max_bytes=max_bytes)
        expected = _backward(path, max_bytes)
        assert (position.tokens, position.message, position.boundary) == expected
        return cursor

    for size in itertools.cycle(chunks):
        if written >= len(data):
            break
        action = next(steps, "append")
        if action == "replace":  # a new file in the old one's place
            fresh = path.with_suffix(".new")
            fresh.write_bytes(data[:written][::-1])
            os.replace(fresh, path)
        elif action == "rewrite":  # the same file, other bytes
            with open(path, "r+b") as fh:
                fh.write(data[:written][::-1])
        elif action == "shrink":
            written //= 2
            with open(path, "r+b") as fh:
                fh.truncate(written)
        if action != "append":
            previous = cursor
            cursor = check()
        with open(path, "ab") as out:
            out.write(data[written : written + size])
        written += size
        previous = cursor
        cursor = check()


def test_a_grown_transcript_is_read_from_the_cursor_on(tmp_path: Path, bytes_read: _Reads) -> None:
    """If the session read its transcript before, then the next call reads what was appended
    since (and enough to tell it is the same file), not the file back to its last position
    line, however far that is."""
    path = tmp_path / "t.jsonl"
    sub = kit.transcript_line("sub", 99999, isSidechain=True)
    path.write_text(kit.transcript_line("m1", 1000) + sub * 2000)
    position, cursor = ticks.read_position(path, "claude", None)
    assert position.tokens == 1000
    assert bytes_read.count > len(sub) * 1999
    bytes_read.count = 0
    with open(path, "a") as out:
        out.write(sub * 3)
    position, cursor = ticks.read_position(path, "claude", cursor)
    assert position.tokens == 1000
    # What was appended, the newline before it, and the position line it still starts from.
    assert bytes_read.count == len(sub) * 3 + 1 + 4096
    with open(path, "a") as out:
        out.write(kit.transcript_line("m2", 2500))
    assert ticks.read_position(path, "claude", cursor)[0].tokens == 2500
    assert isinstance(cursor, dict)
    assert set(cursor) == {"dev", "ino", "at", "line", "tokens", "message", "boundary"}
    assert cursor["message"] == ticks._id("m1")  # ids hashed, as in the rest of the state


BROKEN = [("line", "x"), ("at", -1), ("line", 1), ("tokens", 5), ("at", 3)]


def test_a_cursor_that_does_not_parse_is_read_past(tmp_path: Path) -> None:
    """If the state's cursor was edited into nonsense, or says what the file does not hold (no
    line ends at its offset, its position line is elsewhere or gives another position), then
    the transcript is read back."""
    path = tmp_path / "t.jsonl"
    path.write_text(kit.transcript_line("m1", 1000))
    _, cursor = ticks.read_position(path, "claude", None)
    assert isinstance(cursor, dict)
    broken_ones = [{**cursor, key: value} for key, value in BROKEN] + [[1]]
    for broken in broken_ones:
        assert ticks.read_position(path, "claude", broken)[0].tokens == 1000


def test_a_codex_rollout_is_read_on_from_the_cursor(tmp_path: Path) -> None:
    path = tmp_path / "rollout.jsonl"
    path.write_text(_rollout(_count(5000, "t1")))
    position, cursor = ticks.read_position(path, "codex", None)
    assert position.tokens == 5000
    with open(path, "a") as out:
        out.write(_rollout(_count(6000, "t2"), {"timestamp": "t3", "type": "compacted"}))
    position, cursor = ticks.read_position(path, "codex", cursor)
    assert position.boundary == ticks._id("t3")
    assert ticks.read_position(path, "codex", cursor)[0].boundary == ticks._id("t3")
