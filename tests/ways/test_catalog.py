from __future__ import annotations

from pathlib import Path

import pytest

from gitflow_harness.errors import GfhError, UsageError
from gitflow_harness.store.events import make_event
from gitflow_harness.ways.catalog import count_events, find, parse_ticks
from gitflow_harness.ways.index import load_index
from tests.ways.conftest import EXP, write_way

WAY = "description: D\nwhen: {keywords: [x]}\n" + EXP


@pytest.fixture
def index(ways_root: Path, tmp_path: Path) -> object:
    for way_id in ("git/commits", "git/branches", "code/commits-style", "docs"):
        write_way(ways_root, way_id, WAY)
    write_way(ways_root, "broken", "description: D\n")
    return load_index(ways_root, use_cache=False)


def test_find_by_exact_id_prefix_or_last_segment(index: object) -> None:
    assert find(index, "git/commits").id == "git/commits"  # type: ignore[arg-type]
    assert find(index, "git/br").id == "git/branches"  # type: ignore[arg-type]
    assert find(index, "docs/").id == "docs"  # type: ignore[arg-type]
    assert find(index, "branches").id == "git/branches"  # type: ignore[arg-type]


def test_a_prefix_of_the_last_segment_names_the_way(index: object) -> None:
    """If `gfh ways show bran` is asked (the help says a unique prefix works), then the way
    whose name starts so is found, though its id starts with its folder."""
    assert find(index, "bran").id == "git/branches"  # type: ignore[arg-type]
    assert find(index, "commits").id == "git/commits"  # exact name beats commits-style
    with pytest.raises(UsageError, match="several ways \\(code/commits-style, git/commits\\)"):
        find(index, "commit")  # type: ignore[arg-type]


def test_an_ambiguous_query_lists_the_candidates(index: object) -> None:
    with pytest.raises(UsageError, match="several ways \\(git/branches, git/commits\\)"):
        find(index, "git")  # type: ignore[arg-type]


def test_an_unknown_id_is_a_usage_error_and_a_broken_way_shows_its_problem(
    index: object,
) -> None:
    with pytest.raises(UsageError, match="no way 'nope'"):
        find(index, "nope")  # type: ignore[arg-type]
    with pytest.raises(GfhError, match="missing required field 'curve'") as info:
        find(index, "broken")  # type: ignore[arg-type]
    assert info.value.exit_code == 1


def test_count_events_counts_fires_and_suppressions_by_reason() -> None:
    def ev(kind: str, way: object, reason: str | None = None) -> object:
        data: dict[str, object] = {"way": way, "tick": 1}
        if reason:
            data["reason"] = reason
        return make_event(kind, data, surface="hook", session="s", branch="main")

    counts = count_events(
        [
            ev("way.fired", "a"),
            ev("way.fired", "a"),
            ev("way.suppressed", "a", "salience"),
            ev("way.suppressed", "a", "budget"),
            ev("way.suppressed", "b", "salience"),
            ev("way.fired", 5),
            ev("verb", "a"),
        ]  # type: ignore[list-item]
    )
    assert (counts["a"].fired, counts["a"].suppressed) == (2, 2)
    assert dict(counts["a"].reasons) == {"salience": 1, "budget": 1}
    assert (counts["b"].fired, counts["b"].suppressed) == (0, 1)
    assert set(counts) == {"a", "b"}


def test_parse_ticks_reads_ticks_magnitudes_and_ranges() -> None:
    assert parse_ticks("0, 61,1000:2", 1.0) == [(0, 1.0), (61, 1.0), (1000, 2.0)]
    assert parse_ticks("0..10/5:3", 1.5) == [(0, 3.0), (5, 3.0), (10, 3.0)]
    assert parse_ticks("7..7", 1.0) == [(7, 1.0)]


@pytest.mark.parametrize("spec", ["", ",", "x", "5..1", "1..9/0", "-1", "3:0", "3:-2", "1.5"])
def test_parse_ticks_refuses_what_it_cannot_read(spec: str) -> None:
    with pytest.raises(UsageError, match="--ticks"):
        parse_ticks(spec, 1.0)
