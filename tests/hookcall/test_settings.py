"""The configuration on the hook path: cached by content, refreshed when the file changes."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from gitflow_harness.hookcall import model as ev
from gitflow_harness.hookcall.session import SessionState
from gitflow_harness.hookcall.settings import KEEP_CACHE_S, cache_file, hook_config, prune_cache
from tests.agent import kit
from tests.helpers import CliRunner, read_events, write


def test_the_configuration_is_cached_and_refreshed_on_change(
    repo: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    store = SessionState("claude:s")
    assert hook_config(repo, store)["ways"]["budget_chars"] == 9000
    found = cache_file(repo)
    assert found is not None
    cache = Path(found)
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


def test_a_cache_made_of_another_configuration_is_not_used(repo: Path) -> None:
    """If the cache's name is another configuration's too (its name is a short hash), then
    what the file says it was made of tells them apart: it is parsed again, and rewritten."""
    write(repo, ".gitflow-harness.toml", "[ways]\nbudget_chars = 123\n")
    store = SessionState("claude:s")
    assert hook_config(repo, store)["ways"]["budget_chars"] == 123
    found = cache_file(repo)
    assert found is not None
    cached = json.loads(Path(found).read_text(encoding="utf-8"))
    assert cached["of"].endswith("budget_chars = 123\n")
    cached["of"] = cached["of"].replace("123", "777")
    cached["values"]["ways"]["budget_chars"] = 777
    Path(found).write_text(json.dumps(cached), encoding="utf-8")
    assert hook_config(repo, store)["ways"]["budget_chars"] == 123
    assert (
        json.loads(Path(found).read_text(encoding="utf-8"))["values"]["ways"]["budget_chars"] == 123
    )


def test_caches_unwritten_for_a_month_are_pruned(repo: Path) -> None:
    """If a configuration's cache was written a month ago, then pruning removes it (the next
    call that reads it parses the file once), and the others stay."""
    store = SessionState("claude:s")
    hook_config(repo, store)
    old = Path(str(cache_file(repo)))
    write(repo, ".gitflow-harness.toml", "[ways]\nbudget_chars = 123\n")
    hook_config(repo, store)
    new = Path(str(cache_file(repo)))
    month_ago = old.stat().st_mtime - KEEP_CACHE_S - 60
    os.utime(old, (month_ago, month_ago))
    assert prune_cache() == 1
    assert not old.exists()
    assert new.exists()
    assert prune_cache() == 0


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


def _declared_records() -> dict[str, list[str]]:
    """The `TypedDict`s `settings.py` declares for type checkers: {class: its keys, in order}."""
    import ast

    from gitflow_harness.hookcall import settings

    tree = ast.parse(Path(settings.__file__).read_text(encoding="utf-8"))
    return {
        node.name: [
            item.target.id
            for item in node.body
            if isinstance(item, ast.AnnAssign) and isinstance(item.target, ast.Name)
        ]
        for node in ast.walk(tree)
        if isinstance(node, ast.ClassDef)
    }


def test_the_typed_configuration_names_every_section_and_key_of_the_schema(repo: Path) -> None:
    """The type checkers' view of the hook's configuration is the schema's: a key added to
    `store/config.py` without its type here fails, and so does one that went."""
    from gitflow_harness.store.config import SECTIONS

    declared = _declared_records()
    assert declared["HookConfig"] == list(SECTIONS)
    values = hook_config(repo, None)
    assert list(values) == list(SECTIONS)
    for section, schema in SECTIONS.items():
        record = f"{section.capitalize()}Settings"
        assert declared[record] == [f.name for f in schema.fields], record
        assert list(values[section]) == declared[record]  # type: ignore[literal-required]
