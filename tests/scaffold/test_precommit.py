"""gfh's checks added to `.pre-commit-config.yaml` as text; the user's file otherwise intact."""

from __future__ import annotations

import difflib
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

from gitflow_harness.errors import ConfigError
from gitflow_harness.scaffold import precommit
from tests.helpers import CliRunner

WANTED = precommit.hooks("hooks/ways", "pills", "requests")
USER = """\
# my checks
minimum_pre_commit_version: "3.2.0"
repos:
- repo: https://github.com/pre-commit/pre-commit-hooks
  rev: v5.0.0
  hooks:
  - id: trailing-whitespace   # keep me
# the next one is local

- repo: local
  hooks:
  - id: mine
    name: mine
    entry: 'true'
    language: system

default_stages: [pre-commit]
"""


def _validate(path: Path) -> None:
    proc = subprocess.run(
        [sys.executable, "-m", "pre_commit", "validate-config", str(path)],
        capture_output=True,
        text=True,
    )
    assert proc.returncode == 0, proc.stdout + proc.stderr


def test_a_new_file_is_valid_for_pre_commit(tmp_path: Path) -> None:
    text, ids = precommit.merge(None, WANTED)
    assert ids == [
        "gfh-ways-lint",
        "gfh-pills-check",
        "gfh-requests-check",
        "gfh-graduate",
        "gfh-record-update",
        "gfh-gate-push",
        "gfh-protect-trunk",
    ]
    (tmp_path / "c.yaml").write_text(text)
    _validate(tmp_path / "c.yaml")
    hooks = {h["id"]: h for h in yaml.safe_load(text)["repos"][0]["hooks"]}
    assert hooks["gfh-ways-lint"]["files"] == "^hooks/ways/"
    assert all(h["language"] == "system" for h in hooks.values())
    assert hooks["gfh-record-update"]["stages"] == ["post-merge", "post-rewrite", "post-commit"]
    assert hooks["gfh-gate-push"]["always_run"] is True


def test_local_hooks_follow_the_published_manifest() -> None:
    """If the manifest changes a hook's entry, stages or filenames, `gfh init` follows it."""
    from tests.helpers import ROOT

    published = yaml.safe_load((ROOT / ".pre-commit-hooks.yaml").read_text())
    local = {h["id"]: h for h in WANTED}
    assert list(local) == [h["id"] for h in published]
    for hook in published:
        for key in ("entry", "stages", "pass_filenames", "always_run", "files"):
            assert local[hook["id"]].get(key) == hook.get(key), (hook["id"], key)


def test_files_filters_move_to_the_configured_folders() -> None:
    moved = {h["id"]: h.get("files") for h in precommit.hooks("guides", "notes/lessons", "asks")}
    assert moved["gfh-ways-lint"] == "^guides/"
    assert moved["gfh-graduate"] == "^(notes/lessons|asks)/"
    assert moved["gfh-gate-push"] is None


def test_the_users_file_keeps_every_line_and_gains_one_entry(tmp_path: Path) -> None:
    text, ids = precommit.merge(USER, WANTED)
    assert len(ids) == 7
    old, new = USER.splitlines(), text.splitlines()
    opcodes = difflib.SequenceMatcher(a=old, b=new, autojunk=False).get_opcodes()
    assert [tag for tag, *_ in opcodes] == ["equal", "insert", "equal"]  # one block, nothing lost
    after = yaml.safe_load(text)
    assert [r["repo"] for r in after["repos"]] == [
        "https://github.com/pre-commit/pre-commit-hooks",
        "local",
        "local",
    ]
    assert after["repos"][:2] == yaml.safe_load(USER)["repos"]
    assert after["default_stages"] == ["pre-commit"]
    assert new.index("- repo: local", new.index("    language: system")) < new.index(
        "default_stages: [pre-commit]"
    )
    (tmp_path / "c.yaml").write_text(text)
    _validate(tmp_path / "c.yaml")
    assert precommit.merge(text, WANTED) == (text, [])


def test_only_missing_hooks_are_added() -> None:
    have = (
        "repos:\n  - repo: local\n    hooks:\n      - id: gfh-pills-check\n"
        "        name: p\n        entry: x\n        language: system\n"
    )
    _text, ids = precommit.merge(have, WANTED)
    assert "gfh-pills-check" not in ids
    assert len(ids) == 6


def test_a_flow_style_list_is_refused_with_the_lines_to_add() -> None:
    with pytest.raises(ConfigError, match="by hand:\n  - repo: local"):
        precommit.merge("repos: []\n", WANTED)


def test_a_file_without_repos_gets_them() -> None:
    text, _ = precommit.merge("# nothing yet\n\nfail_fast: true\n", WANTED)
    parsed = yaml.safe_load(text)
    assert parsed["fail_fast"] is True
    assert next(h["id"] for h in parsed["repos"][0]["hooks"]) == "gfh-ways-lint"
    assert text.startswith("# nothing yet\n")


TYPES = precommit.install_types(WANTED)


def test_the_install_types_are_the_git_hooks_gfhs_checks_run_at() -> None:
    assert TYPES == [
        "pre-commit",
        "pre-merge-commit",
        "post-commit",
        "post-merge",
        "post-rewrite",
        "pre-push",
    ]


SOURCE = precommit.Source("https://git.example.invalid/gitflow-harness", "v0.2.0")


def test_the_published_form_names_the_repository_the_rev_and_only_the_ids(tmp_path: Path) -> None:
    text, ids = precommit.merge(USER, WANTED, SOURCE)
    assert len(ids) == 7
    after = yaml.safe_load(text)
    mine = after["repos"][-1]
    assert (mine["repo"], mine["rev"]) == (SOURCE.repo, SOURCE.rev)
    assert list(mine["hooks"]) == [{"id": i} for i in ids]
    assert "default_install_hook_types" not in after
    assert after["repos"][:2] == yaml.safe_load(USER)["repos"]
    (tmp_path / "c.yaml").write_text(text)
    _validate(tmp_path / "c.yaml")
    assert precommit.merge(text, WANTED, SOURCE) == (text, [])


def test_the_published_form_keeps_files_only_where_the_paths_differ() -> None:
    moved = precommit.hooks("guides", "pills", "requests")
    text, _ = precommit.merge(None, moved, SOURCE)
    hooks = {h["id"]: h for h in yaml.safe_load(text)["repos"][0]["hooks"]}
    assert hooks["gfh-ways-lint"] == {"id": "gfh-ways-lint", "files": "^guides/"}
    assert hooks["gfh-pills-check"] == {"id": "gfh-pills-check"}


def test_the_install_command_names_every_stage_once() -> None:
    assert precommit.install_command(["pre-commit", "pre-push"]) == (
        "pre-commit install --hook-type pre-commit --hook-type pre-push"
    )


def test_install_types_an_older_gfh_added_are_found_to_be_named() -> None:
    old = "default_install_hook_types: [pre-commit, pre-merge-commit, post-merge, pre-push]\n"
    assert precommit.stale_install_types(old + "repos: []\n") == ["post-merge", "pre-push"]
    assert precommit.stale_install_types("repos: []\n") == []
    assert precommit.stale_install_types("default_install_hook_types: [pre-commit]\n") == []


@pytest.mark.slow
def test_the_install_line_init_prints_installs_every_stage_gfh_uses(
    repo: Path, gfh: CliRunner
) -> None:
    """If a user runs `gfh init --pre-commit` and then the `pre-commit install` line it prints,
    then git's pre-commit, post-commit, post-merge, post-rewrite and pre-push hooks are all in
    place."""
    result = gfh("init", "--pre-commit")
    assert result.code == 0, result.err
    line = precommit.install_command(TYPES)
    assert f"`{line}`" in result.out + result.err
    proc = subprocess.run(
        [sys.executable, "-m", "pre_commit", *line.split()[1:]],
        cwd=repo,
        capture_output=True,
        text=True,
    )
    assert proc.returncode == 0, proc.stdout + proc.stderr
    hooks = {p.name for p in (repo / ".git" / "hooks").iterdir()}
    expected = {"pre-commit", "pre-merge-commit", "post-commit", "post-merge", "post-rewrite"}
    assert expected | {"pre-push"} <= hooks


def test_an_alias_bomb_in_the_users_file_is_refused_in_one_line() -> None:
    """If `.pre-commit-config.yaml` chains aliases, then init refuses it naming the file, before
    comparing anything (which would walk billions of values)."""
    lines = ["x0: &x0 [" + ", ".join(["a"] * 9) + "]"]
    lines += [f"x{i}: &x{i} [" + ", ".join([f"*x{i - 1}"] * 9) + "]" for i in range(1, 9)]
    text = "repos: []\n" + "\n".join(lines) + "\n"
    with pytest.raises(ConfigError, match=r"^\.pre-commit-config\.yaml:\d+: error: more than 32"):
        precommit.merge(text, WANTED)
