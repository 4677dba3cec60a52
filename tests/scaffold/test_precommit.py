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
    assert len(ids) == 6
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
    assert len(ids) == 5


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


def test_a_config_without_install_types_gets_the_list_before_repos(tmp_path: Path) -> None:
    """If the config names no default_install_hook_types, then a plain `pre-commit install`
    installs only pre-commit, and gfh-record-update and gfh-gate-push never run: gfh adds the
    list, as a line before `repos:`, and nothing else changes."""
    merged, _ = precommit.merge(USER, WANTED)
    text, added = precommit.ensure_install_types(merged, TYPES)
    assert added == TYPES
    line = (
        "default_install_hook_types: [pre-commit, pre-merge-commit, post-commit, post-merge, "
        "post-rewrite, "
    )
    assert text == merged.replace("repos:\n", line + "pre-push]\nrepos:\n", 1)
    (tmp_path / "c.yaml").write_text(text)
    _validate(tmp_path / "c.yaml")
    assert precommit.ensure_install_types(text, TYPES) == (text, [])


@pytest.mark.parametrize(
    ("before", "after"),
    [
        (
            "default_install_hook_types: [commit-msg, pre-push]  # mine\n",
            "default_install_hook_types: [commit-msg, pre-push, pre-commit, pre-merge-commit, "
            "post-commit, post-merge, post-rewrite]  # mine\n",
        ),
        ("default_install_hook_types: []\n", f"default_install_hook_types: [{', '.join(TYPES)}]\n"),
        (
            "default_install_hook_types:\n  - commit-msg   # for the message check\n"
            "  # a note\n  - pre-commit\n",
            "default_install_hook_types:\n  - commit-msg   # for the message check\n"
            "  # a note\n  - pre-commit\n  - pre-merge-commit\n  - post-commit\n  - post-merge\n"
            "  - post-rewrite\n  - pre-push\n",
        ),
        (
            "default_install_hook_types:\n- commit-msg\n",
            "default_install_hook_types:\n- commit-msg\n- pre-commit\n- pre-merge-commit\n"
            "- post-commit\n- post-merge\n- post-rewrite\n- pre-push\n",
        ),
    ],
)
def test_a_users_install_types_keep_their_entries_order_and_style(before: str, after: str) -> None:
    user = "# top\n" + before + "repos:\n  - repo: local\n    hooks: []\n"
    text, added = precommit.ensure_install_types(user, TYPES)
    assert text == "# top\n" + after + "repos:\n  - repo: local\n    hooks: []\n"
    assert added == [t for t in TYPES if t not in before]


def test_a_crlf_config_stays_crlf() -> None:
    text, _ = precommit.ensure_install_types("fail_fast: true\r\nrepos: []\r\n", TYPES)
    assert (
        text
        == f"fail_fast: true\r\ndefault_install_hook_types: [{', '.join(TYPES)}]\r\nrepos: []\r\n"
    )


def test_install_types_that_are_not_a_list_are_refused() -> None:
    with pytest.raises(ConfigError, match="`default_install_hook_types` must be a list"):
        precommit.ensure_install_types("default_install_hook_types: pre-commit\nrepos: []\n", TYPES)


@pytest.mark.slow
def test_a_plain_pre_commit_install_then_installs_every_stage_gfh_uses(
    repo: Path, gfh: CliRunner
) -> None:
    """If a user runs `gfh init --pre-commit` and then the `pre-commit install` it prints, then
    git's pre-commit, post-commit, post-merge, post-rewrite and pre-push hooks are all in place."""
    result = gfh("init", "--pre-commit")
    assert result.code == 0, result.err
    assert "run `pre-commit install` once" in result.out + result.err
    proc = subprocess.run(
        [sys.executable, "-m", "pre_commit", "install"], cwd=repo, capture_output=True, text=True
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
