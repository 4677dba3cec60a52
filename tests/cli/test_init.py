"""`gfh init` end to end on real repositories."""

from __future__ import annotations

import difflib
import json
import os
import re
import shutil
import stat
from pathlib import Path

import pytest

from gitflow_harness.scaffold import hosts
from tests.helpers import CliRunner, git, write
from tests.scaffold.test_project import make_starter

USER_SETTINGS = """{
  "permissions": {"allow": ["Bash(npm test)"]},
  "hooks": {
    "PostToolUse": [
      {"matcher": "Write|Edit", "hooks": [{"type": "command", "command": "./fmt.sh"}]}
    ],
    "Stop": [
      {"hooks": [{"type": "command", "command": "./notify.sh", "timeout": 3}]}
    ]
  }
}
"""


@pytest.fixture
def on_path(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A `gfh` on PATH, as after `pipx install`."""
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    (bin_dir / "gfh").write_text("#!/bin/sh\n")
    (bin_dir / "gfh").chmod(0o755)
    monkeypatch.setenv("PATH", f"{bin_dir}{os.pathsep}{os.environ['PATH']}")
    return bin_dir


def _snapshot(repo: Path) -> dict[str, bytes]:
    return {
        str(p.relative_to(repo)): p.read_bytes()
        for p in repo.rglob("*")
        if p.is_file() and ".git" not in p.relative_to(repo).parts
    }


@pytest.mark.usefixtures("on_path")
def test_init_twice_is_init_once(repo: Path, gfh: CliRunner) -> None:
    first = gfh(
        "init", "--adapter", "claude", "--adapter", "cursor", "--adapter", "codex", "--pre-commit"
    )
    assert first.code == 0, first.err
    after_first = _snapshot(repo)
    assert {
        ".gitflow-harness.toml",
        ".claude/settings.json",
        ".cursor/hooks.json",
        ".codex/hooks.json",
        ".pre-commit-config.yaml",
        "hooks/ways/.gitkeep",
        "pills/.gitkeep",
        "requests/.gitkeep",
    } <= set(after_first)
    second = gfh(
        "init",
        "--adapter",
        "claude",
        "--adapter",
        "cursor",
        "--adapter",
        "codex",
        "--pre-commit",
        "--json",
    )
    assert second.code == 0
    assert {f["action"] for f in second.json()["files"]} == {"unchanged"}
    assert _snapshot(repo) == after_first
    assert second.err == ""


@pytest.mark.usefixtures("on_path")
def test_the_users_own_hooks_keep_their_bytes_and_order(repo: Path, gfh: CliRunner) -> None:
    write(repo, ".claude/settings.json", USER_SETTINGS)
    assert gfh("init").code == 0
    text = (repo / ".claude/settings.json").read_text()
    opcodes = difflib.SequenceMatcher(a=USER_SETTINGS, b=text, autojunk=False).get_opcodes()
    assert {tag for tag, *_ in opcodes} == {"equal", "insert"}
    data = json.loads(text)
    assert data["hooks"]["PostToolUse"][0]["hooks"][0]["command"] == "./fmt.sh"
    assert data["hooks"]["PostToolUse"][1]["hooks"][0]["command"] == "gfh hook claude PostToolUse"
    assert data["hooks"]["Stop"][0]["hooks"][0] == {
        "type": "command",
        "command": "./notify.sh",
        "timeout": 3,
    }
    assert list(data["hooks"])[:2] == ["PostToolUse", "Stop"]
    assert set(data["hooks"]) == {*hosts.CLAUDE_EVENTS}


@pytest.mark.usefixtures("on_path")
def test_the_adapters_default_to_the_hosts_folders(repo: Path, gfh: CliRunner) -> None:
    (repo / ".cursor").mkdir()
    result = gfh("init")
    assert "adapters: cursor (found .cursor/)" in result.out
    assert (repo / ".cursor/hooks.json").exists()
    assert not (repo / ".claude").exists()


@pytest.mark.usefixtures("on_path")
def test_dry_run_prints_a_unified_diff_and_writes_nothing(repo: Path, gfh: CliRunner) -> None:
    write(repo, ".claude/settings.json", USER_SETTINGS)
    before = _snapshot(repo)
    result = gfh("init", "--dry-run", "--pre-commit")
    assert result.code == 0
    assert _snapshot(repo) == before
    assert "--- a/.claude/settings.json\n+++ b/.claude/settings.json\n@@ " in result.out
    assert '+        {\n+          "hooks": [' in result.out or "+      {" in result.out
    assert "--- /dev/null\n+++ b/.gitflow-harness.toml" in result.out
    assert "+++ b/.pre-commit-config.yaml" in result.out
    assert "+++ b/pills/.gitkeep" in result.out


def test_it_warns_when_gfh_is_not_on_path(
    repo: Path, gfh: CliRunner, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    only_git = tmp_path / "only-git"
    only_git.mkdir()
    (only_git / "git").symlink_to(shutil.which("git") or "/usr/bin/git")
    monkeypatch.setenv("PATH", str(only_git))
    result = gfh("init", "--dry-run")
    assert result.code == 0
    assert result.err.endswith(
        "warning: `gfh` is not on PATH: the agent hooks run `gfh hook …` and will fail until it "
        "is (install gitflow-harness with `pipx install <path or URL of its repository>` or "
        "`uv tool install …`, or link only the `gfh` of the venv it is installed in onto PATH, "
        "never the venv's whole bin folder)\n"
    )
    # It names no package index name: gitflow-harness installs from its repository.
    assert "pipx install gitflow-harness" not in result.err


@pytest.mark.usefixtures("on_path")
def test_no_warning_when_gfh_is_on_path(repo: Path, gfh: CliRunner) -> None:
    assert "warning" not in gfh("init").err


@pytest.mark.usefixtures("on_path")
def test_starter_ways_are_copied_with_their_modes(
    repo: Path, gfh: CliRunner, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    starter = make_starter(tmp_path / "starter")
    monkeypatch.setattr("gitflow_harness.ways.starter_ways_root", lambda: starter)
    listed = gfh("init", "--list-ways")
    assert listed.out.splitlines() == [
        "branch-first      Work on a branch",  # the descriptions line up
        "shared/big-files  Files past 500 lines",
    ]
    result = gfh("init", "--way", "shared/big-files")
    assert result.code == 0, result.err
    script = repo / "hooks/ways/shared/big-files/postcheck.sh"
    assert script.read_text() == "exit 1\n"
    assert stat.S_IMODE(script.stat().st_mode) & 0o100
    assert not (repo / "hooks/ways/branch-first").exists()
    write(repo, "hooks/ways/branch-first/branch-first.md", "mine\n")
    again = gfh("init", "--all-ways")
    assert "way branch-first: hooks/ways/branch-first exists; left as it is" in again.out
    assert (repo / "hooks/ways/branch-first/branch-first.md").read_text() == "mine\n"
    unknown = gfh("init", "--way", "nope")
    assert unknown.code == 2
    assert "no starter way 'nope'" in unknown.err


@pytest.mark.usefixtures("on_path")
def test_a_broken_host_file_is_a_config_error_naming_it(repo: Path, gfh: CliRunner) -> None:
    write(repo, ".claude/settings.json", '{\n  "hooks": {,\n}\n')
    result = gfh("init")
    assert result.code == 2
    assert result.err.startswith("gfh: .claude/settings.json:2:")
    assert (repo / ".claude/settings.json").read_text() == '{\n  "hooks": {,\n}\n'
    assert not (repo / ".gitflow-harness.toml").exists()  # nothing written: all or nothing


@pytest.mark.usefixtures("on_path")
def test_a_host_file_that_is_not_utf8_is_a_config_error_naming_the_byte(
    repo: Path, gfh: CliRunner
) -> None:
    (repo / ".claude").mkdir()
    (repo / ".claude/settings.json").write_bytes(b"\xff\xfe{}")
    result = gfh("init")
    assert result.code == 2
    assert result.err == (
        "gfh: .claude/settings.json:1:1: not UTF-8 text (byte 0xff); save it as UTF-8, then run "
        "`gfh init` again\n"
    )
    assert not (repo / ".gitflow-harness.toml").exists()  # nothing written
    (repo / ".claude/settings.json").write_text("{}\n")
    (repo / ".pre-commit-config.yaml").write_bytes(b"repos:\n  - repo: caf\xe9\n")
    precommit = gfh("init", "--pre-commit")
    assert precommit.code == 2
    assert precommit.err.startswith("gfh: .pre-commit-config.yaml:2:14: not UTF-8 text (byte 0xe9)")


@pytest.mark.usefixtures("on_path")
def test_a_symlinked_host_file_stays_a_link_and_its_target_is_written(
    repo: Path, gfh: CliRunner
) -> None:
    """If .claude/settings.json is a symlink (kept in a dotfiles folder), then init writes the
    file it points to and leaves the link in place."""
    target = write(repo, "shared/claude-settings.json", '{"model": "x"}\n')
    (repo / ".claude").mkdir()
    (repo / ".claude/settings.json").symlink_to("../shared/claude-settings.json")
    assert gfh("init").code == 0
    link = repo / ".claude/settings.json"
    assert link.is_symlink()
    assert os.readlink(link) == "../shared/claude-settings.json"
    data = json.loads(target.read_text())
    assert data["model"] == "x"
    assert "gfh hook claude Stop" in json.dumps(data["hooks"])
    assert "every hook already there" in gfh("init").out


def test_outside_a_repository_it_says_so(
    tmp_path: Path, gfh: CliRunner, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("GIT_CEILING_DIRECTORIES", str(tmp_path.parent))
    result = gfh("init")
    assert result.code == 2
    assert "not a git repository" in result.err


@pytest.mark.usefixtures("on_path")
def test_the_files_are_ready_to_commit(repo: Path, gfh: CliRunner) -> None:
    gfh("init", "--pre-commit")
    git(repo, "add", "-A")
    staged = git(repo, "diff", "--cached", "--name-only").split()
    assert ".claude/settings.json" in staged
    assert "hooks/ways/.gitkeep" in staged


def test_list_ways_offers_the_packaged_starters_and_not_this_projects_own(
    gfh: CliRunner,
) -> None:
    """If a shipped way says `x-starter: false` (it is about this project's own code), then
    `gfh init` does not offer it."""
    result = gfh("init", "--list-ways", "--json")
    assert result.code == 0
    assert [w["id"] for w in result.json()["ways"]] == [
        "code/file-size",
        "git/commit-messages",
        "workflow/branch-first",
        "workflow/end-of-turn",
        "workflow/prepare-before-done",
    ]


@pytest.mark.usefixtures("on_path")
def test_every_starter_way_lints_clean_in_a_fresh_repository(repo: Path, gfh: CliRunner) -> None:
    """If a user copies every starter way into a new repository and commits, then `gfh ways lint
    --check` finds nothing at all: the starters name no file of this project."""
    assert gfh("init", "--all-ways").code == 0
    git(repo, "add", "-A")
    git(repo, "commit", "-q", "-m", "gfh init --all-ways")
    result = gfh("ways", "lint", "--check")
    assert (result.code, result.out) == (0, "")
    assert "5 way file(s) checked: 0 error(s), 0 warning(s)" in result.err


RITUAL_NOTE = (
    "note: ritual: at Stop, {hosts} will not end a turn that used tools until the agent has run "
    "`gfh status --end-turn`, shown the status box and run `gfh task set` (see docs/ritual.md)"
)
TEACH = "; the starter way hooks/ways/workflow/end-of-turn, copied now, teaches it to the agent"


@pytest.mark.usefixtures("on_path")
def test_init_says_once_that_enforcing_hosts_now_block_a_turn_without_the_ritual(
    repo: Path, gfh: CliRunner
) -> None:
    """If gfh init installs the hooks of a host whose Stop enforces the ritual, then it says so
    and how the agent learns it; not for an observe-only host, and not when nothing was added."""
    first = gfh("init", "--adapter", "claude", "--adapter", "cursor", "--adapter", "codex")
    notes = [line for line in first.out.splitlines() if line.startswith("note: ritual:")]
    assert notes == [RITUAL_NOTE.format(hosts="Claude Code and Cursor") + TEACH]
    assert (repo / "hooks/ways/workflow/end-of-turn/end-of-turn.md").is_file()
    again = gfh("init", "--adapter", "claude", "--adapter", "cursor")
    assert "ritual" not in again.out + again.err


@pytest.mark.usefixtures("on_path")
def test_the_ritual_note_leaves_out_the_way_once_the_agent_gets_it(
    repo: Path, gfh: CliRunner
) -> None:
    copied = gfh("init", "--adapter", "claude", "--way", "workflow/end-of-turn")
    assert RITUAL_NOTE.format(hosts="Claude Code") + "\n" in copied.out
    assert (repo / "hooks/ways/workflow/end-of-turn/end-of-turn.md").is_file()
    present = gfh("init", "--adapter", "cursor")
    assert RITUAL_NOTE.format(hosts="Cursor") + "\n" in present.out


@pytest.mark.usefixtures("on_path")
@pytest.mark.parametrize(
    ("adapters", "config"),
    [(["codex"], ""), (["claude"], '[ritual]\nenforce = ["cursor"]\n')],
    ids=["observe-only-host", "not-enforced"],
)
def test_no_ritual_way_and_no_note_for_hosts_that_only_observe(
    repo: Path, gfh: CliRunner, adapters: list[str], config: str
) -> None:
    if config:
        write(repo, ".gitflow-harness.toml", config)
    result = gfh("init", *[f"--adapter={a}" for a in adapters])
    assert result.code == 0, result.err
    assert "ritual" not in result.out + result.err
    assert not (repo / "hooks/ways/workflow/end-of-turn").exists()


@pytest.mark.usefixtures("on_path")
def test_plain_init_never_enforces_the_ritual_without_the_way_that_teaches_it(
    repo: Path, gfh: CliRunner
) -> None:
    """If `gfh init` installs an enforcing Stop hook, then the agent is taught the ritual too:
    the starter way workflow/end-of-turn comes with it (before, plain init installed only the
    Stop hook, and the first tool turn of every session was blocked)."""
    assert gfh("init").code == 0
    way = repo / "hooks/ways/workflow/end-of-turn/end-of-turn.md"
    assert "gfh status --end-turn" in way.read_text()
    assert "gfh hook claude Stop" in (repo / ".claude/settings.json").read_text()
    lint = gfh("ways", "lint", "--check")
    assert lint.code == 0, lint.out + lint.err


@pytest.mark.usefixtures("on_path")
def test_without_the_way_in_the_installation_the_stop_hook_is_left_out(
    repo: Path, gfh: CliRunner, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from gitflow_harness import ways

    empty = tmp_path / "no-starters"
    empty.mkdir()
    monkeypatch.setattr(ways, "starter_ways_root", lambda: empty)
    result = gfh("init", "--adapter", "claude")
    assert result.code == 0
    assert "the Stop hook that enforces it was left out" in result.err
    settings = (repo / ".claude/settings.json").read_text()
    assert "gfh hook claude Stop" not in settings
    assert "gfh hook claude SessionStart" in settings


def test_the_readme_shows_the_way_into_a_repository_with_real_options() -> None:
    """If the README's path from the demo to one's own repository names a `gfh init` option,
    then the option exists; and the two-command quick start stays as it is."""
    from gitflow_harness.cli.init import init
    from tests.helpers import ROOT

    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    quick = readme.split("## Quick start\n", 1)[1].split("\n## ", 1)[0]
    commands = [
        line.split("#")[0].strip() for line in quick.splitlines() if line.startswith("make")
    ]
    assert commands == ["make demo", "make test"]
    section = readme.split("## Use it in your repository\n", 1)[1].split("\n## ", 1)[0]
    options = {opt for p in init.params for opt in p.opts}
    used = set(re.findall(r"gfh init[^\n`#]*", section))
    named = {word for line in used for word in line.split() if word.startswith("--")}
    assert named <= options
    assert {"--adapter", "--all-ways", "--pre-commit"} <= named
    for step in ("pipx install <path or URL of this repository>", "pre-commit install", "/hooks"):
        assert step in section
    # The venv recipe links only `gfh` onto PATH: its bin/ on PATH would shadow python3 and pip.
    assert "ln -s ~/.gfh/bin/gfh" in section
    assert 'export PATH="$HOME/.gfh/bin' not in section


def test_init_on_a_pre_commit_config_that_does_not_parse_is_a_configuration_error(
    repo: Path, gfh: CliRunner
) -> None:
    (repo / ".pre-commit-config.yaml").write_text("repos: [\n  - broken: {\n", encoding="utf-8")
    result = gfh("init", "--pre-commit-local")
    assert result.code == 2
    [line] = result.err.splitlines()
    assert line.startswith("gfh: .pre-commit-config.yaml:2: not valid YAML")
