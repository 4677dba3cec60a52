from __future__ import annotations

import datetime as dt
from collections.abc import Callable
from pathlib import Path

import pytest

from gitflow_harness import git
from gitflow_harness.errors import GfhError, UsageError
from gitflow_harness.learning import edits
from gitflow_harness.learning.lint import check_pills
from gitflow_harness.learning.pills import load_catalog
from gitflow_harness.store.config import default_config
from tests.helpers import git as run_git
from tests.learning.conftest import pill_text

PutPill = Callable[..., Path]
TODAY = dt.date(2026, 11, 30)


def only_pill(repo: Path) -> edits.Pill:
    [pill] = load_catalog(repo, "pills").pills
    return pill


def test_bump_changes_only_its_two_lines_byte_for_byte(repo: Path) -> None:
    original = (
        "\ufeff"
        + pill_text(occurrences="2  # counted by hand", last_seen="'2026-11-02'").replace(
            "\n", "\r\n"
        )
    ).encode()
    path = repo / "pills" / "implementer" / "parser.md"
    path.parent.mkdir(parents=True)
    path.write_bytes(original)
    done = edits.bump(git.discover(repo), only_pill(repo), on=TODAY, today=TODAY)
    assert (done.occurrences, done.last_seen) == (3, TODAY)
    expected = original.replace(b"occurrences: 2  #", b"occurrences: 3  #").replace(
        b"last_seen: '2026-11-02'", b"last_seen: 2026-11-30"
    )
    assert path.read_bytes() == expected


def test_bump_across_a_digit_boundary_keeps_every_other_byte(repo: Path, put_pill: PutPill) -> None:
    """If the second edit reused the first edit's offsets, `last_seen` would land mid-line."""
    path = put_pill(occurrences="9", last_seen="2026-11-02")
    before = path.read_bytes()
    edits.bump(git.discover(repo), only_pill(repo), on=TODAY, today=TODAY)
    assert path.read_bytes() == before.replace(b"occurrences: 9", b"occurrences: 10").replace(
        b"last_seen: 2026-11-02", b"last_seen: 2026-11-30"
    )


def test_bump_with_an_older_date_counts_but_keeps_last_seen(repo: Path, put_pill: PutPill) -> None:
    path = put_pill(last_seen="2026-11-20")
    before = path.read_text()
    done = edits.bump(git.discover(repo), only_pill(repo), on=dt.date(2026, 11, 5), today=TODAY)
    assert (done.occurrences, done.last_seen) == (2, dt.date(2026, 11, 20))
    assert path.read_text() == before.replace("occurrences: 1", "occurrences: 2")


def test_concurrent_bumps_each_count(repo: Path, put_pill: PutPill) -> None:
    """If a bump read the file outside the lock, two bumps could write the same count."""
    import threading

    put_pill(occurrences="1")
    pill = only_pill(repo)
    handle = git.discover(repo)
    barrier = threading.Barrier(8)
    steps: list[tuple[int, int]] = []

    def one() -> None:
        barrier.wait()
        done = edits.bump(handle, pill, on=TODAY, today=TODAY)
        steps.append((done.was, done.occurrences))

    threads = [threading.Thread(target=one) for _ in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert only_pill(repo).occurrences == 9
    # Each bump reports the step it made, read under the lock: 1->2, 2->3, ... 8->9.
    assert sorted(steps) == [(n, n + 1) for n in range(1, 9)]


@pytest.mark.parametrize(
    ("on", "message"),
    [
        (dt.date(2026, 12, 1), "is in the future"),
        (dt.date(2026, 10, 1), "is before the pill's date 2026-11-01"),
    ],
)
def test_bump_refuses_impossible_dates(
    repo: Path, put_pill: PutPill, on: dt.date, message: str
) -> None:
    path = put_pill()
    before = path.read_bytes()
    with pytest.raises(UsageError, match=message):
        edits.bump(git.discover(repo), only_pill(repo), on=on, today=TODAY)
    assert path.read_bytes() == before


def test_new_writes_a_template_the_check_refuses_until_it_is_written(repo: Path) -> None:
    """If `gfh pills new` wrote the template and nobody filled it in, then `pills check` says
    the lesson has no text (an empty template used to pass); once written, it passes."""
    catalog = load_catalog(repo, "pills")
    path = edits.new_pill(
        catalog, repo, "implementer", "crlf", trigger="  editing\n the parser ", today=TODAY
    )
    assert path == repo / "pills" / "implementer" / "crlf.md"
    _, problems = check_pills(git.discover(repo), default_config().paths.pills, today=TODAY)
    assert [(p.severity, p.message.split(":")[0]) for p in problems] == [
        ("error", "the lesson has no text yet")
    ]
    text = path.read_text()
    for section in ("What went wrong", "Rule", "Why"):
        text = text.replace(f"## {section}\n", f"## {section}\n\nWritten.\n", 1)
    path.write_text(text)
    _, problems = check_pills(git.discover(repo), default_config().paths.pills, today=TODAY)
    assert [(p.severity, p.message) for p in problems] == [
        ("note", "section(s) '## How to apply' left empty")
    ]
    pill = only_pill(repo)
    assert (pill.id, pill.applies_to, pill.trigger, pill.occurrences) == (
        "implementer-crlf",
        ("implementer",),
        "editing the parser",
        1,
    )
    assert (pill.date, pill.last_seen) == (TODAY, TODAY)
    assert "&id" not in path.read_text()  # no YAML alias between the two dates


def test_new_under_a_frozen_clock_writes_plain_dates(repo: Path) -> None:
    """If YAML could not represent freezegun's dates, frozen tests would crash or pass by luck."""
    from freezegun import freeze_time

    with freeze_time("2026-11-30T12:00:00Z"):
        path = edits.new_pill(
            load_catalog(repo, "pills"),
            repo,
            "implementer",
            "x",
            trigger="t",
            today=dt.date.today(),
        )
    text = path.read_text()
    assert "date: 2026-11-30\nlast_seen: 2026-11-30\n" in text


def test_new_shared_pill_needs_its_roles(repo: Path) -> None:
    catalog = load_catalog(repo, "pills")
    with pytest.raises(UsageError, match="--applies-to"):
        edits.new_pill(catalog, repo, "shared", "x", trigger="t", today=TODAY)
    path = edits.new_pill(
        catalog, repo, "shared", "x", trigger="t", applies_to=("a", "b"), today=TODAY
    )
    assert only_pill(repo).applies_to == ("a", "b")
    assert path.parent.name == "shared"


@pytest.mark.parametrize(
    ("role", "slug", "message"),
    [
        ("retired", "x", "not a role name"),
        ("bad/role", "x", "not a role name"),
        ("implementer", "-x", "not a slug"),
    ],
)
def test_new_refuses_bad_names(repo: Path, role: str, slug: str, message: str) -> None:
    with pytest.raises(UsageError, match=message):
        edits.new_pill(load_catalog(repo, "pills"), repo, role, slug, trigger="t", today=TODAY)


def test_new_never_overwrites_and_knows_retired_pills(repo: Path, put_pill: PutPill) -> None:
    path = put_pill(under="retired", status="retired")
    before = path.read_bytes()
    with pytest.raises(GfhError, match="already holds pill implementer/parser"):
        edits.new_pill(
            load_catalog(repo, "pills"), repo, "implementer", "parser", trigger="t", today=TODAY
        )
    assert path.read_bytes() == before
    assert not (repo / "pills" / "implementer" / "parser.md").exists()


def test_tidy_moves_tracked_pills_with_git_mv_and_untracked_by_rename(
    repo: Path, put_pill: PutPill
) -> None:
    put_pill("implementer/tracked", status="retired")
    run_git(repo, "add", "-A")
    run_git(repo, "commit", "-q", "-m", "pills")
    put_pill("implementer/loose", status="retired")
    put_pill("reviewer/back", under="retired", applies_to="[reviewer]")  # active again
    put_pill("implementer/stays")
    moves = edits.apply_moves(
        git.discover(repo), repo, edits.tidy_plan(load_catalog(repo, "pills"))
    )
    assert sorted((m.source, m.destination, m.with_git) for m in moves) == [
        ("pills/implementer/loose.md", "pills/retired/implementer/loose.md", False),
        ("pills/implementer/tracked.md", "pills/retired/implementer/tracked.md", True),
        ("pills/retired/reviewer/back.md", "pills/reviewer/back.md", False),
    ]
    status = run_git(repo, "status", "--porcelain")
    assert "R  pills/implementer/tracked.md -> pills/retired/implementer/tracked.md" in status
    assert (repo / "pills/implementer/stays.md").exists()
    assert not (repo / "pills/retired/reviewer").exists()  # the emptied folder went too
    assert edits.tidy_plan(load_catalog(repo, "pills")) == []


def test_tidy_refuses_to_move_over_an_existing_file(repo: Path, put_pill: PutPill) -> None:
    put_pill(status="retired")
    target = repo / "pills/retired/implementer/parser.md"
    target.parent.mkdir(parents=True)
    target.write_text("someone else's\n")
    plan = edits.tidy_plan(load_catalog(repo, "pills"))
    with pytest.raises(GfhError, match="already exists"):
        edits.apply_moves(git.discover(repo), repo, plan)
    assert target.read_text() == "someone else's\n"
