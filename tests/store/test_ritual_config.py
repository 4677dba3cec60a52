"""The `[ritual]` record a Stop builds from the hook's plain data is the one the configuration's
reader builds from the file."""

from __future__ import annotations

from pathlib import Path

from gitflow_harness.hookcall.settings import hook_config
from gitflow_harness.ritual.hook import ritual_config
from gitflow_harness.store import config
from gitflow_harness.store.ritual_config import RitualConfig

RITUAL = (
    "[ritual]\n"
    'enforce = ["claude", "codex"]\n'
    "require_box = false\n"
    "max_blocks = 5\n"
    'chat_turns = "box"\n'
)


def test_the_hooks_record_equals_the_configurations(repo: Path) -> None:
    (repo / config.CONFIG_FILE).write_text(RITUAL, encoding="utf-8")
    read = config.load_config(repo).ritual
    assert type(read) is RitualConfig
    assert read == RitualConfig(("claude", "codex"), True, False, True, 5, "box")
    assert ritual_config(hook_config(repo, None)) == read


def test_without_a_file_both_give_the_defaults(repo: Path) -> None:
    assert ritual_config(hook_config(repo, None)) == config.default_config().ritual
