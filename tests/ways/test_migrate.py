from __future__ import annotations

import subprocess
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


@pytest.mark.parametrize(
    ("frontmatter", "after", "change"),
    [
        (
            "when: {keywords: [x]}\ncurve: {type: Exponential, half_life: 3, redisclose: 3}\n",
            "when: {keywords: [x]}\ncurve: {type: Exponential, half_life: 3}\n",
            "removed redisclose from inside `curve:`",
        ),
        (
            "when:\n  keywords: [x]\n  redisclose: 2  # old\n" + EXP,
            "when:\n  keywords: [x]\n" + EXP,
            "removed redisclose from inside `when:`",
        ),
        (
            "when: {redisclose: 2, keywords: [x]}\n",
            "curve: {type: Exponential, half_life: 4000}\nwhen: {keywords: [x]}\n",
            "removed redisclose from inside `when:`; redisclose: 2 -> curve: {type: "
            "Exponential, half_life: 4000}",
        ),
        (
            "when: {keywords: [x]}\ncurve:\n  redisclose: 4\n",
            "when: {keywords: [x]}\ncurve: {type: Exponential, half_life: 8000}\n",
            "removed redisclose from inside `curve:`; redisclose: 4 -> curve: {type: "
            "Exponential, half_life: 8000}",
        ),
    ],
)
def test_redisclose_inside_a_block_is_migrated_too(
    ways_root: Path, frontmatter: str, after: str, change: str
) -> None:
    """If the parse error for a nested `redisclose` names `gfh ways migrate`, then migrate
    removes it (giving the way a curve from it when it has none) and the way loads."""
    path = write_way(ways_root, "a", "description: A\n" + frontmatter)
    assert _apply_all(ways_root) == [change]
    assert path.read_text() == "---\ndescription: A\n" + after + "---\nBody text.\n"
    way, problems = parse_way_file(str(path), "a")
    assert (way is not None, problems) == (True, [])
    assert _apply_all(ways_root) == []


def test_a_nested_redisclose_migrate_cannot_remove_is_named_at_its_line(ways_root: Path) -> None:
    path = write_way(ways_root, "a", "description: A\nwhen:\n  keywords:\n    - redisclose: 3\n")
    before = path.read_text()
    plans, problems = migrate.plan(_files(ways_root), 30000)
    assert plans == []
    assert [(p.line, p.message.split(":")[0]) for p in problems] == [(3, "redisclose inside `when")]
    assert path.read_text() == before


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


@pytest.mark.parametrize("value", ["0", "-3", "soon", "true", "600000000"])
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


def test_the_diff_of_a_file_without_a_final_newline_applies_with_git(
    ways_root: Path, tmp_path: Path
) -> None:
    """If the way file ends without a newline, then its last line is marked as such and the
    printed diff applies cleanly (it does not run into the next file's header)."""
    path = ways_root / "a" / "a.md"
    path.parent.mkdir()
    path.write_text("---\ndescription: A\nredisclose: 3\n---\nBody without a newline")
    later = ways_root / "b" / "b.md"
    later.parent.mkdir()
    later.write_text("---\ndescription: B\nredisclose: 4\n---\nB")
    plans, _ = migrate.plan([path, later], 30000)
    diff = "".join(p.diff(f"x/{p.path.parent.name}.md") for p in plans)
    assert diff.count("\\ No newline at end of file\n") == 2  # the last (context) line of each
    assert "Body without a newline\n\\ No newline" in diff
    work = tmp_path / "apply"
    (work / "x").mkdir(parents=True)
    (work / "x" / "a.md").write_text(path.read_text())
    (work / "x" / "b.md").write_text(later.read_text())
    (work / "change.diff").write_text(diff)
    proc = subprocess.run(
        ["git", "apply", "-p1", "change.diff"], cwd=work, capture_output=True, text=True
    )
    assert proc.returncode == 0, proc.stderr
    assert (work / "x" / "a.md").read_text() == plans[0].after
    assert (work / "x" / "b.md").read_text() == plans[1].after
