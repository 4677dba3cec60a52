from __future__ import annotations

from pathlib import Path

import pytest

from gitflow_harness.store.events import EventLog, make_event
from tests.helpers import ROOT, CliRunner, commit
from tests.ways.conftest import write_way

EXP = "curve: {type: Exponential, half_life: 30000}\n"


@pytest.fixture
def ways(repo: Path) -> Path:
    root = repo / "hooks" / "ways"
    write_way(
        root,
        "git/commits",
        "description: Commit messages say why\nwhen:\n  commands: '\\bgit commit\\b'\n"
        "  keywords: [commit]\n" + EXP,
        body="# Commits\n\nSay why.\n",
    )
    write_way(
        root,
        "burst",
        "description: Rate-limited\nwhen: {keywords: [x]}\ncurve:\n  type: ActionPotential\n"
        "  burst_threshold: 3\n  peak_multiplier: 2.25\n  absolute_refractory: 60\n"
        "  multiplier_half_life: 395\n",
    )
    commit(repo, "ways", {})
    return root


def _seed(repo: Path, *events: tuple[str, str, int, str | None]) -> None:
    log = EventLog(repo / ".git")
    for kind, way, tick, session in events:
        data: dict[str, object] = {
            "way": way,
            "trigger": "prompt",
            "tick": tick,
            "axis": "tokens",
            "kind": "first",
            "salience": 0.0,
        }
        if kind == "way.suppressed":
            data.update(kind="refire", reason="salience")
        log.append(make_event(kind, data, surface="hook", session=session, branch="main"))


def test_list_shows_lanes_curve_refire_and_counts_from_the_log(
    ways: Path, repo: Path, gfh: CliRunner
) -> None:
    _seed(
        repo,
        ("way.fired", "git/commits", 0, "claude:a"),
        ("way.suppressed", "git/commits", 10, "claude:a"),
        ("way.suppressed", "git/commits", 20, "claude:a"),
    )
    result = gfh("ways", "list")
    assert result.code == 0, result.err
    lines = result.out.splitlines()
    assert lines[0].split() == ["ID", "LANES", "CURVE", "REFIRE", "FIRED", "SUPPRESSED"]
    assert lines[1].split() == [
        "burst",
        "keywords",
        "ActionPotential(3,x2.25,60,395)",
        "60",
        "0",
        "0",
    ]
    assert lines[2].split() == [
        "git/commits",
        "keywords,commands",
        "Exponential(30000)",
        "30001",
        "1",
        "2",
    ]
    data = gfh("ways", "list", "--json").json()
    commits = data["ways"][1]
    assert commits["suppressed_by"] == {"salience": 2}
    assert commits["curve"] == {"type": "Exponential", "half_life": 30000}
    assert data["floor"] == 0.5
    assert data["problems"] == []


def test_list_uses_the_configured_floor(ways: Path, repo: Path, gfh: CliRunner) -> None:
    (repo / ".gitflow-harness.toml").write_text("[ways]\nfloor = 0.25\n")
    data = gfh("ways", "list", "--json").json()
    assert data["ways"][1]["refire_delta"] == 60001


def test_list_exits_1_and_names_a_broken_way(ways: Path, gfh: CliRunner) -> None:
    write_way(ways, "old", "description: Old\nredisclose: 3\n")
    result = gfh("ways", "list")
    assert result.code == 1
    assert "git/commits" in result.out
    assert result.err == (
        "hooks/ways/old/old.md:3: error: redisclose is retired: run `gfh ways migrate` to turn "
        "it into a curve\n"
    )


def test_list_without_a_ways_root(repo: Path, gfh: CliRunner) -> None:
    result = gfh("ways", "list")
    assert (result.code, result.out) == (0, "no ways under hooks/ways\n")


def test_show_prints_triggers_curve_and_body(ways: Path, gfh: CliRunner) -> None:
    result = gfh("ways", "show", "commits", "--plot")
    assert result.code == 0, result.err
    assert "curve          Exponential half_life=30000 (axis: tokens)" in result.out
    assert "refire         at delta 30001 (floor 0.5)" in result.out
    assert "when.commands  \\bgit commit\\b" in result.out
    assert "0.50 ┤┄" in result.out
    assert result.out.endswith("# Commits\n\nSay why.\n")
    assert max(len(line) for line in result.out.splitlines()) <= 80
    data = gfh("ways", "show", "git/commits", "--json").json()
    assert data["body"] == "# Commits\n\nSay why.\n"
    assert data["lanes"] == {"keywords": ["commit"], "commands": "\\bgit commit\\b"}


def test_show_of_an_unknown_way_is_a_usage_error(ways: Path, gfh: CliRunner) -> None:
    result = gfh("ways", "show", "nope")
    assert result.code == 2
    assert result.err.startswith("gfh: no way 'nope' under ")
    assert len(result.err.splitlines()) == 1


def test_simulate_pins_the_action_potential_reference(ways: Path, gfh: CliRunner) -> None:
    result = gfh("ways", "simulate", "burst", "--ticks", "0,30,61,122,1000,1000:2,2900", "--json")
    assert result.code == 0, result.err
    simulated = result.json()
    assert (simulated["way"], simulated["floor"]) == ("burst", 0.5)
    decisions = [(d["tick"], d["decision"]) for d in simulated["decisions"]]
    assert decisions == [
        (0, "first"),
        (30, "refractory"),
        (61, "refire"),
        (122, "refire"),
        (1000, "refractory"),
        (1000, "refire"),
        (2900, "refire"),
    ]
    assert simulated["decisions"][4]["multiplier"] > 1.0
    assert set(simulated["decisions"][0]) == {"tick", "decision", "salience", "multiplier"}


def test_simulate_prints_one_line_per_match(ways: Path, gfh: CliRunner) -> None:
    result = gfh("ways", "simulate", "git/commits", "--ticks", "0..90000/30000")
    assert result.code == 0, result.err
    lines = result.out.splitlines()
    assert lines[0] == "git/commits: Exponential half_life=30000, floor 0.5"
    assert [line.split()[:4] for line in lines[1:5]] == [
        ["*", "tick", "0", "first"],
        ["tick", "30000", "suppressed", "salience"],
        ["*", "tick", "60000", "refire"],
        ["tick", "90000", "suppressed", "salience"],
    ]
    assert lines[-1] == "2 of 4 match(es) fired"


@pytest.mark.parametrize("ticks", ["", "a,b", "5..1", "-3", "4:0", "1..9/0"])
def test_simulate_refuses_bad_ticks(ways: Path, gfh: CliRunner, ticks: str) -> None:
    result = gfh("ways", "simulate", "git/commits", "--ticks", ticks)
    assert result.code == 2
    assert "--ticks" in result.err


def test_simulate_caps_the_matches_a_range_expands_to(ways: Path, gfh: CliRunner) -> None:
    """If a range would expand to more matches than one run takes, then it is a usage error
    naming the cap, not an out-of-memory crash."""
    result = gfh("ways", "simulate", "git/commits", "--ticks", "0..100000000000/1")
    assert result.code == 2
    assert result.err == (
        "gfh: --ticks: '0..100000000000/1' makes 100000000001 matches; at most 100000 in one "
        "run: use a larger STEP or a shorter range\n"
    )
    several = gfh("ways", "simulate", "git/commits", "--ticks", "0..99999,5,6", "--json")
    assert several.code == 2
    assert "makes 100001 matches" in several.err
    assert gfh("ways", "simulate", "git/commits", "--ticks", "0..99999", "--json").code == 0


def test_lint_exits_1_on_errors_with_or_without_check(ways: Path, gfh: CliRunner) -> None:
    """If a way has an error, then `gfh ways lint` exits 1 (it used to exit 0 unless
    --check, so a script checking its exit code passed a broken way)."""
    assert gfh("ways", "lint", "--check").code == 0
    write_way(ways, "bad", "description: B\nwhen: {keywords: [x]}\ncurve: {type: Flat}\n")
    result = gfh("ways", "lint", "--check")
    assert result.code == 1
    assert result.out == (
        "hooks/ways/bad/bad.md:4: error: curve: Flat needs suppression; missing suppression\n"
    )
    assert result.err == "3 way file(s) checked: 1 error(s), 0 warning(s)\n"
    assert gfh("ways", "lint").code == 1


def test_lint_fix_reports_what_it_removed(ways: Path, gfh: CliRunner) -> None:
    path = write_way(ways, "extra", "description: E\nwhen: {keywords: [x]}\n" + EXP + "oops: 1\n")
    result = gfh("ways", "lint", "--fix", "--check", str(path))
    assert result.code == 0, result.out
    assert result.out == "hooks/ways/extra/extra.md: fixed: removed unknown field 'oops'\n"
    assert "oops" not in path.read_text()


def test_migrate_shows_then_applies_then_has_nothing_to_do(ways: Path, gfh: CliRunner) -> None:
    path = write_way(ways, "old", "description: Old\nredisclose: 3\n")
    shown = gfh("ways", "migrate")
    assert shown.code == 0
    assert "+curve: {type: Exponential, half_life: 6000}" in shown.out
    assert shown.out.endswith("1 way file(s) to migrate; run `gfh ways migrate --apply`\n")
    assert "redisclose" in path.read_text()
    applied = gfh("ways", "migrate", "--apply")
    assert applied.out == (
        "hooks/ways/old/old.md: redisclose: 3 -> curve: {type: Exponential, half_life: 6000}\n"
        "migrated 1 way file(s)\n"
    )
    again = gfh("ways", "migrate", "--json").json()
    assert again == {"applied": False, "changes": [], "problems": []}
    assert gfh("ways", "list").code == 0


def test_tune_suggests_and_applies_from_the_log(ways: Path, repo: Path, gfh: CliRunner) -> None:
    _seed(
        repo,
        *[("way.fired", "git/commits", t, "claude:a") for t in (0, 8000, 16000, 24000)],
    )
    data = gfh("ways", "tune", "--json").json()
    commits = next(w for w in data["ways"] if w["id"] == "git/commits")
    assert (commits["suggested"], commits["flagged"], commits["applied"]) == (8000, True, False)
    text = gfh("ways", "tune")
    assert "-73% *" in text.out
    assert text.out.rstrip().endswith("`gfh ways tune --apply` rewrites their curves")
    applied = gfh("ways", "tune", "--apply", "--json").json()
    assert next(w for w in applied["ways"] if w["id"] == "git/commits")["applied"] is True
    assert (
        "curve: {type: Exponential, half_life: 8000}"
        in (ways / "git" / "commits" / "commits.md").read_text()
    )
    after = gfh("ways", "tune", "--json").json()
    assert next(w for w in after["ways"] if w["id"] == "git/commits")["flagged"] is False


def test_tune_names_a_broken_way_and_exits_1(ways: Path, repo: Path, gfh: CliRunner) -> None:
    """If a way file does not load, then tune does not silently leave it out: it says so on
    stderr and exits 1, and still tunes the others."""
    write_way(ways, "old", "description: Old\nredisclose: 3\n")
    _seed(repo, *[("way.fired", "git/commits", t, "claude:a") for t in (0, 8000, 16000, 24000)])
    result = gfh("ways", "tune")
    assert result.code == 1
    assert "git/commits" in result.out
    assert result.err == (
        "hooks/ways/old/old.md:3: error: redisclose is retired: run `gfh ways migrate` to turn "
        "it into a curve\n"
    )
    data = gfh("ways", "tune", "--json")
    assert data.code == 1
    assert [p.split(":")[0] for p in data.json()["problems"]] == ["hooks/ways/old/old.md"]


def test_every_ways_command_is_documented(gfh: CliRunner) -> None:
    result = gfh("ways", "--help")
    assert result.code == 0
    docs = (ROOT / "docs" / "ways.md").read_text(encoding="utf-8")
    for command in ("list", "show", "simulate", "lint", "migrate", "tune"):
        assert command in result.out
        assert f"gfh ways {command}" in docs


@pytest.mark.parametrize(
    ("option", "value"), [("--floor", "nan"), ("--magnitude", "nan"), ("--magnitude", "inf")]
)
def test_simulate_refuses_numbers_that_are_not_finite(
    repo: Path, gfh: CliRunner, option: str, value: str
) -> None:
    result = gfh("ways", "simulate", "any", "--ticks", "1", option, value)
    assert result.code == 2
    assert f"{value!r} is not a finite number" in result.err


def _alias_bomb(levels: int = 9, width: int = 9) -> str:
    lines = ["l0: &l0 [" + ", ".join(["x"] * width) + "]"]
    for level in range(1, levels):
        lines.append(f"l{level}: &l{level} [" + ", ".join([f"*l{level - 1}"] * width) + "]")
    return "\n".join(lines) + "\n"


def test_lint_refuses_an_untracked_alias_bomb_in_one_line(repo: Path, gfh: CliRunner) -> None:
    """If a way (even an untracked one) chains aliases, then lint names its file and line and
    the other ways are still checked."""
    root = repo / "hooks" / "ways"
    write_way(root, "good", "description: fine\nwhen: {keywords: [x]}\n" + EXP)
    bomb = write_way(root, "bomb", "description: b\nwhen: {keywords: [x]}\n" + EXP + _alias_bomb())
    result = gfh("ways", "lint", "--check")
    assert result.code == 1
    assert result.out.splitlines() == [
        f"{bomb.relative_to(repo)}:9: error: more than 32 aliases (`*name`); write the values out"
    ]
    assert "2 way file(s) checked: 1 error(s)" in result.err
