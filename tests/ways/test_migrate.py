from __future__ import annotations

from pathlib import Path

import pytest

from gitflow_harness.errors import GfhError
from gitflow_harness.ways import migrate
from gitflow_harness.ways.index import scan
from gitflow_harness.ways.parse import parse_way_file
from tests.ways.conftest import EXP, write_way


def _files(root: Path) -> list[Path]:
    return [Path(f.file) for f in scan(root)]


def _apply_all(root: Path, default: int = 30000) -> list[str]:
    plans, problems = migrate.plan(_files(root), default)
    assert problems == []
    for plan in plans:
        migrate.apply(plan)
    return [p.change for p in plans]


def test_redisclose_becomes_an_exponential_curve_on_its_own_line(ways_root: Path) -> None:
    path = write_way(
        ways_root,
        "a",
        "description: A\nredisclose: 15  # turns between reminders\nwhen: {keywords: [x]}\n",
        body="redisclose: 15 in the body stays\n",
    )
    before = path.read_text()
    assert _apply_all(ways_root) == [
        "redisclose: 15 -> curve: {type: Exponential, half_life: 30000}"
    ]
    assert path.read_text() == before.replace(
        "redisclose: 15  #", "curve: {type: Exponential, half_life: 30000}  #", 1
    )
    way, problems = parse_way_file(str(path), "a")
    assert problems == []
    assert way is not None


def test_a_way_without_a_curve_gets_the_default_after_its_description(ways_root: Path) -> None:
    path = write_way(ways_root, "a", "when: {keywords: [x]}\ndescription: A\nx-k: 1\n")
    _apply_all(ways_root, default=12345)
    assert path.read_text() == (
        "---\nwhen: {keywords: [x]}\ndescription: A\n"
        "curve: {type: Exponential, half_life: 12345}\nx-k: 1\n---\nBody text.\n"
    )


def test_redisclose_beside_a_curve_is_removed(ways_root: Path) -> None:
    path = write_way(ways_root, "a", "description: A\n" + EXP + "redisclose: 4\n")
    assert _apply_all(ways_root) == ["removed redisclose (the way already declares a curve)"]
    assert path.read_text() == "---\ndescription: A\n" + EXP + "---\nBody text.\n"


def test_migrate_twice_is_migrate_once_and_keeps_crlf_and_bom(ways_root: Path) -> None:
    a = ways_root / "a" / "a.md"
    a.parent.mkdir()
    a.write_bytes(b"\xef\xbb\xbf---\r\ndescription: A\r\nredisclose: 2.5\r\n---\r\nBody\r\n")
    b = write_way(ways_root, "b", "description: B\n")
    c = write_way(ways_root, "c", "description: C\n" + EXP)
    _apply_all(ways_root)
    once = {p: p.read_bytes() for p in (a, b, c)}
    assert once[a] == (
        b"\xef\xbb\xbf---\r\ndescription: A\r\n"
        b"curve: {type: Exponential, half_life: 5000}\r\n---\r\nBody\r\n"
    )
    assert _apply_all(ways_root) == []
    assert {p: p.read_bytes() for p in (a, b, c)} == once


@pytest.mark.parametrize("value", ["0", "-3", "soon", "true"])
def test_an_unusable_redisclose_is_a_problem_and_the_file_is_left_alone(
    ways_root: Path, value: str
) -> None:
    path = write_way(ways_root, "a", f"description: A\nredisclose: {value}\n")
    plans, problems = migrate.plan(_files(ways_root), 30000)
    assert plans == []
    assert [(p.line, p.severity) for p in problems] == [(3, "error")]
    assert "replace it with a curve by hand" in problems[0].message
    assert path.read_text() == f"---\ndescription: A\nredisclose: {value}\n---\nBody text.\n"


def test_apply_refuses_a_file_changed_since_the_plan(ways_root: Path) -> None:
    path = write_way(ways_root, "a", "description: A\n")
    (plan,), _ = migrate.plan(_files(ways_root), 30000)
    path.write_text(path.read_text() + "more\n")
    with pytest.raises(GfhError, match="changed since it was read"):
        migrate.apply(plan)
    assert "curve" not in path.read_text()


def test_the_plan_shows_a_unified_diff(ways_root: Path) -> None:
    write_way(ways_root, "a", "description: A\nredisclose: 1\n")
    (plan,), _ = migrate.plan(_files(ways_root), 30000)
    lines = plan.diff("a/a.md").splitlines()
    assert lines[:2] == ["--- a/a/a.md", "+++ b/a/a.md"]
    assert [line for line in lines[3:] if line[:1] in "+-"] == [
        "-redisclose: 1",
        "+curve: {type: Exponential, half_life: 2000}",
    ]
