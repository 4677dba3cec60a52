"""The starter ways: this repository's own hooks/ways, shipped for `gfh init` to copy."""

from __future__ import annotations

import hashlib
import json
import os
import re
import subprocess
from pathlib import Path

import pytest

from gitflow_harness import git
from gitflow_harness.ways import starter_ways_root
from gitflow_harness.ways.index import load_index
from gitflow_harness.ways.lint import lint
from tests.helpers import FIXTURES, ROOT

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
