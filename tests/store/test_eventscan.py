from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from gitflow_harness.store import eventscan
from gitflow_harness.store.events import TYPES, Event, EventLog, ReadStats

ENVELOPE = (
    b'{"schema":1,"id":"i","at":"2026-01-02T03:04:05.006Z","type":"%s","surface":"cli",'
    b'"session":null,"branch":"main","data":%s}\n'
)
# Lines the decoder might judge otherwise than the standard library, each beside a line of the
# same shape the decoder takes: the scan must count each as `EventLog.read` does.
LINES = [
    ENVELOPE % (b"verb", b'{"n":1}'),
    ENVELOPE % (b"tool.requested", b'{"n":2}'),
    ENVELOPE % (b"tool.requested", b'{"s":"\xff"}'),  # not UTF-8 in data left unparsed: torn
    ENVELOPE % (b"verb", b'{"s":"\xff"}'),  # the same in data that is parsed
    ENVELOPE % (b"tool.requested", b'{"s":"caf\xc3\xa9"}'),  # UTF-8, not ASCII: an event
    ENVELOPE % (b"tool.requested", b"[1]"),  # data not an object: foreign
    ENVELOPE % (b"verb", b"[1]"),
    ENVELOPE % (b"tool.requested", b'{"x":NaN}'),  # NaN: the standard library reads it
    ENVELOPE % (b"verb", b'{"x":NaN}'),
    ENVELOPE % (b"tool.requested", b'{"s":"\\ud800"}'),  # a lone surrogate, escaped
    ENVELOPE % (b"tool.requested", b'{"a":1,}'),  # torn
    ENVELOPE % (b"tool.requested", b"[" * 1500 + b"]" * 1500),  # nested past the parsers
    ENVELOPE % (b"tool.requested", b"[" * 900 + b"]" * 900),  # not quite
    ENVELOPE % (b"verb", b'{"a":' + b"[" * 900 + b"]" * 900 + b"}"),
    ENVELOPE % (b"tool.requested", b'{"pad":"' + b"x" * 20_000 + b'"}'),  # over the limit
    ENVELOPE.replace(b'"schema":1', b'"schema":true') % (b"verb", b"{}"),
    ENVELOPE.replace(b'"schema":1', b'"schema":1.0') % (b"verb", b"{}"),
    ENVELOPE.replace(b'"cli"', b'"tty"') % (b"verb", b"{}"),
    ENVELOPE.replace(b'"session":null', b'"session":7') % (b"verb", b"{}"),
    ENVELOPE.replace(b'"id":"i",', b"") % (b"verb", b"{}"),
    ENVELOPE.replace(b'"id":"i"', b'"id":"i","extra":"\xff"') % (b"tool.requested", b"{}"),
    ENVELOPE.replace(b'"id":"i"', b'"id":"i","id":"j"') % (b"verb", b"{}"),  # the last wins
    ENVELOPE.replace(b'"schema":1', b'"schema":2,"schema":1') % (b"verb", b"{}"),
    b"\xef\xbb\xbf" + ENVELOPE % (b"verb", b"{}"),  # a byte-order mark
    b"[1, 2]\n",
    b"\n",
    b'{"schema":1,"id":"abc","at":"2026-\n',
    ENVELOPE[:-1] % (b"verb", b'{"last":true}'),  # no newline at the end of the file
]


def test_the_scan_counts_every_line_as_the_reader_does(tmp_path: Path) -> None:
    """If a line is one the fast decoder could misjudge, then the scan counts it (event,
    foreign, torn) as `EventLog.read` does, and yields the same events in the same order."""
    log = EventLog(tmp_path)
    log.directory.mkdir(parents=True)
    (log.directory / "2026-01.jsonl").write_bytes(b"".join(LINES))
    read_stats, scan_stats = ReadStats(), ReadStats()
    read = list(log.read(stats=read_stats))
    scanned = [
        ev
        for chunk in eventscan.scan(log, stats=scan_stats, reads_data=lambda kind: kind == "verb")
        for ev in chunk
    ]
    counts = [(f.events, f.foreign, f.torn) for f in read_stats.files]
    assert [(f.events, f.foreign, f.torn) for f in scan_stats.files] == counts
    # The file has foreign and torn lines of every kind the decoder could misjudge.
    assert counts[0][1] > 3
    assert counts[0][2] > 3
    assert [ev[:6] for ev in scanned] == [ev[:6] for ev in read]
    # Data is parsed where it is read (NaN compares unequal to itself: compared as text).
    assert [repr(ev.data) for ev in scanned if ev.type == "verb"] == [
        repr(ev.data) for ev in read if ev.type == "verb"
    ]
    assert scanned[1].data == {}  # left unparsed: no reader asked for it
    assert all(type(ev) is Event for ev in scanned)


@pytest.mark.parametrize("odd", range(len(LINES)))
def test_a_chunk_with_one_odd_line_is_counted_as_the_reader_does(tmp_path: Path, odd: int) -> None:
    """If one line a chunk's decoding in C might misjudge sits among well-formed lines of every
    type, then the chunk's events and counts are still those of `EventLog.read`."""
    log = EventLog(tmp_path)
    log.directory.mkdir(parents=True)
    good = [ENVELOPE % (kind.encode(), b'{"n":[1,{"k":null}]}') for kind in TYPES]
    body = b"".join(good) + LINES[odd] + (b"" if LINES[odd].endswith(b"\n") else b"\n")
    (log.directory / "2026-01.jsonl").write_bytes(body + b"".join(good))
    read_stats, scan_stats = ReadStats(), ReadStats()
    read = list(log.read(stats=read_stats))
    reads = {"verb", "way.fired"}
    chunks = eventscan.scan(log, stats=scan_stats, reads_data=reads.__contains__)
    scanned = [ev for chunk in chunks for ev in chunk]
    assert [(f.events, f.foreign, f.torn) for f in scan_stats.files] == [
        (f.events, f.foreign, f.torn) for f in read_stats.files
    ]
    assert [ev[:6] for ev in scanned] == [ev[:6] for ev in read]
    # Data is parsed where it is read (NaN compares unequal to itself: compared as text).
    assert [repr(ev.data) for ev in scanned if ev.type in reads] == [
        repr(ev.data) for ev in read if ev.type in reads
    ]


def test_well_formed_lines_of_every_type_are_decoded_a_chunk_at_a_time(tmp_path: Path) -> None:
    """If every line is an ASCII envelope of a listed type, the chunk is decoded whole: the
    line-at-a-time reading is never needed."""
    log = EventLog(tmp_path)
    log.directory.mkdir(parents=True)
    lines = [ENVELOPE % (kind.encode(), b'{"n":[1,{"k":null}]}') for kind in TYPES] * 50
    (log.directory / "2026-01.jsonl").write_bytes(b"".join(lines))
    calls = []
    real = eventscan._events

    def one_at_a_time(*args: Any) -> Any:
        calls.append(args)
        return real(*args)

    stats = ReadStats()
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(eventscan, "_events", one_at_a_time)
        scanned = [
            ev for chunk in eventscan.scan(log, stats=stats, reads_data=bool) for ev in chunk
        ]
    assert calls == []
    assert [ev[:6] for ev in scanned] == [ev[:6] for ev in log.read()]
    assert all(ev.data == {"n": [1, {"k": None}]} for ev in scanned)


def test_the_scan_skips_months_before_since_and_events_before_it(tmp_path: Path) -> None:
    log = EventLog(tmp_path)
    log.directory.mkdir(parents=True)
    for month in ("2026-01", "2026-02"):
        lines = [
            ENVELOPE.replace(b"2026-01-02", f"{month}-{day:02d}".encode()) % (b"verb", b"{}")
            for day in (1, 20)
        ]
        (log.directory / f"{month}.jsonl").write_bytes(b"".join(lines))
    stats = ReadStats()
    chunks = eventscan.scan(log, stats=stats, reads_data=lambda kind: True, since="2026-02-10")
    assert [ev.at[:10] for chunk in chunks for ev in chunk] == ["2026-02-20"]
    assert [f.path.name for f in stats.files] == ["2026-02.jsonl"]
    assert [ev.at[:10] for ev in log.read(since="2026-02-10")] == ["2026-02-20"]
