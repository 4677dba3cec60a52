from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest

from gitflow_harness.learning import index

PutPill = Callable[..., Path]


def test_index_lists_own_and_shared_lessons_and_leaves_out_retired_and_others(
    repo: Path, put_pill: PutPill
) -> None:
    put_pill("implementer/parser", severity="low", trigger="editing the parser")
    put_pill("implementer/crlf", severity="high", trigger="touching line ends")
    put_pill("shared/naming", applies_to="[implementer, reviewer]", trigger="naming things")
    put_pill("shared/docs", applies_to="[reviewer, writer]", trigger="docs")
    put_pill("implementer/old", under="retired", status="retired", trigger="old news")
    put_pill("reviewer/style", applies_to="[reviewer]", trigger="style")
    text = index.lessons_index(repo, "pills", "implementer")
    assert text == (
        "Lessons learned for the implementer role (3 lessons). When a trigger matches\n"
        "your task, read that pill's file for its rule before you act:\n"
        "- [high] implementer-crlf: touching line ends (pills/implementer/crlf.md)\n"
        "- [medium] shared-naming: naming things (pills/shared/naming.md)\n"
        "- [low] implementer-parser: editing the parser (pills/implementer/parser.md)\n"
    )


def test_index_of_a_role_without_lessons_is_empty(repo: Path, put_pill: PutPill) -> None:
    put_pill()
    assert index.lessons_index(repo, "pills", "planner") == ""


def test_trigger_is_collapsed_and_cut_at_160_characters(repo: Path, put_pill: PutPill) -> None:
    words = " ".join(f"word{i}" for i in range(60))
    put_pill(trigger=f"|\n  {words[:150]}\n  {words[150:]}")
    line = index.lessons_index(repo, "pills", "implementer").splitlines()[2]
    trigger = line.removeprefix("- [medium] implementer-parser: ").removesuffix(
        " (pills/implementer/parser.md)"
    )
    assert len(trigger) == 160
    assert trigger.endswith("…")
    assert "\n" not in trigger
    assert "  " not in trigger
    assert index.collapse("a  b\n c") == "a b c"


def test_a_warm_cache_parses_nothing(
    repo: Path, put_pill: PutPill, monkeypatch: pytest.MonkeyPatch
) -> None:
    """If the hook re-parsed unchanged pills, it would pay for YAML on every subagent start."""
    put_pill()
    first = index.lessons_index(repo, "pills", "implementer")

    def no_parse(root: Path, rel: str) -> None:
        raise AssertionError(f"parsed {rel} again")

    monkeypatch.setattr(index, "_parse", no_parse)
    assert index.lessons_index(repo, "pills", "implementer") == first


def test_a_changed_pill_is_parsed_again(repo: Path, put_pill: PutPill) -> None:
    put_pill(trigger="first")
    assert "first" in index.lessons_index(repo, "pills", "implementer")
    put_pill(trigger="second, a longer trigger")
    assert "second" in index.lessons_index(repo, "pills", "implementer")
    put_pill(status="retired")
    assert index.lessons_index(repo, "pills", "implementer") == ""


def test_a_broken_pill_is_left_out_of_the_index(repo: Path, put_pill: PutPill) -> None:
    put_pill("implementer/good")
    put_pill("implementer/bad", occurrences="zero")
    text = index.lessons_index(repo, "pills", "implementer")
    assert "implementer-good" in text
    assert "implementer-bad" not in text


def test_index_module_imports_no_yaml(tmp_path: Path) -> None:
    import subprocess
    import sys

    code = (
        "import sys, gitflow_harness.learning.index;"
        "print(sorted(m for m in ('yaml', 'git', 'click', 'frontmatter') if m in sys.modules))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]"


def test_the_injection_rule_is_the_graph_stages_else_every_role() -> None:
    assert index.injects((), "anyone")
    assert index.injects(("planner", "reviewer"), "reviewer")
    assert not index.injects(("planner", "reviewer"), "implementer")


def test_subagent_context_follows_the_graph(repo: Path, put_pill: PutPill) -> None:
    put_pill()
    assert index.subagent_context(repo, "pills", (), "implementer") == index.lessons_index(
        repo, "pills", "implementer"
    )
    assert index.subagent_context(repo, "pills", (), "planner") == ""  # no lesson of its own
    assert index.subagent_context(repo, "pills", ("reviewer",), "implementer") == ""
    assert index.subagent_context(repo, "pills", ("implementer",), "implementer") != ""
