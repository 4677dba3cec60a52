"""The configuration on the hook path: cached by content, refreshed when the file changes."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from gitflow_harness.hookcall import model as ev
from gitflow_harness.hookcall.session import SessionState
from gitflow_harness.hookcall.settings import cache_file, hook_config
from tests.agent import kit
from tests.helpers import CliRunner, read_events, write


def test_the_configuration_is_cached_and_refreshed_on_change(
    repo: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    store = SessionState("claude:s")
    assert hook_config(repo, store)["ways"]["budget_chars"] == 9000
    cache = cache_file(repo)
    assert cache is not None
    assert cache.exists()
    with monkeypatch.context() as patched:  # another session, another worktree: no parse
        patched.setattr("gitflow_harness.store.config.load_config", None)
        assert hook_config(repo, SessionState("claude:another"))["ways"]["budget_chars"] == 9000
        other = repo.parent / "other-worktree"
        other.mkdir()
        assert hook_config(other, SessionState("claude:third"))["ways"]["budget_chars"] == 9000
    write(repo, ".gitflow-harness.toml", "[ways]\nbudget_chars = 123\n")
    assert hook_config(repo, store)["ways"]["budget_chars"] == 123
    write(repo, ".gitflow-harness.toml", "[ways]\nbudget_chars = 456\n")
    os.utime(repo / ".gitflow-harness.toml", ns=(1, 1))
    assert hook_config(repo, store)["ways"]["budget_chars"] == 456


def test_a_configuration_error_fails_open_and_says_where(
    repo: Path, gfh: CliRunner, monkeypatch: pytest.MonkeyPatch
) -> None:
    kit.plug(monkeypatch, [ev.PROMPT], "tests.agent.kit:plain_source")
    write(repo, ".gitflow-harness.toml", "[ways]\nbudget = 1\n")
    result = kit.hook(
        gfh, "claude", "UserPromptSubmit", kit.payload("claude", "UserPromptSubmit", repo)
    )
    assert result.code == 0
    assert "internal error" not in result.err  # the user's file to fix, named as such
    assert ".gitflow-harness.toml:2: unknown key" in result.err
    [error] = [e for e in read_events(repo) if e["type"] == "hook.error"]
    assert "unknown key" in error["data"]["error"]


def test_a_configuration_that_is_not_a_plain_file_is_parsed_not_cached(repo: Path) -> None:
    (repo / ".gitflow-harness.toml").mkdir()
    assert cache_file(repo) is None
    (repo / ".gitflow-harness.toml").rmdir()
    write(repo, ".gitflow-harness.toml", "#" * (2 * 1024 * 1024))
    assert cache_file(repo) is None
