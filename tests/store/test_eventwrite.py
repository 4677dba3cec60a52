"""The write half of the event log: ids, timestamps and lines exactly as the envelope says."""

from __future__ import annotations

import json
import uuid
from pathlib import Path

import pytest
from freezegun import freeze_time

from gitflow_harness.store.events import EventLog, parse_at
from gitflow_harness.store.eventwrite import (
    EventTooLarge,
    append_event,
    append_event_at,
    encode_line,
    envelope,
    log_file,
    new_id,
    now_at,
)
from tests.helpers import unmeasured_env


def test_ids_are_random_version_4_uuids_in_hex() -> None:
    ids = {new_id() for _ in range(1000)}
    assert len(ids) == 1000
    for value in list(ids)[:50]:
        parsed = uuid.UUID(hex=value)
        assert (parsed.version, parsed.variant) == (4, uuid.RFC_4122)
        assert parsed.hex == value


def test_now_at_is_rfc3339_utc_with_milliseconds() -> None:
    with freeze_time("2026-11-30T09:15:02.123999Z"):
        assert now_at() == "2026-11-30T09:15:02.123Z"
    with freeze_time("2026-01-01T00:00:00Z"):
        assert now_at() == "2026-01-01T00:00:00.000Z"
        assert parse_at(now_at()).isoformat() == "2026-01-01T00:00:00+00:00"


def test_appended_events_are_read_back_by_the_reader(tmp_path: Path) -> None:
    written = append_event(
        tmp_path,
        "tool.requested",
        {"tool": "Edit", "phase": "post"},
        surface="hook",
        session="claude:s",
        branch="main",
    )
    [event] = EventLog(tmp_path).read()
    assert event.to_dict() == written


def test_unknown_surfaces_and_oversized_lines_are_refused(tmp_path: Path) -> None:
    with pytest.raises(ValueError, match="surface"):
        envelope("x", {}, surface="tty", session=None, branch=None)
    with pytest.raises(EventTooLarge):
        encode_line(envelope("x", {"b": "x" * 20000}, surface="hook", session=None, branch=None))
    line = encode_line(envelope("x", {"t": "é"}, surface="hook", session=None, branch=None))
    assert json.loads(line)["data"] == {"t": "é"}
    assert line.endswith(b"\n")
    assert line.count(b"\n") == 1


# -- what stands where the log should be ------------------------------------------------------


def _month_file(common: Path) -> Path:
    from gitflow_harness.store.eventwrite import log_directory, now_at

    return log_directory(common) / f"{now_at()[:7]}.jsonl"


def test_a_log_file_planted_as_a_symlink_is_refused_and_its_target_untouched(
    tmp_path: Path,
) -> None:
    """If the month's log file is a symlink to another file, then an append refuses it: the
    target gets no line and keeps its mode."""
    from gitflow_harness.store.eventwrite import LogWriteError

    victim = tmp_path / "victim"
    victim.write_text("precious\n")
    victim.chmod(0o644)
    month = _month_file(tmp_path)
    month.parent.mkdir(parents=True)
    month.symlink_to(victim)
    with pytest.raises(LogWriteError, match="is a symlink; gfh appends only to a real file"):
        append_event(tmp_path, "verb", {}, surface="cli", session=None, branch=None)
    assert victim.read_text() == "precious\n"
    assert (victim.stat().st_mode & 0o777) == 0o644


@pytest.mark.parametrize("which", ["gitflow-harness", "gitflow-harness/events"])
def test_a_log_directory_planted_as_a_symlink_is_refused(tmp_path: Path, which: str) -> None:
    from gitflow_harness.store.eventwrite import LogWriteError

    elsewhere = tmp_path / "elsewhere"
    (elsewhere / "events").mkdir(parents=True)
    common = tmp_path / "common"
    planted = common / which
    planted.parent.mkdir(parents=True, exist_ok=True)
    planted.symlink_to(elsewhere if which == "gitflow-harness" else elsewhere / "events")
    with pytest.raises(LogWriteError, match="is a symlink"):
        append_event(common, "verb", {}, surface="cli", session=None, branch=None)
    assert list(elsewhere.rglob("*.jsonl")) == []


def test_a_lock_file_planted_as_a_symlink_is_refused(tmp_path: Path) -> None:
    from gitflow_harness.store.eventwrite import LogWriteError, log_directory

    victim = tmp_path / "victim"
    victim.write_text("")
    log_directory(tmp_path).mkdir(parents=True)
    (log_directory(tmp_path) / ".lock").symlink_to(victim)
    with pytest.raises(LogWriteError):
        append_event(tmp_path, "verb", {}, surface="cli", session=None, branch=None)


# -- a full disk --------------------------------------------------------------------------------

_FSIZE_APPEND = """
import os, resource, signal, sys
from pathlib import Path
from gitflow_harness.store.eventwrite import LogWriteError, append_line
signal.signal(signal.SIGXFSZ, signal.SIG_IGN)  # a write past the limit fails, not the process
directory, at, limit = Path(sys.argv[1]), sys.argv[2], int(sys.argv[3])
resource.setrlimit(resource.RLIMIT_FSIZE, (limit, limit))
try:
    append_line(directory, at, b'{"big": "' + b"x" * 4000 + b'"}\\n')
except LogWriteError as exc:
    print(exc.message)
    sys.exit(3)
"""


def test_an_append_that_hits_the_file_size_limit_leaves_the_log_as_it_was(
    tmp_path: Path,
) -> None:
    """If the file system takes only part of a line (here RLIMIT_FSIZE, as a full disk would),
    then the part that landed is taken back and the writer gets gfh's one-line error."""
    import subprocess
    import sys

    from gitflow_harness.store.eventwrite import append_line, log_directory

    directory = log_directory(tmp_path)
    at = "2026-11-30T09:15:02.123Z"
    first = b'{"first": 1}\n'
    append_line(directory, at, first)
    path = directory / "2026-11.jsonl"
    limit = len(first) + 100  # room for part of the next line only
    proc = subprocess.run(
        [sys.executable, "-c", _FSIZE_APPEND, str(directory), at, str(limit)],
        capture_output=True,
        text=True,
        # Not measured: under the size limit, coverage could write only a torn data file.
        env=unmeasured_env(),
    )
    assert proc.returncode == 3, proc.stderr
    assert proc.stdout.startswith(f"cannot write the event log in {directory}: only 100 of 4012")
    assert "the log was left as it was: free some space" in proc.stdout
    assert path.read_bytes() == first


def test_a_short_write_is_taken_back(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    import os

    from gitflow_harness.store import eventwrite

    directory = eventwrite.log_directory(tmp_path)
    at = "2026-11-30T09:15:02.123Z"
    eventwrite.append_line(directory, at, b'{"first": 1}\n')
    real_write = os.write

    def short(fd: int, data: bytes) -> int:
        return real_write(fd, data[:5])

    monkeypatch.setattr(eventwrite.os, "write", short)
    with pytest.raises(eventwrite.LogWriteError, match="only 5 of 14 bytes"):
        eventwrite.append_line(directory, at, b'{"second": 2}\n')
    assert (directory / "2026-11.jsonl").read_bytes() == b'{"first": 1}\n'


def test_an_append_says_where_its_line_starts(tmp_path: Path) -> None:
    """If an event is appended, then the offset it returns is where its line starts in its
    monthly file, past the newline that ends a torn line a killed writer left."""
    _, at = append_event_at(tmp_path, "x", {}, surface="hook", session=None, branch=None)
    assert at == 0
    path = EventLog(tmp_path).files()[0]
    with open(path, "ab") as fh:
        fh.write(b'{"torn')
    second, at = append_event_at(tmp_path, "y", {}, surface="hook", session=None, branch=None)
    assert path.name == log_file(second["at"])
    assert json.loads(path.read_bytes()[at:])["id"] == second["id"]
    assert path.read_bytes()[at - 1 : at] == b"\n"


def test_a_lone_surrogate_is_written_as_the_replacement_character() -> None:
    # What `json.loads` makes of a payload's "\ud800", and `os` of a name that is not UTF-8.
    obj = envelope(
        "hook.error",
        {"error": json.loads('"bad \\ud800 name"'), "file": "caf\udce9", "kept": "café ✓"},
        surface="hook",
        session=None,
        branch="caf\udce9",
    )
    line = encode_line(obj)
    decoded = json.loads(line.decode("utf-8"))  # strict: the line is valid UTF-8
    assert decoded["branch"] == "caf\ufffd"
    assert decoded["data"] == {"error": "bad \ufffd name", "file": "caf\ufffd", "kept": "café ✓"}
    assert "café ✓".encode() in line  # the rest is written as it was, not escaped
