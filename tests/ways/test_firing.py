"""Ways through real hook calls: real way files in a real repository, host-shaped payloads.

Each lane fires on the event that opens it, the engagement state decides fire / suppress /
refire on the way's curve and axis, and a compaction starts a new episode.
"""

from __future__ import annotations

import io
import json
from pathlib import Path
from typing import Any

import pytest

from gitflow_harness.agent import runtime
from gitflow_harness.hookcall.session import SessionState
from tests.agent import kit
from tests.helpers import CliRunner, git, make_repo, read_events

CLAUDE = "claude:7f3c9d2e-1b4a-4c55-9a61-2f0d8e6b1a90"
ALWAYS = "curve: {type: Flat, suppression: 0}\n"  # never present after a fire: fires each match


def _prompt(repo: Path, transcript: Path | None = None, **fields: Any) -> dict[str, Any]:
    path = str(transcript) if transcript is not None else None
    return kit.payload("claude", "UserPromptSubmit", repo, transcript_path=path, **fields)


def _grow(transcript: Path, *lines: str) -> None:
    with open(transcript, "a", encoding="utf-8") as out:
        out.write("".join(lines))


def _fired(repo: Path) -> list[dict[str, Any]]:
    return [e["data"] for e in read_events(repo) if e["type"] == "way.fired"]


# -- the episode: fire, suppress, refire, compaction -------------------------------------------


def test_a_prompt_way_fires_is_suppressed_refires_and_returns_after_compaction(
    repo: Path, gfh: CliRunner, tmp_path: Path
) -> None:
    """If an Exponential way (half-life 10000, floor 0.5) matches the prompt at tokens 20000,
    25000 and 30001, then it fires, is suppressed (salience 0.71), and refires (salience just
    under 0.5); after a compaction the next match is a first fire again, the tick carried on."""
    kit.way(repo, "parser", "when:\n  prompt: '\\bparser\\b'\n" + kit.EXPONENTIAL, "Parser notes.")
    transcript = tmp_path / "t.jsonl"
    transcript.write_text(kit.transcript_line("m1", 20000))
    first = kit.hook(gfh, "claude", "UserPromptSubmit", _prompt(repo, transcript))
    assert kit.context(first) == "Parser notes."
    _grow(transcript, kit.transcript_line("m2", 25000))
    near = kit.hook(gfh, "claude", "UserPromptSubmit", _prompt(repo, transcript))
    assert near.out == ""
    _grow(transcript, kit.transcript_line("m3", 30001))
    later = kit.hook(gfh, "claude", "UserPromptSubmit", _prompt(repo, transcript))
    assert kit.context(later) == "Parser notes."
    kit.hook(gfh, "claude", "PreCompact", kit.payload("claude", "PreCompact", repo))
    _grow(transcript, kit.boundary_line("b1"), kit.transcript_line("m4", 9000))
    after = kit.hook(gfh, "claude", "UserPromptSubmit", _prompt(repo, transcript))
    assert kit.context(after) == "Parser notes."
    assert kit.decisions(repo) == [
        ("parser", "fired", 20000, "first"),
        ("parser", "suppressed", 25000, "salience"),
        ("parser", "fired", 30001, "refire"),
        ("parser", "fired", 30001, "first"),  # a new episode; the tick carried on, not back
    ]
    suppressed = next(e["data"] for e in read_events(repo) if e["type"] == "way.suppressed")
    assert suppressed == {
        "way": "parser",
        "trigger": "prompt",
        "tick": 25000,
        "axis": "tokens",
        "kind": "refire",
        "salience": pytest.approx(0.5**0.5),
        "reason": "salience",
    }
    refire = _fired(repo)[1]
    assert refire["salience"] < 0.5
    state = SessionState(CLAUDE).read()
    assert state["ways"]["parser"] == {
        "last_fire": 30001,
        "episode_start": 30001,
        "history": [],
        "epoch": 1,
        "axis": "tokens",
    }


def test_an_unsignalled_drop_in_the_transcript_also_starts_a_new_episode(
    repo: Path, gfh: CliRunner, tmp_path: Path
) -> None:
    kit.way(repo, "parser", "when:\n  prompt: parser\ncurve: {type: Flat, suppression: 10000000}\n")
    transcript = tmp_path / "t.jsonl"
    transcript.write_text(kit.transcript_line("m1", 50000))
    kit.hook(gfh, "claude", "UserPromptSubmit", _prompt(repo, transcript))
    _grow(transcript, kit.transcript_line("m2", 4000))
    again = kit.hook(gfh, "claude", "UserPromptSubmit", _prompt(repo, transcript))
    assert kit.context(again) == "Guidance of parser."
    assert kit.decisions(repo) == [
        ("parser", "fired", 50000, "first"),
        ("parser", "fired", 50000, "first"),
    ]


def test_the_tick_stays_monotonic_across_a_compaction_no_way_saw_coming(
    repo: Path, gfh: CliRunner, tmp_path: Path
) -> None:
    """If no way read the transcript before a compaction, then PreCompact reads the size before
    the drop itself: the tick carries on from that size, so the first fire after it sits there."""
    kit.way(repo, "parser", "when:\n  prompt: parser\n" + kit.EXPONENTIAL)
    transcript = tmp_path / "t.jsonl"
    transcript.write_text(kit.transcript_line("m1", 20000) + kit.transcript_line("m2", 50000))
    compact = kit.payload("claude", "PreCompact", repo, transcript_path=str(transcript))
    kit.hook(gfh, "claude", "PreCompact", compact)
    _grow(transcript, kit.boundary_line("b1"), kit.transcript_line("m3", 9000))
    kit.hook(gfh, "claude", "UserPromptSubmit", _prompt(repo, transcript))
    assert kit.decisions(repo) == [("parser", "fired", 50000, "first")]


def test_a_huge_last_line_keeps_the_last_known_tick(
    repo: Path, gfh: CliRunner, tmp_path: Path
) -> None:
    """If the transcript's last line is longer than the 8 MiB budget, then the position is
    unknown and the way is decided at the last tick seen, not at a tick of 0 or the turn."""
    kit.way(repo, "parser", "when:\n  prompt: parser\n" + kit.EXPONENTIAL)
    transcript = tmp_path / "t.jsonl"
    transcript.write_text(kit.transcript_line("m1", 20000))
    kit.hook(gfh, "claude", "UserPromptSubmit", _prompt(repo, transcript))
    _grow(transcript, '{"type": "user", "x": "' + "A" * (9 * 1024 * 1024) + '"}\n')
    kit.hook(gfh, "claude", "UserPromptSubmit", _prompt(repo, transcript))
    assert kit.decisions(repo) == [
        ("parser", "fired", 20000, "first"),
        ("parser", "suppressed", 20000, "salience"),
    ]


def test_a_broken_way_is_reported_once_per_session_and_the_others_still_fire(
    repo: Path, gfh: CliRunner
) -> None:
    """If a way file stops loading (a bad edit or merge), then the hook says so — one stderr
    line naming the file, a hook.error — once per session, and the other ways fire as before."""
    kit.way(repo, "good", "when:\n  keywords: [parser]\ncurve: {type: Flat, suppression: 0}\n")
    kit.way(repo, "broken", "when:\n  keywords: [parser]\nredisclose: 3\n")
    first = kit.hook(gfh, "claude", "UserPromptSubmit", _prompt(repo))
    assert kit.context(first) == "Guidance of good."
    assert first.err == (
        "gfh hook claude UserPromptSubmit: WayProblem: hooks/ways/broken/broken.md:5: error: "
        "redisclose is retired: run `gfh ways migrate` to turn it into a curve; the way does "
        "not fire until it is fixed (`gfh ways lint`)\n"
    )
    second = kit.hook(gfh, "claude", "UserPromptSubmit", _prompt(repo))
    assert (kit.context(second), second.err) == ("Guidance of good.", "")
    errors = [e for e in read_events(repo) if e["type"] == "hook.error"]
    assert [(e["session"], e["data"]["error"].split(":")[1]) for e in errors] == [
        (CLAUDE, " hooks/ways/broken/broken.md")
    ]
    other = kit.hook(gfh, "claude", "UserPromptSubmit", _prompt(repo, session_id="s-2"))
    assert "broken.md" in other.err  # another session is told too


def test_a_failed_stdout_write_records_no_fire_and_keeps_the_way_unfired(repo: Path) -> None:
    """If stdout breaks while the context is written, then no way.fired is recorded and the
    engagement is not committed: the next prompt fires the way as a first fire."""
    kit.way(repo, "tests", "when:\n  keywords: [tests]\n" + kit.EXPONENTIAL, "Run the tests.")
    data = json.dumps(_prompt(repo))

    class Broken(io.StringIO):
        def write(self, text: str) -> int:
            raise BrokenPipeError(32, "Broken pipe")

    err = io.StringIO()
    code = runtime.main(
        "claude", "UserPromptSubmit", stdin=io.StringIO(data), stdout=Broken(), stderr=err
    )
    assert code == 0
    assert "BrokenPipeError" in err.getvalue()
    assert "way.fired" not in [e["type"] for e in read_events(repo)]
    assert "ways" not in SessionState(CLAUDE).read()
    out = io.StringIO()
    runtime.main("claude", "UserPromptSubmit", stdin=io.StringIO(data), stdout=out, stderr=err)
    assert json.loads(out.getvalue())["hookSpecificOutput"]["additionalContext"] == "Run the tests."
    assert [(f["way"], f["kind"], f["tick"]) for f in _fired(repo)] == [("tests", "first", 2)]


def test_without_a_transcript_the_tick_is_the_turn_count(repo: Path, gfh: CliRunner) -> None:
    kit.way(repo, "parser", "when:\n  prompt: parser\ncurve: {type: Flat, suppression: 2}\n")
    for _ in range(4):
        kit.hook(gfh, "claude", "UserPromptSubmit", _prompt(repo))
    assert [(f["axis"], f["tick"], f["kind"]) for f in _fired(repo)] == [
        ("turns", 1, "first"),
        ("turns", 3, "refire"),
    ]


def test_a_transcript_that_never_gives_a_position_ticks_tokens_ways_on_turns(
    repo: Path, gfh: CliRunner, tmp_path: Path
) -> None:
    """If the session's transcript exists but has never given a token position, then a way on
    the tokens axis ticks on turns and still refires; once a position is read, the session stays
    on tokens — even when the transcript later gives none. A fire counted on turns is not
    compared with a token tick (20000 tokens are not 20000 turns): it counts as shown just now."""
    kit.way(repo, "parser", "when:\n  prompt: parser\ncurve: {type: Flat, suppression: 2}\n")
    transcript = tmp_path / "t.jsonl"
    transcript.write_text('{"type": "user", "message": {"role": "user"}}\n')
    for _ in range(4):
        kit.hook(gfh, "claude", "UserPromptSubmit", _prompt(repo, transcript))
    _grow(transcript, kit.transcript_line("m1", 20000))
    kit.hook(gfh, "claude", "UserPromptSubmit", _prompt(repo, transcript))
    _grow(transcript, '{"type": "user", "x": "' + "A" * (9 * 1024 * 1024) + '"}\n')
    kit.hook(gfh, "claude", "UserPromptSubmit", _prompt(repo, transcript))
    transcript.unlink()
    kit.hook(gfh, "claude", "UserPromptSubmit", _prompt(repo, transcript))
    assert [(d["axis"], d["tick"], d.get("reason", d["kind"])) for d in _decided(repo)] == [
        ("turns", 1, "first"),
        ("turns", 2, "salience"),
        ("turns", 3, "refire"),
        ("turns", 4, "salience"),
        ("tokens", 20000, "salience"),
        ("tokens", 20000, "salience"),
        ("tokens", 20000, "salience"),
    ]
    _grow(transcript, kit.transcript_line("m2", 20002))
    kit.hook(gfh, "claude", "UserPromptSubmit", _prompt(repo, transcript))
    assert _decided(repo)[-1]["kind"] == "refire"  # two tokens on: Flat(2) refires


def _decided(repo: Path) -> list[dict[str, Any]]:
    return [e["data"] for e in read_events(repo) if e["type"] in ("way.fired", "way.suppressed")]


# -- the lanes --------------------------------------------------------------------------------


def test_the_files_lane_maps_an_edit_in_a_linked_worktree_against_that_worktree(
    repo: Path, gfh: CliRunner
) -> None:
    """If the host's cwd stays at the main checkout while the agent edits in a worktree of the
    same repository (outside the project dir, as `gfh start` makes them), then the path is taken
    relative to that worktree's top, and the files lane still matches it."""
    kit.way(repo, "source", "when:\n  files: ['src/*.py']\n" + ALWAYS)
    worktree = repo.parent / f"{repo.name}.worktrees" / "f1"
    git(repo, "worktree", "add", "-q", "-b", "f1", str(worktree))
    edit = kit.payload(
        "claude", "PostToolUse.Edit", repo, tool_input={"file_path": f"{worktree}/src/a.py"}
    )
    assert edit["cwd"] == str(repo)
    assert kit.context(kit.hook(gfh, "claude", "PostToolUse", edit)) == "Guidance of source."
    from_worktree = {**edit, "cwd": str(worktree)}
    assert kit.context(kit.hook(gfh, "claude", "PostToolUse", from_worktree)) == (
        "Guidance of source."
    )
    other = make_repo(repo.parent / "other")
    foreign = {**edit, "tool_input": {"file_path": f"{other}/src/a.py"}}
    assert kit.hook(gfh, "claude", "PostToolUse", foreign).out == ""  # another repository


def test_keywords_fire_on_the_prompt_as_whole_words(repo: Path, gfh: CliRunner) -> None:
    kit.way(repo, "parsing", "when:\n  keywords: [parser]\n" + kit.EXPONENTIAL)
    kit.way(repo, "testing", "when:\n  keywords: [test]\n" + kit.EXPONENTIAL)
    result = kit.hook(gfh, "claude", "UserPromptSubmit", _prompt(repo))  # "…tests…the parser"
    assert kit.context(result) == "Guidance of parsing."
    assert [(f["way"], f["trigger"]) for f in _fired(repo)] == [("parsing", "prompt")]


def test_the_magnitude_is_the_number_of_lanes_that_matched(repo: Path, gfh: CliRunner) -> None:
    """If an ActionPotential way is in a burst, then a prompt matching one of its lanes is
    refused and one matching both (magnitude 2) gets through the raised threshold."""
    kit.way(
        repo,
        "deploy",
        "when:\n  prompt: deploy\n  keywords: [release]\naxis: turns\n"
        "curve: {type: ActionPotential, burst_threshold: 2, peak_multiplier: 2.0,"
        " absolute_refractory: 0, multiplier_half_life: 100}\n",
    )
    for prompt in ("deploy it", "deploy again", "deploy once more", "deploy the release"):
        kit.hook(gfh, "claude", "UserPromptSubmit", _prompt(repo, prompt=prompt))
    assert kit.decisions(repo) == [
        ("deploy", "fired", 1, "first"),
        ("deploy", "fired", 2, "refire"),
        ("deploy", "suppressed", 3, "refractory"),
        ("deploy", "fired", 4, "refire"),
    ]


def test_the_files_lane_matches_repo_relative_paths_of_write_edit_and_read(
    repo: Path, gfh: CliRunner
) -> None:
    kit.way(repo, "source", "when:\n  files: ['src/**/*.py']\n" + kit.EXPONENTIAL)
    kit.way(repo, "readme", "when:\n  files: ['/README.md']\n" + kit.EXPONENTIAL)
    write = kit.hook(gfh, "claude", "PostToolUse", kit.payload("claude", "PostToolUse.Write", repo))
    assert kit.context(write) == "Guidance of source."
    edit = kit.hook(gfh, "claude", "PostToolUse", kit.payload("claude", "PostToolUse.Edit", repo))
    assert edit.out == ""  # the same file a moment later: still in context
    read = kit.hook(gfh, "claude", "PostToolUse", kit.payload("claude", "PostToolUse.Read", repo))
    assert kit.context(read) == "Guidance of readme."
    outside = kit.payload(
        "claude", "PostToolUse.Write", repo, tool_input={"file_path": "/elsewhere/src/a.py"}
    )
    kit.hook(gfh, "claude", "PostToolUse", outside)
    assert kit.decisions(repo) == [
        ("source", "fired", 0, "first"),
        ("source", "suppressed", 0, "salience"),
        ("readme", "fired", 0, "first"),
    ]
    assert {f["trigger"] for f in _fired(repo)} == {"file"}


@pytest.mark.parametrize(
    ("adapter", "tool", "fires"),
    [
        ("claude", "Grep", False),
        ("claude", "Glob", False),
        ("claude", "LS", False),
        ("claude", "MultiEdit", True),
        ("claude", "NotebookEdit", True),
        ("cursor", "Grep", False),
        ("cursor", "StrReplace", True),
        ("codex", "Bash", False),
    ],
)
def test_the_files_lane_is_for_tools_that_read_or_edit_a_file(
    repo: Path, gfh: CliRunner, adapter: str, tool: str, fires: bool
) -> None:
    """If a search tool names a path (Grep with `path: src/parser.py`), then the files lane does
    not match: it is for the tools that read or edit the file."""
    kit.way(repo, "source", "when:\n  files: ['src/**']\n" + ALWAYS)
    path = str(repo / "src" / "parser.py")
    tool_input = {"pattern": "def", "path": path, "file_path": path, "notebook_path": path}
    fixture = {"claude": "PostToolUse.Write", "cursor": "postToolUse", "codex": "PostToolUse.Bash"}
    event = {"claude": "PostToolUse", "cursor": "postToolUse", "codex": "PostToolUse"}[adapter]
    data = kit.payload(adapter, fixture[adapter], repo, tool_name=tool, tool_input=tool_input)
    kit.hook(gfh, adapter, event, data)
    if adapter != "claude":  # the others deliver what waits at their next channel
        start = {"cursor": "sessionStart", "codex": "PreToolUse"}[adapter]
        fixture = {"cursor": "sessionStart", "codex": "PreToolUse.Bash"}[adapter]
        kit.hook(gfh, adapter, start, kit.payload(adapter, fixture, repo))
    assert [(f["way"], f["trigger"]) for f in _fired(repo)] == (
        [("source", "file")] if fires else []
    )


def test_the_commands_lane_fires_after_a_shell_command_not_before(
    repo: Path, gfh: CliRunner
) -> None:
    kit.way(repo, "status", "when:\n  commands: '\\bgfh\\s+status\\b'\n" + kit.EXPONENTIAL)
    before = kit.hook(gfh, "claude", "PreToolUse", kit.payload("claude", "PreToolUse.Bash", repo))
    assert before.out == ""  # PreToolUse opens no lane
    after = kit.hook(gfh, "claude", "PostToolUse", kit.payload("claude", "PostToolUse.Bash", repo))
    assert kit.context(after) == "Guidance of status."
    assert [(f["trigger"], f["kind"]) for f in _fired(repo)] == [("command", "first")]


def test_a_tracked_postcheck_fires_its_way_after_a_tool_and_after_a_failure(
    repo: Path, gfh: CliRunner
) -> None:
    kit.way(repo, "asks", ALWAYS, postcheck="cat > /dev/null\nexit 0\n")
    kit.way(repo, "quiet", ALWAYS, postcheck="exit 1\n")
    kit.way(repo, "untracked", ALWAYS, postcheck="exit 0\n", track=False)
    post = kit.hook(gfh, "claude", "PostToolUse", kit.payload("claude", "PostToolUse.Write", repo))
    assert kit.context(post) == "Guidance of asks."
    failed = kit.hook(
        gfh,
        "claude",
        "PostToolUseFailure",
        kit.payload("claude", "PostToolUseFailure.Bash", repo),
    )
    assert kit.context(failed) == "Guidance of asks."
    assert [(f["way"], f["trigger"]) for f in _fired(repo)] == [("asks", "postcheck")] * 2


def test_a_postcheck_reads_the_payload_and_its_lane_adds_to_the_magnitude(
    repo: Path, gfh: CliRunner
) -> None:
    """If a way's files lane and its postcheck both match, then the magnitude is 2: enough to
    get through a burst that refuses a single lane."""
    check = 'grep -q \'"tool_name": "Write"\' && exit 0\nexit 1\n'
    kit.way(
        repo,
        "writes",
        "when:\n  files: ['src/**']\naxis: turns\n"
        "curve: {type: ActionPotential, burst_threshold: 1, peak_multiplier: 2.0,"
        " absolute_refractory: 0, multiplier_half_life: 100}\n",
        postcheck=check,
    )
    write = kit.payload("claude", "PostToolUse.Write", repo)
    edit = kit.payload("claude", "PostToolUse.Edit", repo)
    kit.hook(gfh, "claude", "PostToolUse", edit)  # files only: first fire
    kit.hook(gfh, "claude", "PostToolUse", edit)  # files only, in the burst: refused
    kit.hook(gfh, "claude", "PostToolUse", write)  # files and postcheck: through
    assert [d[1:] for d in kit.decisions(repo)] == [
        ("fired", 0, "first"),
        ("suppressed", 0, "refractory"),
        ("fired", 0, "refire"),
    ]


def test_session_start_ways_fire_at_startup_and_again_after_a_compaction(
    repo: Path, gfh: CliRunner
) -> None:
    kit.way(repo, "opening", "when:\n  session_start: true\n" + kit.EXPONENTIAL, "Opening words.")
    startup = kit.hook(gfh, "claude", "SessionStart", kit.payload("claude", "SessionStart", repo))
    hint, opening = kit.context(startup).split("\n\n")  # type: ignore[union-attr]
    assert hint.endswith("[ensure-main-worktree-first]")  # the workflow's hint comes first
    assert opening == "Opening words."
    resume = kit.payload("claude", "SessionStart", repo, source="resume")
    resumed = kit.hook(gfh, "claude", "SessionStart", resume)
    assert "Opening words." not in (kit.context(resumed) or "")
    compact = kit.hook(
        gfh, "claude", "SessionStart", kit.payload("claude", "SessionStart.compact", repo)
    )
    assert (kit.context(compact) or "").endswith("Opening words.")
    assert [d[1:] for d in kit.decisions(repo)] == [
        ("fired", 0, "first"),
        ("suppressed", 0, "salience"),
        ("fired", 0, "first"),
    ]
    assert {f["trigger"] for f in _fired(repo)} == {"session"}


def test_roles_ways_fire_into_every_subagent_of_their_role(repo: Path, gfh: CliRunner) -> None:
    """If two reviewer subagents start one after the other, then each gets the way: the
    second's context is new, whatever the first one was told."""
    kit.way(repo, "review", "roles: [reviewer]\n" + kit.EXPONENTIAL, "Review checklist.")
    start = kit.payload("claude", "SubagentStart", repo)
    first = kit.hook(gfh, "claude", "SubagentStart", start)
    second = kit.hook(gfh, "claude", "SubagentStart", {**start, "agent_id": "a-8"})
    other = kit.hook(
        gfh, "claude", "SubagentStart", {**start, "agent_id": "a-9", "agent_type": "planner"}
    )
    assert kit.context(first) == kit.context(second) == "Review checklist."
    assert other.out == ""
    assert [(f["trigger"], f["kind"]) for f in _fired(repo)] == [("subagent", "first")] * 2


def test_scope_chooses_between_the_main_agent_and_subagents(repo: Path, gfh: CliRunner) -> None:
    """If a tool call comes from inside a subagent (it carries `agent_id`), then only ways
    scoped to subagents match, on that subagent's own engagement."""
    kit.way(repo, "main-only", "when:\n  files: ['src/**']\n" + kit.EXPONENTIAL)
    kit.way(repo, "sub-only", "when:\n  files: ['src/**']\nscope: [subagent]\n" + kit.EXPONENTIAL)
    write = kit.payload("claude", "PostToolUse.Write", repo)
    main = kit.hook(gfh, "claude", "PostToolUse", write)
    sub7 = kit.hook(gfh, "claude", "PostToolUse", {**write, "agent_id": "a-7"})
    sub7_again = kit.hook(gfh, "claude", "PostToolUse", {**write, "agent_id": "a-7"})
    sub8 = kit.hook(gfh, "claude", "PostToolUse", {**write, "agent_id": "a-8"})
    assert kit.context(main) == "Guidance of main-only."
    assert kit.context(sub7) == kit.context(sub8) == "Guidance of sub-only."
    assert sub7_again.out == ""
    state = SessionState(CLAUDE).read()
    assert set(state["ways"]) == {"main-only"}
    assert [agent for agent, _ in state["subagent_ways"]] == ["a-7", "a-8"]


def test_cursor_prompt_ways_wait_for_the_next_event_that_takes_context(
    repo: Path, gfh: CliRunner
) -> None:
    """If a way matches Cursor's beforeSubmitPrompt (no context channel), then nothing is shown
    or recorded there, nor at a postToolUse (no channel either); its id waits in the session
    state, and the next sessionStart, Cursor's one channel, delivers it as a prompt fire."""
    kit.way(repo, "tests", "when:\n  prompt: tests\n" + kit.EXPONENTIAL, "Run gfh test.")
    prompt = kit.hook(
        gfh, "cursor", "beforeSubmitPrompt", kit.payload("cursor", "beforeSubmitPrompt", repo)
    )
    assert prompt.json() == {}
    assert _fired(repo) == []
    state = SessionState("cursor:c-5b1e").read()
    assert state["pending"] == [
        {"source": "gitflow_harness.ways.firing:source", "way": "tests", "trigger": "prompt"}
    ]
    assert "gfh test" not in json.dumps(state)
    post = kit.hook(gfh, "cursor", "postToolUse", kit.payload("cursor", "postToolUse", repo))
    assert post.json() == {}
    start = kit.hook(gfh, "cursor", "sessionStart", kit.payload("cursor", "sessionStart", repo))
    assert start.json()["additional_context"].endswith("Run gfh test.")
    [fired] = _fired(repo)
    assert (fired["way"], fired["trigger"], fired["axis"], fired["tick"]) == (
        "tests",
        "prompt",
        "turns",
        1,
    )
    assert SessionState("cursor:c-5b1e").read()["pending"] == []


def test_cursor_tool_lanes_wait_too_and_nothing_is_recorded_as_delivered(
    repo: Path, gfh: CliRunner
) -> None:
    """If Cursor's postToolUse and postToolUseFailure match ways, then no way.fired is recorded
    there (Cursor documents no context channel for them): the ids wait for sessionStart."""
    kit.way(repo, "shell", "when:\n  commands: 'gfh status'\n" + kit.EXPONENTIAL, "Shell.")
    kit.way(repo, "asks", ALWAYS, "Asks.", postcheck="cat > /dev/null\nexit 0\n")
    post = kit.hook(gfh, "cursor", "postToolUse", kit.payload("cursor", "postToolUse", repo))
    failure = kit.payload("cursor", "postToolUseFailure", repo)
    failed = kit.hook(gfh, "cursor", "postToolUseFailure", failure)
    assert (post.json(), failed.json()) == ({}, {})
    assert _fired(repo) == []
    waiting = SessionState("cursor:c-5b1e").read()["pending"]
    assert [(i["way"], i["trigger"]) for i in waiting] == [
        ("asks", "postcheck"),
        ("shell", "command"),
    ]
    kit.hook(gfh, "cursor", "sessionStart", kit.payload("cursor", "sessionStart", repo))
    assert sorted((f["way"], f["trigger"]) for f in _fired(repo)) == [
        ("asks", "postcheck"),
        ("shell", "command"),
    ]


def test_codex_ways_arrive_at_the_event_that_matched_them(repo: Path, gfh: CliRunner) -> None:
    """If a way matches Codex's UserPromptSubmit or PostToolUse, then that call's answer
    carries it (Codex 0.171.0 delivers both), and the next PreToolUse has nothing waiting."""
    kit.way(repo, "tests", "when:\n  prompt: tests\n" + kit.EXPONENTIAL, "Run gfh test.")
    kit.way(repo, "status", "when:\n  commands: 'gfh status'\n" + kit.EXPONENTIAL, "Status.")
    prompt = kit.payload("codex", "UserPromptSubmit", repo, prompt="run the tests")
    assert kit.context(kit.hook(gfh, "codex", "UserPromptSubmit", prompt)) == "Run gfh test."
    post = kit.hook(gfh, "codex", "PostToolUse", kit.payload("codex", "PostToolUse.Bash", repo))
    assert kit.context(post) == "Status."
    assert sorted((f["way"], f["trigger"]) for f in _fired(repo)) == [
        ("status", "command"),
        ("tests", "prompt"),
    ]
    pre = kit.payload("codex", "PreToolUse.Bash", repo)
    assert kit.hook(gfh, "codex", "PreToolUse", pre).out == ""


def test_a_stop_remediation_prompt_matches_no_way(repo: Path, gfh: CliRunner) -> None:
    kit.way(repo, "status", "when:\n  keywords: [status]\n" + kit.EXPONENTIAL)
    marker = "[gfh:stop-remediation rule=status]\nRun gfh status --end-turn."
    result = kit.hook(gfh, "claude", "UserPromptSubmit", _prompt(repo, prompt=marker))
    assert result.out == ""
    assert kit.decisions(repo) == []


def test_a_fire_by_a_parallel_call_withdraws_this_calls_offer(repo: Path, gfh: CliRunner) -> None:
    """If another hook call of the session fires a way between this call's decision and its
    delivery, then the decision is taken again under the lock and this call shows nothing."""
    from gitflow_harness.agent import claude, delivery, sources
    from gitflow_harness.agent.context import HookContext
    from gitflow_harness.agent.repo import locate
    from gitflow_harness.hookcall import model as ev
    from gitflow_harness.hookcall.model import Outcome
    from gitflow_harness.ways import firing as ways_source

    kit.way(repo, "parser", "when:\n  keywords: [parser]\n" + kit.EXPONENTIAL)
    payload = _prompt(repo)
    event = claude.parse("UserPromptSubmit", payload, json.dumps(payload).encode())
    ctx = HookContext(claude, event, locate(repo), lanes=sources.LANES[ev.PROMPT])
    ctx.source_name = sources.WAYS
    offers = ways_source.source(ctx)
    assert [o.way for o in offers] == ["parser"]
    parallel = kit.hook(gfh, "claude", "UserPromptSubmit", payload)
    assert kit.context(parallel) == "Guidance of parser."
    written: list[str] = []
    delivery.emit(ctx, Outcome(), offers, written.append)
    assert written == []
    assert [d[:2] for d in kit.decisions(repo)] == [("parser", "fired"), ("parser", "suppressed")]
    suppressed = _decided(repo)[1]
    assert (suppressed["kind"], suppressed["reason"]) == ("refire", "salience")


@pytest.mark.slow
def test_parallel_hook_processes_fire_a_way_once(repo: Path) -> None:
    """If four prompts of one session reach their hooks at once, then the way fires once and the
    other three calls find it already present: one way.fired, no lost turn, a readable state."""
    import os
    import subprocess
    import sys

    kit.way(repo, "parser", "when:\n  keywords: [parser]\n" + kit.EXPONENTIAL)
    stdin = json.dumps(_prompt(repo)).encode()
    procs = [
        subprocess.Popen(
            [sys.executable, "-m", "gitflow_harness", "hook", "claude", "UserPromptSubmit"],
            cwd=repo,
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            env=os.environ,
        )
        for _ in range(4)
    ]
    answers = [p.communicate(stdin) for p in procs]
    assert [p.returncode for p in procs] == [0, 0, 0, 0]
    assert sum(b"Guidance of parser." in out for out, _ in answers) == 1
    assert all(err == b"" for _, err in answers)
    events = read_events(repo)
    assert sorted(e["data"]["turn"] for e in events if e["type"] == "turn.started") == [1, 2, 3, 4]
    assert [e["type"] for e in events].count("way.fired") == 1
    assert SessionState(CLAUDE).read()["turns"] == 4


# -- without a session ------------------------------------------------------------------------

NO_SESSION = "no way is delivered without a session, whose state its curve needs"


@pytest.mark.parametrize(
    ("adapter", "event", "fixture", "session"),
    [
        ("claude", "UserPromptSubmit", "UserPromptSubmit", {}),
        ("claude", "UserPromptSubmit", "UserPromptSubmit", {"session_id": 42}),
        ("claude", "UserPromptSubmit", "UserPromptSubmit", {"session_id": "s" * 129}),
        ("claude", "PostToolUse", "PostToolUse.Bash", {}),
        ("cursor", "beforeSubmitPrompt", "beforeSubmitPrompt", {}),
        ("cursor", "beforeSubmitPrompt", "beforeSubmitPrompt", {"conversation_id": "a b"}),
        ("codex", "UserPromptSubmit", "UserPromptSubmit", {"prompt": "run the tests"}),
        ("codex", "PostToolUse", "PostToolUse.Bash", {"session_id": ["x"]}),
    ],
    ids=[
        "claude-missing",
        "claude-number",
        "claude-too-long",
        "claude-tool",
        "cursor-missing",
        "cursor-not-an-id",
        "codex-missing",
        "codex-list",
    ],
)
def test_without_a_usable_session_id_no_way_fires_and_the_hook_says_so(
    repo: Path,
    gfh: CliRunner,
    adapter: str,
    event: str,
    fixture: str,
    session: dict[str, Any],
) -> None:
    """If a payload has no usable session id, then no way is delivered or left waiting (there is
    no session state for its curve: every match would fire as a first fire, every call), the
    evidence is still recorded under a null session, and each call says so in one stderr line
    and a hook.error naming the field."""
    kit.way(repo, "tests", "when:\n  keywords: [tests]\n  commands: status\n" + kit.EXPONENTIAL)
    data = kit.payload(adapter, fixture, repo)
    for field in ("session_id", "conversation_id"):
        data.pop(field, None)
    data.update(session)
    field = "conversation_id" if adapter == "cursor" else "session_id"
    for _ in range(2):
        result = kit.hook(gfh, adapter, event, data)
        assert result.code == 0
        assert result.out == ("{}\n" if adapter == "cursor" else "")
        [line] = result.err.splitlines()
        assert line.startswith(f"gfh hook {adapter} {event}: NoSession: the payload")
        assert field in line
        assert line.endswith(NO_SESSION)
    start = {"claude": "SessionStart", "cursor": "sessionStart", "codex": "SessionStart"}
    after = kit.hook(gfh, adapter, start[adapter], kit.payload(adapter, start[adapter], repo))
    assert "Guidance of tests." not in after.out  # nothing waited for a later channel
    events = read_events(repo)
    assert kit.decisions(repo) == []
    errors = [e for e in events if e["type"] == "hook.error"]
    assert [(e["session"], e["data"]["adapter"], e["data"]["event"]) for e in errors] == [
        (None, adapter, event)
    ] * 2
    assert all(e["data"]["error"].startswith("NoSession: ") for e in errors)
    evidence = [e for e in events if e["type"] in ("turn.started", "tool.requested")]
    assert [e["session"] for e in evidence] == [None, None]


def test_without_a_session_a_call_no_way_matches_says_nothing(repo: Path, gfh: CliRunner) -> None:
    """If nothing would have been delivered anyway, a missing session id costs nothing: no
    stderr line, no hook.error, on every tool call of such a host."""
    kit.way(repo, "docs", "when:\n  commands: mkdocs\n" + kit.EXPONENTIAL)
    data = kit.payload("claude", "PostToolUse.Bash", repo)
    del data["session_id"]
    result = kit.hook(gfh, "claude", "PostToolUse", data)
    assert (result.code, result.out, result.err) == (0, "", "")
    assert [e for e in read_events(repo) if e["type"] == "hook.error"] == []


@pytest.mark.parametrize(("adapter", "event"), kit.SESSION_STARTS)
def test_without_a_session_the_ensure_hint_still_opens_the_session(
    repo: Path, gfh: CliRunner, adapter: str, event: str
) -> None:
    """If a session start has no session id, then its `session_start` ways are not delivered but
    what no curve governs — the `ensure` hint — still is."""
    kit.way(repo, "opening", "when:\n  session_start: true\n" + kit.EXPONENTIAL, "Opening.")
    data = kit.payload(adapter, event, repo)
    for field in ("session_id", "conversation_id"):
        data.pop(field, None)
    result = kit.hook(gfh, adapter, event, data)
    assert result.code == 0
    assert "[ensure-main-worktree-first]" in result.out
    assert "Opening." not in result.out
    assert "NoSession" in result.err
    assert kit.decisions(repo) == []


# Each macro waits until every call has reached it: all calls decide (and find the way unfired)
# before any of them delivers, so all but one are withdrawn under the session lock.
BARRIER_MACRO = """cat > /dev/null
mkdir -p .git/barrier && : > ".git/barrier/$$"
i=0
while [ "$(ls .git/barrier | wc -l)" -lt {n} ] && [ "$i" -lt 2400 ]; do
  sleep 0.05; i=$((i + 1))
done
"""


@pytest.mark.slow
def test_every_match_of_parallel_calls_is_recorded_once_fired_or_suppressed(
    repo: Path, tmp_path: Path
) -> None:
    """If twelve PostToolUse calls of one session match a way at once and all decide before any
    delivers, then one fires and the other eleven, withdrawn under the lock, are recorded as
    way.suppressed with the gate's reason: `gfh ways tune` sees every match."""
    import os
    import subprocess
    import sys

    calls = 12
    (repo / ".gitflow-harness.toml").write_text("[ways]\npostcheck_timeout_s = 600\n")
    git(repo, "add", ".gitflow-harness.toml")
    git(repo, "commit", "-q", "-m", "slow macros")
    kit.way(
        repo,
        "status",
        "when:\n  commands: 'gfh status'\n" + kit.EXPONENTIAL,
        "Status.",
        macro=BARRIER_MACRO.format(n=calls),
    )
    payload = tmp_path / "payload.json"
    payload.write_text(json.dumps(kit.payload("claude", "PostToolUse.Bash", repo)))
    procs = []
    for _ in range(calls):  # every call has its payload at once: none waits for another's end
        with open(payload, "rb") as stdin:
            procs.append(
                subprocess.Popen(
                    [sys.executable, "-m", "gitflow_harness", "hook", "claude", "PostToolUse"],
                    cwd=repo,
                    stdin=stdin,
                    stdout=subprocess.PIPE,
                    stderr=subprocess.PIPE,
                    env=os.environ,
                )
            )
    answers = [p.communicate() for p in procs]
    assert [p.returncode for p in procs] == [0] * calls
    assert all(err == b"" for _, err in answers)
    assert sum(b"Status." in out for out, _ in answers) == 1
    types = [e["type"] for e in read_events(repo)]
    assert types.count("tool.requested") == calls
    assert types.count("way.fired") == 1
    suppressed = [d for d in _decided(repo) if "reason" in d]
    assert len(suppressed) == calls - 1
    assert {(d["kind"], d["reason"]) for d in suppressed} == {("refire", "salience")}


def test_an_untracked_way_with_an_alias_bomb_is_refused_and_the_others_fire(
    repo: Path, gfh: CliRunner
) -> None:
    """If an untracked way's frontmatter chains aliases nine deep, then the prompt hook names
    its file in one line and the other ways fire: the chain is never expanded."""
    kit.way(repo, "good", "when:\n  keywords: [parser]\n" + ALWAYS)
    chain = ["l0: &l0 [" + ", ".join(["x"] * 9) + "]"]
    chain += [f"l{i}: &l{i} [" + ", ".join([f"*l{i - 1}"] * 9) + "]" for i in range(1, 9)]
    kit.way(
        repo,
        "bomb",
        "when:\n  keywords: [parser]\n" + ALWAYS + "\n".join(chain) + "\n",
        track=False,
    )
    result = kit.hook(gfh, "claude", "UserPromptSubmit", _prompt(repo))
    assert result.code == 0
    assert kit.context(result) == "Guidance of good."
    [line] = result.err.splitlines()
    assert line.startswith("gfh hook claude UserPromptSubmit: WayProblem: hooks/ways/bomb/bomb.md:")
    assert "more than 32 aliases" in line


def test_a_session_start_fires_its_ways_without_loading_the_lane_matchers(repo: Path) -> None:
    """If a session starts, then its one lane is read off each way: the way fires without the
    matchers of the other lanes (`ways.match`, 1.7M instructions to import) being loaded."""
    from tests.helpers import probe as run_probe

    kit.way(repo, "opening", "when:\n  session_start: true\n" + kit.EXPONENTIAL, "Opening words.")
    probe = (
        "import io, sys\n"
        "from gitflow_harness.main import main\n"
        "sys.stdout = io.StringIO()\n"
        "main(['hook', 'claude', 'SessionStart'])\n"
        "sys.__stdout__.write(repr(('Opening words.' in sys.stdout.getvalue(),"
        " 'gitflow_harness.ways.match' in sys.modules)))\n"
    )
    data = kit.payload("claude", "SessionStart", repo)
    proc = run_probe(probe, cwd=repo, stdin=json.dumps(data), check=True)
    assert proc.stdout == "(True, False)"


def test_a_call_on_a_settled_tree_matches_only_what_the_table_lets_through(
    repo: Path, gfh: CliRunner, monkeypatch: pytest.MonkeyPatch
) -> None:
    """If every way is as the index cached it, then a call builds the ways its table of
    sieves lets through and no other, and fires what the full pass would: the files way on
    its path, the prompt way on its word, nothing for a path or a prompt no way reaches."""
    from gitflow_harness.ways import index
    from tests.ways.conftest import settle_tree

    kit.way(repo, "source", "when:\n  files: ['src/**/*.py']\n" + ALWAYS)
    kit.way(repo, "deploy", "when:\n  keywords: [deploy]\n" + ALWAYS)
    for n in range(20):
        kit.way(repo, f"other{n}", f"when:\n  files: ['lib{n}/**']\n  keywords: [w{n}]\n" + ALWAYS)
    settle_tree(repo / "hooks" / "ways")
    built: list[list[str]] = []
    real = index._selected

    def selected(*args: Any) -> Any:
        found = real(*args)
        built.append([w.id for w in found.ways] if found is not None else ["(all)"])
        return found

    monkeypatch.setattr(index, "_selected", selected)
    write = kit.payload("claude", "PostToolUse.Write", repo)
    kit.hook(gfh, "claude", "PostToolUse", write)  # the first load: every way, the table written
    assert kit.context(kit.hook(gfh, "claude", "PostToolUse", write)) == "Guidance of source."
    assert kit.context(
        kit.hook(gfh, "claude", "UserPromptSubmit", _prompt(repo, prompt="deploy it"))
    ) == ("Guidance of deploy.")
    kit.hook(gfh, "claude", "UserPromptSubmit", _prompt(repo, prompt="nothing here"))
    assert built[-3:] == [["source"], ["deploy"], []]
    assert [d[:2] for d in kit.decisions(repo)] == [
        ("source", "fired"),
        ("source", "fired"),
        ("deploy", "fired"),
    ]
