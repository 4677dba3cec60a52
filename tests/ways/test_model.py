from __future__ import annotations

import marshal
from pathlib import Path

import pytest

from gitflow_harness.firing import ActionPotential
from gitflow_harness.ways.index import reparse
from gitflow_harness.ways.model import Lanes, Way, _sieve, read_body
from gitflow_harness.ways.parse import parse_way_file
from tests.ways.conftest import write_way


def test_read_body_drops_the_bom_and_frontmatter(ways_root: Path) -> None:
    path = ways_root / "a" / "a.md"
    path.parent.mkdir()
    path.write_bytes("\ufeff---\r\ndescription: A\r\n---\r\n# Title\r\n".encode())
    way = Way(
        id="a", file=str(path), description="A", lanes=Lanes(), curve=ActionPotential(1, 1, 0, 1)
    )
    assert read_body(way) == "# Title\r\n"


def test_a_way_survives_the_cache_payload_through_marshal(ways_root: Path) -> None:
    path = write_way(
        ways_root,
        "a",
        "description: Ünïcode\nwhen:\n  prompt: 'deploy|ship'\n  files: ['*.py']\n"
        "  session_start: true\ncurve:\n  type: ProgressiveStaircase\n"
        "  steps: [[0, 1.0], [9, 0.25]]\n"
        "axis: turns\nscope: [subagent]\nroles: [reviewer]\nmacro: append\n",
    )
    way, _ = parse_way_file(str(path), "a", has_postcheck=True)
    assert way is not None
    payload = marshal.loads(marshal.dumps(way.to_payload()))
    again = Way.from_payload(
        payload, id="a", file=str(path), has_macro=False, has_postcheck=True, repair=reparse
    )
    assert again == way
    assert again.sieve() == way.sieve() == [["deploy", "ship"], [], [""]]
    assert way.sieve() is way.sieve()  # a parsed way works its sieve out once
    assert way.to_payload()[2] is way.sieve()  # its payload too, and the match after it
    assert way.sieve() == _sieve(way.lanes)
    assert again.trigger_names() == ("prompt", "files", "session_start", "postcheck", "roles")
    fresh = Way.from_payload(
        payload, id="a", file=str(path), has_macro=False, has_postcheck=True, repair=reparse
    )
    assert fresh.session_start is True
    assert fresh._lanes is None  # read from the entry, the lanes left undecoded
    assert way.session_start is fresh.lanes.session_start is True


def test_a_damaged_payload_is_parsed_again_from_its_file(ways_root: Path) -> None:
    path = write_way(
        ways_root,
        "a",
        "description: A\nwhen: {keywords: [x]}\ncurve: {type: Flat, suppression: 7}\n",
    )
    assert damaged(path).session_start is False  # from the lanes parsed again
    broken = damaged(path)
    assert broken.sieve() == [0, [["x", "x"]], []]  # from the lanes parsed again
    assert broken.lanes.keywords == ("x",)
    assert broken.curve.to_dict() == {"type": "Flat", "suppression": 7}


def damaged(path: Path) -> Way:
    """A cached way of `path` whose payload is damaged: decoding it repairs from the file."""
    return Way.from_payload(
        [b"not marshal", "not json", "not a sieve", "not a bool"],
        id="a",
        file=str(path),
        has_macro=False,
        has_postcheck=False,
        repair=reparse,
    )


def test_a_damaged_payload_whose_file_is_broken_names_the_file(ways_root: Path) -> None:
    path = write_way(ways_root, "a", "description: A\n")  # no `when`, no curve: not a way
    broken = damaged(path)
    with pytest.raises(ValueError, match=str(path)):
        broken.lanes  # noqa: B018 - reading it decodes it


def test_ways_are_immutable(ways_root: Path) -> None:
    way = Way(
        id="a", file="/a.md", description="A", lanes=Lanes(), curve=ActionPotential(1, 1, 0, 1)
    )
    with pytest.raises(AttributeError, match="immutable"):
        way.id = "b"  # type: ignore[misc]


def test_a_cached_way_is_matched_on_its_sieve_without_decoding_its_lanes(ways_root: Path) -> None:
    """If a way comes from a cache payload, then its sieve and `session_start` are read from
    the payload as they are, and its lanes (an opaque value) are decoded only when asked for."""
    path = write_way(
        ways_root,
        "a",
        "description: A\nwhen:\n  prompt: 'deploy'\n  commands: 'make\\s+ship'\n"
        "curve: {type: Flat, suppression: 7}\n",
    )
    way, _ = parse_way_file(str(path), "a")
    assert way is not None
    payload = way.to_payload()
    assert type(payload[0]) is bytes
    cached = Way.from_payload(
        payload, id="a", file=str(path), has_macro=False, has_postcheck=False, repair=reparse
    )
    assert (cached.sieve(), cached.session_start) == (way.sieve(), False)
    assert cached._lanes is None
    assert cached.lanes == way.lanes
    assert cached.lanes.commands == r"make\s+ship"
