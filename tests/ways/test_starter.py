"""The starter ways: this repository's own hooks/ways, shipped for `gfh init` to copy."""

from __future__ import annotations

import hashlib
import json
import os
import re
import shutil
import subprocess
from pathlib import Path

import pytest

from gitflow_harness import git
from gitflow_harness.ways import starter_ways_root
from gitflow_harness.ways.index import load_index
from gitflow_harness.ways.lint import lint
from tests.agent import kit
from tests.helpers import FIXTURES, ROOT, CliRunner
from tests.helpers import git as run_git

FILE_SIZE = ROOT / "hooks" / "ways" / "code" / "file-size"


def test_the_starter_root_is_the_repositorys_own_ways_through_a_relative_link() -> None:
    link = ROOT / "gitflow_harness" / "starter" / "ways"
    assert link.is_symlink()
    assert os.readlink(link) == "../../hooks/ways"
    assert starter_ways_root().resolve() == (ROOT / "hooks" / "ways").resolve()
    assert (starter_ways_root() / "README.md").is_file()


def test_every_starter_way_loads_and_lints_without_errors() -> None:
    index = load_index(starter_ways_root(), use_cache=False)
    assert index.problems == ()
    assert len(index.ways) >= 4
    assert {type(w.curve).__name__ for w in index.ways} == {
        "Exponential",
        "Flat",
        "ProgressiveStaircase",
        "ActionPotential",
    }
    report = lint([], root=ROOT / "hooks" / "ways", repo=git.discover(ROOT))
    assert [str(p) for p in report.problems if p.severity == "error"] == []


def test_every_starter_curve_says_why_it_was_chosen() -> None:
    for way in load_index(starter_ways_root(), use_cache=False).ways:
        text = way.path.read_text(encoding="utf-8")
        assert re.search(r"^#[^\n]*\n(?:#[^\n]*\n)*curve:", text, re.M), way.id


def _payload(fixture: str, target: Path, cwd: Path) -> str:
    payload = json.loads((FIXTURES / "hooks" / fixture).read_text(encoding="utf-8"))
    if "tool_input" in payload:
        payload["tool_input"]["file_path"] = str(target)
        payload["cwd"] = str(cwd)
    else:
        payload["file_path"] = str(target)
    return json.dumps(payload)


def _run(script: Path, stdin: str, state: Path, cwd: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [str(script)],
        input=stdin,
        capture_output=True,
        text=True,
        cwd=cwd,
        env={**os.environ, "GFH_WAY_STATE": str(state)},
    )


@pytest.mark.parametrize("fixture", ["claude/PostToolUse.Write.json", "cursor/afterFileEdit.json"])
def test_file_size_postcheck_fires_for_a_file_past_500_lines(tmp_path: Path, fixture: str) -> None:
    state = tmp_path / "state"
    state.mkdir()
    big = tmp_path / "src" / "big.py"
    big.parent.mkdir()
    big.write_text("x = 1\n" * 501)
    payload = _payload(fixture, big, tmp_path)
    proc = _run(FILE_SIZE / "postcheck.sh", payload, state, tmp_path)
    assert proc.returncode == 0, proc.stderr
    macro = _run(FILE_SIZE / "macro.sh", payload, state, tmp_path)
    assert macro.stdout == "`src/big.py` now has 501 lines.\n\n"


def test_the_file_size_hand_off_holds_no_payload_text(tmp_path: Path) -> None:
    """If the postcheck hands its macro a finding, then it is a count and a hash, never the
    edited file's path (tool input); a macro given another payload does not name the file."""
    state = tmp_path / "state"
    state.mkdir()
    big = tmp_path / "src" / "secret-name.py"
    big.parent.mkdir()
    big.write_text("x = 1\n" * 600)
    payload = _payload("claude/PostToolUse.Write.json", big, tmp_path)
    assert _run(FILE_SIZE / "postcheck.sh", payload, state, tmp_path).returncode == 0
    handoff = (state / "long-file").read_text()
    digest = hashlib.sha256(b"src/secret-name.py").hexdigest()
    assert handoff == f"{digest}\t600\n"
    assert "secret-name" not in handoff
    other = _payload("claude/PostToolUse.Write.json", tmp_path / "other.py", tmp_path)
    macro = _run(FILE_SIZE / "macro.sh", other, state, tmp_path)
    assert macro.stdout == "A file you edited now has 600 lines.\n\n"


@pytest.mark.parametrize(
    ("name", "lines"), [("small.py", 500), ("data.json", 900), ("missing.py", None)]
)
def test_file_size_postcheck_stays_quiet_otherwise(
    tmp_path: Path, name: str, lines: int | None
) -> None:
    state = tmp_path / "state"
    state.mkdir()
    target = tmp_path / name
    if lines is not None:
        target.write_text("x\n" * lines)
    payload = _payload("claude/PostToolUse.Write.json", target, tmp_path)
    assert _run(FILE_SIZE / "postcheck.sh", payload, state, tmp_path).returncode == 1
    assert _run(FILE_SIZE / "postcheck.sh", "not json", state, tmp_path).returncode == 1
    assert not (state / "long-file").exists()
    assert _run(FILE_SIZE / "macro.sh", "", state, tmp_path).stdout == ""


def test_the_package_data_ships_the_starter_ways() -> None:
    """If the wheel's package data did not cover starter/, `gfh init` would find no ways."""
    import tomllib

    config = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))
    patterns = config["tool"]["setuptools"]["package-data"]["gitflow_harness"]
    assert "starter/**/*" in patterns
    shipped = {
        p.relative_to(starter_ways_root()).as_posix() for p in starter_ways_root().rglob("*")
    }
    assert "code/file-size/postcheck.sh" in shipped


END_OF_TURN = ROOT / "hooks" / "ways" / "workflow" / "end-of-turn"


def test_the_end_of_turn_way_states_the_ritual_as_its_docs_do() -> None:
    """If the ritual's steps change, then the way that teaches them changes with them: each
    step's command, as docs/ritual.md writes it, is in the way's body, in the same order."""
    docs = (ROOT / "docs" / "ritual.md").read_text(encoding="utf-8")
    steps = re.findall(r"^\d\. \*\*(.+?)\*\*", docs, re.M)
    assert steps == [
        "`gfh status --end-turn`",
        "the reply shows the status box",
        '`gfh task set "<focus>"`',
    ]
    body = (END_OF_TURN / "end-of-turn.md").read_text(encoding="utf-8").split("---\n", 2)[2]
    needed = [
        "`gfh status --end-turn`",
        "`┌─ gfh`",
        '`gfh task set "<focus>"`',
        '`gfh task set ""`',
    ]
    positions = [body.find(text) for text in needed]
    assert -1 not in positions, positions
    assert positions == sorted(positions)


def test_the_end_of_turn_way_fires_at_session_start_and_again_in_a_long_session(
    repo: Path, gfh: CliRunner
) -> None:
    """If a session runs long, then the ritual is shown again at a commit once 9 turns have
    passed since it was last shown; not at every commit in between."""
    shutil.copytree(END_OF_TURN, repo / "hooks" / "ways" / "workflow" / "end-of-turn")
    run_git(repo, "add", "-A")
    run_git(repo, "commit", "-q", "-m", "the ritual way")
    start = kit.hook(gfh, "claude", "SessionStart", kit.payload("claude", "SessionStart", repo))
    assert "# End every turn with the gfh ritual" in (kit.context(start) or "")
    commit = kit.payload(
        "claude", "PostToolUse.Bash", repo, tool_input={"command": "git commit -m 'Fix it'"}
    )
    prompt = kit.payload("claude", "UserPromptSubmit", repo, prompt="carry on")
    for _ in range(9):
        kit.hook(gfh, "claude", "UserPromptSubmit", prompt)
        kit.hook(gfh, "claude", "PostToolUse", commit)
    assert [d[1:] for d in kit.decisions(repo)] == [
        ("fired", 0, "first"),
        *[("suppressed", turn, "salience") for turn in range(1, 9)],
        ("fired", 9, "refire"),
    ]
