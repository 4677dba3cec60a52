"""The lessons index at subagent start: after the role's ways, for the roles that get one."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.agent import kit
from tests.helpers import CliRunner, write


def _pill(repo: Path, key: str, trigger: str, severity: str = "medium") -> None:
    folder, slug = key.split("/")
    write(
        repo,
        f"pills/{key}.md",
        f"---\nid: {folder}-{slug}\napplies_to: [{folder}]\nseverity: {severity}\n"
        "status: active\ndate: 2026-11-01\nlast_seen: 2026-11-02\noccurrences: 2\n"
        f"trigger: {trigger}\ncitations: []\nsource: a review\n---\n\n## Rule\n\nCheck.\n",
    )


def test_a_reviewer_gets_its_ways_then_its_lessons(repo: Path, gfh: CliRunner) -> None:
    kit.way(repo, "review", "roles: [reviewer]\n" + kit.EXPONENTIAL, "Review checklist.")
    _pill(repo, "reviewer/crlf", "a diff touches line ends", severity="high")
    _pill(repo, "implementer/parser", "editing the parser")
    result = kit.hook(gfh, "claude", "SubagentStart", kit.payload("claude", "SubagentStart", repo))
    assert kit.context(result) == (
        "Review checklist.\n\n"
        "Lessons learned for the reviewer role (1 lesson). When a trigger matches\n"
        "your task, read that pill's file for its rule before you act:\n"
        "- [high] reviewer-crlf: a diff touches line ends (pills/reviewer/crlf.md)"
    )


def test_a_role_without_lessons_or_outside_the_graph_gets_no_index(
    repo: Path, gfh: CliRunner
) -> None:
    _pill(repo, "reviewer/crlf", "a diff touches line ends")
    start = kit.payload("claude", "SubagentStart", repo)
    planner = kit.hook(gfh, "claude", "SubagentStart", {**start, "agent_type": "planner"})
    assert planner.out == ""
    write(repo, ".gitflow-harness.toml", '[graph]\nstages = ["implementer"]\n')
    reviewer = kit.hook(gfh, "claude", "SubagentStart", start)
    assert reviewer.out == ""  # the graph names its stages: the reviewer is not one


def test_cursor_and_codex_subagent_starts_take_no_context_so_nothing_waits_for_later(
    repo: Path, gfh: CliRunner
) -> None:
    """If a subagent start cannot carry context (Cursor's subagentStart, Codex's SubagentStart),
    then neither the role's ways nor its lessons are kept for a later event, which would reach
    the main agent instead."""
    kit.way(repo, "review", "roles: [reviewer]\n" + kit.EXPONENTIAL, "Review checklist.")
    _pill(repo, "reviewer/crlf", "a diff touches line ends")
    start = kit.hook(gfh, "cursor", "subagentStart", kit.payload("cursor", "subagentStart", repo))
    assert start.json() == {}
    resumed = kit.hook(gfh, "cursor", "sessionStart", kit.payload("cursor", "sessionStart", repo))
    assert "Review checklist" not in resumed.out
    codex = kit.hook(gfh, "codex", "SubagentStart", kit.payload("codex", "SubagentStart", repo))
    assert codex.out == ""
    pre = kit.hook(gfh, "codex", "PreToolUse", kit.payload("codex", "PreToolUse.Bash", repo))
    assert pre.out == ""
    assert kit.decisions(repo) == []


def test_a_pill_with_an_impossible_date_leaves_the_others_in_the_index(
    repo: Path, gfh: CliRunner
) -> None:
    """If one of a role's pills cannot be read, then its subagents still get the rest."""
    _pill(repo, "reviewer/crlf", "a diff touches line ends")
    _pill(repo, "reviewer/broken", "never shown")
    broken = repo / "pills/reviewer/broken.md"
    broken.write_text(broken.read_text().replace("date: 2026-11-01", "date: 2026-02-30"))
    result = kit.hook(gfh, "claude", "SubagentStart", kit.payload("claude", "SubagentStart", repo))
    assert result.code == 0
    context = kit.context(result) or ""
    assert "- [medium] reviewer-crlf: a diff touches line ends (pills/reviewer/crlf.md)" in context
    assert "broken" not in context


def test_the_lessons_source_reads_the_hooks_configuration_not_the_file_again(
    repo: Path, gfh: CliRunner, monkeypatch: pytest.MonkeyPatch
) -> None:
    """If the session already holds the configuration, then a SubagentStart does not parse
    `.gitflow-harness.toml` again for the lessons: the hook's one copy decides."""
    from gitflow_harness.store import config

    write(repo, ".gitflow-harness.toml", '[graph]\nstages = ["reviewer"]\n')
    _pill(repo, "reviewer/crlf", "a diff touches line ends")
    start = kit.payload("claude", "SubagentStart", repo)
    assert "reviewer-crlf" in (kit.context(kit.hook(gfh, "claude", "SubagentStart", start)) or "")
    loads: list[object] = []
    real = config.load_config
    monkeypatch.setattr(config, "load_config", lambda top: loads.append(top) or real(top))
    again = kit.hook(gfh, "claude", "SubagentStart", start)
    assert "reviewer-crlf" in (kit.context(again) or "")
    assert loads == []


def test_without_a_session_the_lessons_still_reach_the_subagent(repo: Path, gfh: CliRunner) -> None:
    """If the payload has no session id, then the role's ways (governed by a curve) are not
    delivered, and its lessons index (governed by none) still is."""
    kit.way(repo, "review", "roles: [reviewer]\n" + kit.EXPONENTIAL, "Review checklist.")
    _pill(repo, "reviewer/crlf", "a diff touches line ends", severity="high")
    data = kit.payload("claude", "SubagentStart", repo)
    del data["session_id"]
    result = kit.hook(gfh, "claude", "SubagentStart", data)
    text = kit.context(result)
    assert text is not None
    assert text.startswith("Lessons learned for the reviewer role (1 lesson).")
    assert "Review checklist." not in text
    assert "NoSession" in result.err
