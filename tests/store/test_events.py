from __future__ import annotations

import json
import os
import signal
import stat
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import pytest
from freezegun import freeze_time

from gitflow_harness.errors import GfhError
from gitflow_harness.store.events import (
    FOREIGN,
    MAX_LINE_BYTES,
    TORN,
    Event,
    EventLog,
    EventTooLarge,
    ReadStats,
    classify,
    make_event,
)


@pytest.fixture
def log(tmp_path: Path) -> EventLog:
    return EventLog(tmp_path / "common")


def test_envelope_has_exactly_the_documented_fields(log: EventLog) -> None:
    with freeze_time("2026-11-30T09:15:02.123456Z"):
        log.record(
            "turn.started",
            {"turn": 1, "stop_remediation": False},
            surface="hook",
            branch="main",
            session="claude:abc",
        )
    [path] = log.files()
    assert path.name == "2026-11.jsonl"
    raw = json.loads(path.read_text())
    assert list(raw) == ["schema", "id", "at", "type", "surface", "session", "branch", "data"]
    assert raw["schema"] == 1
    assert raw["at"] == "2026-11-30T09:15:02.123Z"
    assert len(raw["id"]) == 32
    assert int(raw["id"], 16) >= 0
    assert raw["session"] == "claude:abc"


def test_session_comes_from_env_and_is_null_when_unset(
    log: EventLog, monkeypatch: pytest.MonkeyPatch
) -> None:
    log.record("verb", {}, surface="cli", branch="main")
    monkeypatch.setenv("GFH_SESSION", "cursor:c-1")
    log.record("verb", {}, surface="cli", branch="main")
    first, second = log.read()
    assert first.session is None
    assert second.session == "cursor:c-1"


def test_events_go_to_the_file_of_their_month(log: EventLog) -> None:
    for at in ("2026-10-31T23:59:59.999Z", "2026-11-01T00:00:00.000Z"):
        log.append(make_event("verb", {}, surface="cli", session=None, branch=None, at=at))
    assert [p.name for p in log.files()] == ["2026-10.jsonl", "2026-11.jsonl"]
    assert [e.at[:7] for e in log.read()] == ["2026-10", "2026-11"]
    assert [e.at[:7] for e in log.read(since="2026-11-01")] == ["2026-11"]


def test_a_log_never_written_has_no_files_but_an_unreadable_one_raises(log: EventLog) -> None:
    """If nothing was ever logged the log is empty; if its place holds something that is not a
    directory, reading it fails rather than looking empty."""
    assert log.files() == []
    assert list(log.read()) == []
    log.directory.parent.mkdir(parents=True)
    log.directory.write_text("not a directory\n")
    with pytest.raises(NotADirectoryError):
        log.files()
    with pytest.raises(GfhError, match=r"cannot read the event log at .*: Not a directory"):
        list(log.read())


def test_files_and_dirs_are_owner_only_even_with_umask_022(log: EventLog) -> None:
    old = os.umask(0o022)
    try:
        log.record("verb", {}, surface="cli", branch=None)
    finally:
        os.umask(old)
    for path in (log.directory, log.directory.parent):
        assert stat.S_IMODE(path.stat().st_mode) == 0o700
    for path in log.directory.iterdir():
        assert stat.S_IMODE(path.stat().st_mode) == 0o600, path


def test_a_line_over_16_kib_is_refused_not_truncated(log: EventLog) -> None:
    with pytest.raises(EventTooLarge, match="16384-byte"):
        log.record("verb", {"blob": "x" * MAX_LINE_BYTES}, surface="cli", branch=None)
    assert list(log.read()) == []


def test_reader_classifies_event_foreign_and_torn_lines(log: EventLog) -> None:
    log.record("verb", {"n": 1}, surface="cli", branch="main")
    path = log.files()[0]
    with open(path, "ab") as fh:
        fh.write(b'{"schema": 2, "id": "x"}\n')  # another schema
        fh.write(b"[1, 2]\n")  # JSON, not an object
        fh.write(b'{"schema": 1, "id": "x"}\n')  # our schema, wrong shape
        fh.write(
            b'{"schema": true, "id": "x", "at": "", "type": "", "surface": "cli", '
            b'"session": null, "branch": null, "data": {}}\n'
        )
        fh.write(
            b'{"schema": 1, "id": "a", "at": "t", "type": "verb", "surface": "tty", '
            b'"session": null, "branch": null, "data": {}}\n'
        )
        fh.write(b'{"schema":1,"id":"abc","at":"2026-\n')  # torn
        fh.write(b"\xff\xfe not utf-8\n")  # torn
    log.record("verb", {"n": 2}, surface="cli", branch="main")
    stats = ReadStats()
    events = list(log.read(stats=stats))
    assert [e.data["n"] for e in events] == [1, 2]
    assert (stats.events, stats.foreign, stats.torn) == (2, 5, 2)


def test_classify_kinds() -> None:
    good = make_event("verb", {}, surface="git", session=None, branch="HEAD")
    line = json.dumps(good.to_dict()).encode()
    assert isinstance(classify(line), Event)
    assert classify(b"not json") is TORN
    assert classify(b'"a string"') is FOREIGN


def test_append_after_a_torn_tail_starts_on_a_fresh_line(log: EventLog) -> None:
    log.record("verb", {"n": 1}, surface="cli", branch=None)
    path = log.files()[0]
    with open(path, "ab") as fh:
        fh.write(b'{"schema":1,"id":"half')
    log.record("verb", {"n": 2}, surface="cli", branch=None)
    stats = ReadStats()
    assert [e.data["n"] for e in log.read(stats=stats)] == [1, 2]
    assert stats.torn == 1


def test_tail_reads_the_latest_events_across_files(log: EventLog) -> None:
    for month in ("2026-09", "2026-10", "2026-11"):
        for i in range(3):
            at = f"{month}-0{i + 1}T00:00:00.000Z"
            log.append(
                make_event(
                    "verb", {"i": f"{month}/{i}"}, surface="cli", session=None, branch=None, at=at
                )
            )
    with open(log.files()[-1], "ab") as fh:
        fh.write(b"torn tail")
    assert [e.data["i"] for e in log.tail(4)] == [
        "2026-10/2",
        "2026-11/0",
        "2026-11/1",
        "2026-11/2",
    ]
    assert len(log.tail(100)) == 9
    assert log.tail(0) == []


_WRITER = textwrap.dedent(
    """
    import sys
    from pathlib import Path
    from gitflow_harness.store.events import EventLog
    log = EventLog(Path(sys.argv[1]))
    count = int(sys.argv[2])
    for i in range(count):
        log.record("verb", {"writer": sys.argv[3], "i": i, "pad": "p" * (i % 7) * 100},
                   surface="cli", branch="main")
    """
)


@pytest.mark.slow
def test_64_concurrent_writers_lose_and_tear_nothing(tmp_path: Path) -> None:
    common = tmp_path / "common"
    procs = [
        subprocess.Popen([sys.executable, "-c", _WRITER, str(common), "50", str(w)])
        for w in range(64)
    ]
    assert [p.wait(timeout=300) for p in procs] == [0] * 64
    stats = ReadStats()
    events = list(EventLog(common).read(stats=stats))
    assert (len(events), stats.foreign, stats.torn) == (3200, 0, 0)
    seen = {(e.data["writer"], e.data["i"]) for e in events}
    assert len(seen) == 3200
    assert len({e.id for e in events}) == 3200


@pytest.mark.slow
def test_a_writer_killed_mid_loop_tears_at_most_one_line(tmp_path: Path) -> None:
    common = tmp_path / "common"
    loop = _WRITER.replace("range(count)", '__import__("itertools").count()')  # forever
    proc = subprocess.Popen([sys.executable, "-c", loop, str(common), "0", "k"])
    log = EventLog(common)
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        files = log.files()
        if files and files[0].stat().st_size > 200_000:
            break
        time.sleep(0.01)
    proc.send_signal(signal.SIGKILL)
    proc.wait()
    stats = ReadStats()
    events = list(log.read(stats=stats))
    assert stats.torn <= 1
    assert stats.foreign == 0
    assert [e.data["i"] for e in events] == list(range(len(events)))
    log.record("verb", {"after": True}, surface="cli", branch=None)
    assert log.tail(1)[0].data == {"after": True}
    stats2 = ReadStats()
    assert len(list(log.read(stats=stats2))) == len(events) + 1
    assert stats2.torn == stats.torn


def test_a_surface_that_is_a_list_or_an_object_is_foreign_not_fatal(log: EventLog) -> None:
    log.record("verb", {"n": 1}, surface="cli", branch=None)
    with open(log.files()[0], "ab") as fh:
        for surface in (b"[]", b'{"a":1}', b'["cli"]'):
            fh.write(
                b'{"schema":1,"id":"a","at":"t","type":"verb","surface":' + surface
                + b',"session":null,"branch":null,"data":{}}\n'
            )  # fmt: skip
    stats = ReadStats()
    assert [e.data["n"] for e in log.read(stats=stats)] == [1]
    assert (stats.events, stats.foreign, stats.torn) == (1, 3, 0)


def test_a_reader_that_stops_early_has_the_lines_it_read_counted(log: EventLog) -> None:
    for n in range(3):
        log.record("verb", {"n": n}, surface="cli", branch=None)
    with open(log.files()[0], "ab") as fh:
        fh.write(b"torn\n")
    stats = ReadStats()
    reading = log.read(stats=stats)
    assert next(reading).data["n"] == 0
    reading.close()
    assert (stats.events, stats.foreign, stats.torn) == (1, 0, 0)
    assert [f.events for f in log.verify()] == [3]


def test_deeply_nested_or_oversized_lines_are_foreign_not_fatal(log: EventLog) -> None:
    """If another tool writes a line nested deeper than the parser follows, or longer than gfh
    ever writes, then readers count it and go on."""
    log.record("verb", {"n": 1}, surface="cli", branch=None)
    with open(log.files()[0], "ab") as fh:
        fh.write(b'{"a":' * 1200 + b"1" + b"}" * 1200 + b"\n")
        fh.write(b'{"pad": "' + b"x" * (MAX_LINE_BYTES + 10) + b'"}\n')
    log.record("verb", {"n": 2}, surface="cli", branch=None)
    stats = ReadStats()
    assert [e.data["n"] for e in log.read(stats=stats)] == [1, 2]
    assert (stats.foreign, stats.torn) == (2, 0)
    assert [e.data["n"] for e in log.tail(5)] == [1, 2]


def test_an_unwritable_log_is_a_clear_error(tmp_path: Path) -> None:
    common = tmp_path / "common"
    (common / "gitflow-harness").mkdir(parents=True)
    (common / "gitflow-harness" / "events").write_text("not a directory\n")
    from gitflow_harness.store.eventwrite import LogWriteError

    with pytest.raises(LogWriteError, match=r"cannot write the event log in .*events: "):
        EventLog(common).record("verb", {}, surface="cli", branch=None)


def test_lines_the_fast_parser_refuses_are_judged_by_the_standard_library(log: EventLog) -> None:
    """If orjson refuses a line `json.loads` accepts (a NaN, a lone surrogate), the reader still
    counts the event, as `classify` does; a torn line stays torn."""
    log.record("verb", {"x": 1, "s": "a"}, surface="cli", branch="main", session="s")
    [path] = log.files()
    line = path.read_bytes().replace(b'"x":1', b'"x":NaN').replace(b'"a"', b'"\\ud800"')
    path.write_bytes(line + line[:30] + b"\n")
    stats = ReadStats()
    [event] = list(log.read(stats=stats))
    assert event.data["x"] != event.data["x"]  # NaN
    assert event.data["s"] == "\ud800"
    assert (stats.events, stats.foreign, stats.torn) == (1, 0, 1)
    assert type(classify(line)) is Event


def test_reading_back_one_session_parses_only_the_lines_that_name_it(
    log: EventLog, monkeypatch: pytest.MonkeyPatch
) -> None:
    """If other sessions wrote most of the log, then reading one session back parses its own
    lines and passes every other line unparsed, those that quote its id in their data too."""
    from gitflow_harness.store import events as events_module

    def add(session: str | None, **data: object) -> None:
        log.append(make_event("x", dict(data), surface="hook", session=session, branch=None))

    add("claude:a", n=1)
    for i in range(40):
        add("cursor:busy", i=i)
    add("cursor:busy", mentions="claude:a")  # quotes the id, not as its session: counted
    add(None, i=99)
    add("claude:a", n=2)
    with open(log.files()[-1], "ab") as fh:
        fh.write(b"torn tail")
    parsed: list[bytes] = []
    real = events_module.classify

    def counting(raw: bytes) -> object:
        parsed.append(raw)
        return real(raw)

    monkeypatch.setattr(events_module, "classify", counting)
    assert [ev.data.get("n") for ev in log.reverse_of("claude:a") if ev] == [2, 1]
    assert len(parsed) == 2
    data = log.files()[-1].read_bytes()
    first = data.rfind(b"\n", 0, data.index(b'"n":1')) + 1  # where the line of n=1 starts

    def within(reach: int) -> list[object]:
        return [ev.data.get("n") if ev else None for ev in log.reverse_of("claude:a", reach=reach)]

    assert within(len(data)) == [2, 1]  # the whole file within reach: as without one
    assert first == 0  # the file's first line: nothing older to leave unread
    assert within(len(data) - first) == [2, 1]  # its start just within reach
    assert within(len(data) - first - 1) == [2, None]  # just out of it: the read says so


@pytest.mark.parametrize("session", ["claude:a", "codex:é-ü", "cursor:x y", "claude:a/b"])
def test_every_line_of_a_session_holds_its_needle(log: EventLog, session: str) -> None:
    """If an event of `session` is written, then its line holds what the session's readers
    search for, whatever else the envelope carries: no event of the session is passed over."""
    from gitflow_harness.store.events import _session_needle

    log.append(make_event("x", {"session": "other"}, surface="git", session=session, branch="b"))
    [line] = log.files()[-1].read_bytes().splitlines()
    needle = _session_needle(session)
    assert needle
    assert needle in line
    assert [e.session for e in log.reverse_of(session) if e] == [session]


def test_reading_back_a_session_whose_id_json_escapes_parses_every_line(log: EventLog) -> None:
    session = 'claude:"odd"'
    log.append(make_event("x", {}, surface="hook", session=session, branch=None))
    log.append(make_event("x", {}, surface="hook", session="other", branch=None))
    assert [e and e.session for e in log.reverse_of(session)] == [session]
