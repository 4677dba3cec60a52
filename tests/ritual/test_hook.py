"""The end-of-turn ritual through the real hook entry, with host-shaped payloads."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from tests.agent import kit
from tests.helpers import CliRunner, read_events

CLAUDE_SESSION = "claude:7f3c9d2e-1b4a-4c55-9a61-2f0d8e6b1a90"
CURSOR_SESSION = "cursor:c-5b1e"
CANARY = "okapi-canary-5c21"


def box(gfh: CliRunner, session: str) -> str:
    """Run `gfh status --end-turn` as the agent would; return the box it printed."""
    result = gfh("status", "--end-turn", env={"GFH_SESSION": session})
    assert result.code == 0, result.err
    return result.out.split("\nhint:")[0]


def verdicts(repo: Path) -> list[dict[str, object]]:
    return [e["data"] for e in read_events(repo) if e["type"] == "stop.verdict"]


def chat_box(repo: Path) -> None:
    """Hold turns without tools to the box (`[ritual] chat_turns = "box"`)."""
    (repo / ".gitflow-harness.toml").write_text('[ritual]\nchat_turns = "box"\n')


def test_claude_blocks_a_tool_turn_until_the_ritual_is_done(repo: Path, gfh: CliRunner) -> None:
    kit.hook(gfh, "claude", "SessionStart", kit.payload("claude", "SessionStart", repo))
    kit.hook(gfh, "claude", "UserPromptSubmit", kit.payload("claude", "UserPromptSubmit", repo))
    kit.hook(gfh, "claude", "PostToolUse", kit.payload("claude", "PostToolUse.Edit", repo))
    message = f"Fixed the parser. {CANARY}"
    blocked = kit.hook(
        gfh, "claude", "Stop", kit.payload("claude", "Stop", repo, last_assistant_message=message)
    )
    assert blocked.code == 2
    assert blocked.out == ""
    assert blocked.err.rstrip("\n").endswith("[gfh stop] rule=status")
    assert "1) run `gfh status --end-turn`" in blocked.err
    assert "3) declare the turn's focus" in blocked.err
    assert CANARY not in blocked.err

    shown = box(gfh, CLAUDE_SESSION)
    assert gfh("task", "set", "fix the parser", env={"GFH_SESSION": CLAUDE_SESSION}).code == 0
    repaired = kit.hook(
        gfh,
        "claude",
        "Stop",
        kit.payload(
            "claude",
            "Stop",
            repo,
            stop_hook_active=True,
            last_assistant_message=f"Done.\n{shown}\n{CANARY}",
        ),
    )
    assert (repaired.code, repaired.out, repaired.err) == (0, "", "")
    assert [(v["decision"], v["rule"]) for v in verdicts(repo)] == [
        ("block", "status"),
        ("allow", None),
    ]


def test_claude_prose_turn_needs_nothing_by_default(repo: Path, gfh: CliRunner) -> None:
    kit.hook(gfh, "claude", "UserPromptSubmit", kit.payload("claude", "UserPromptSubmit", repo))
    result = kit.hook(gfh, "claude", "Stop", kit.payload("claude", "Stop", repo))
    assert (result.code, result.out, result.err) == (0, "", "")
    [verdict] = verdicts(repo)
    assert (verdict["decision"], verdict["rule"], verdict["tool_turn"]) == ("allow", None, False)


def test_claude_prose_turn_with_chat_turns_box_needs_only_the_box(
    repo: Path, gfh: CliRunner
) -> None:
    chat_box(repo)
    kit.hook(gfh, "claude", "UserPromptSubmit", kit.payload("claude", "UserPromptSubmit", repo))
    result = kit.hook(gfh, "claude", "Stop", kit.payload("claude", "Stop", repo))
    assert result.code == 2
    assert result.err.rstrip("\n").endswith("[gfh stop] rule=box")


def test_cursor_repairs_through_a_followup_turn(repo: Path, gfh: CliRunner) -> None:
    def send(event: str, fixture: str, **fields: object) -> dict[str, object]:
        result = kit.hook(gfh, "cursor", event, kit.payload("cursor", fixture, repo, **fields))
        assert result.code == 0
        answer = result.json()
        assert isinstance(answer, dict)
        return answer

    send("sessionStart", "sessionStart")
    send("beforeSubmitPrompt", "beforeSubmitPrompt")
    send("postToolUse", "postToolUse")
    assert gfh("task", "set", "run the tests", env={"GFH_SESSION": CURSOR_SESSION}).code == 0
    send("afterAgentResponse", "afterAgentResponse", text=f"All green. {CANARY}")
    answer = send("stop", "stop")
    followup = answer["followup_message"]
    assert isinstance(followup, str)
    assert followup.startswith("[gfh:stop-remediation rule=status]\n")
    assert CANARY not in followup

    # Cursor submits the follow-up as the next prompt; the repair turn inherits the task.
    send("beforeSubmitPrompt", "beforeSubmitPrompt", prompt=followup, generation_id="g-0002")
    shown = box(gfh, CURSOR_SESSION)
    send("afterAgentResponse", "afterAgentResponse", text=shown, generation_id="g-0002")
    assert send("stop", "stop.remediation") == {}
    started = [e["data"] for e in read_events(repo) if e["type"] == "turn.started"]
    assert [s["stop_remediation"] for s in started] == [False, True]
    assert [(v["decision"], v["rule"]) for v in verdicts(repo)] == [
        ("block", "status"),
        ("allow", None),
    ]


def test_cursor_without_after_agent_response_lets_status_stand_in(
    repo: Path, gfh: CliRunner
) -> None:
    kit.hook(gfh, "cursor", "beforeSubmitPrompt", kit.payload("cursor", "beforeSubmitPrompt", repo))
    kit.hook(gfh, "cursor", "postToolUse", kit.payload("cursor", "postToolUse", repo))
    box(gfh, CURSOR_SESSION)
    gfh("task", "set", "x", env={"GFH_SESSION": CURSOR_SESSION})
    assert kit.hook(gfh, "cursor", "stop", kit.payload("cursor", "stop", repo)).json() == {}
    [completed] = [e for e in read_events(repo) if e["type"] == "turn.completed"]
    assert completed["data"]["ritual"]["status_box"] == {
        "state": "unknown",
        "reason": "after_agent_response_not_reported",
    }


def test_codex_only_observes(repo: Path, gfh: CliRunner) -> None:
    kit.hook(gfh, "codex", "UserPromptSubmit", kit.payload("codex", "UserPromptSubmit", repo))
    kit.hook(gfh, "codex", "PostToolUse", kit.payload("codex", "PostToolUse.Bash", repo))
    result = kit.hook(gfh, "codex", "Stop", kit.payload("codex", "Stop", repo))
    assert (result.code, result.out, result.err) == (0, "", "")
    [verdict] = verdicts(repo)
    assert (verdict["decision"], verdict["rule"], verdict["enforced"]) == ("allow", "status", False)


def test_no_turn_started_fails_open_and_says_so(repo: Path, gfh: CliRunner) -> None:
    result = kit.hook(gfh, "claude", "Stop", kit.payload("claude", "Stop", repo))
    assert (result.code, result.err) == (0, "")
    [verdict] = verdicts(repo)
    assert verdict["decision"] == "fail_open"
    assert "no turn.started" in str(verdict["reason"])


def test_reply_text_reaches_no_file(repo: Path, gfh: CliRunner, hermetic: Path) -> None:
    kit.hook(gfh, "cursor", "beforeSubmitPrompt", kit.payload("cursor", "beforeSubmitPrompt", repo))
    kit.hook(
        gfh,
        "cursor",
        "afterAgentResponse",
        kit.payload("cursor", "afterAgentResponse", repo, text=f"┌─ gfh {CANARY}"),
    )
    kit.hook(gfh, "cursor", "stop", kit.payload("cursor", "stop", repo))
    kit.hook(gfh, "claude", "UserPromptSubmit", kit.payload("claude", "UserPromptSubmit", repo))
    kit.hook(
        gfh,
        "claude",
        "Stop",
        kit.payload("claude", "Stop", repo, last_assistant_message=f"┌─ gfh {CANARY}"),
    )
    assert len(verdicts(repo)) == 2
    for root in (hermetic, repo / ".git"):
        for path in root.rglob("*"):
            if path.is_file():
                assert CANARY.encode() not in path.read_bytes(), path


_HOOK = """
import io, json, sys
from gitflow_harness.agent import runtime
payload = json.loads(sys.argv[3])
for _ in range(int(sys.argv[4])):
    runtime.main(sys.argv[1], sys.argv[2], stdin=io.StringIO(json.dumps(payload)),
                 stdout=io.StringIO(), stderr=io.StringIO())
"""


@pytest.mark.slow
def test_concurrent_tool_hooks_and_stop_lose_no_evidence(repo: Path, gfh: CliRunner) -> None:
    """If PostToolUse and Stop hooks of one session run at once, every event is kept."""
    kit.hook(gfh, "claude", "UserPromptSubmit", kit.payload("claude", "UserPromptSubmit", repo))
    tool = json.dumps(kit.payload("claude", "PostToolUse.Bash", repo))
    stop = json.dumps(kit.payload("claude", "Stop", repo))
    procs = [
        subprocess.Popen(
            [sys.executable, "-c", _HOOK, "claude", "PostToolUse", tool, "25"], cwd=repo
        )
        for _ in range(6)
    ] + [
        subprocess.Popen([sys.executable, "-c", _HOOK, "claude", "Stop", stop, "5"], cwd=repo)
        for _ in range(2)
    ]
    assert [p.wait(timeout=300) for p in procs] == [0] * len(procs)
    events = read_events(repo)
    kinds = [e["type"] for e in events]
    assert kinds.count("tool.requested") == 150
    assert kinds.count("turn.completed") == 10
    assert kinds.count("stop.verdict") == 10
    assert "hook.error" not in kinds
    counts = [
        e["data"]["tool_call_count"]["value"] for e in events if e["type"] == "turn.completed"
    ]
    assert all(0 <= n <= 150 for n in counts)
    # A Stop after the storm sees every tool call of the turn: none was lost or torn.
    kit.hook(gfh, "claude", "Stop", kit.payload("claude", "Stop", repo))
    final = [e for e in read_events(repo) if e["type"] == "turn.completed"][-1]
    assert final["data"]["tool_call_count"] == {"state": "observed", "value": 150}


def test_cursor_never_follows_up_an_aborted_or_failed_turn(repo: Path, gfh: CliRunner) -> None:
    for status in ("aborted", "error"):
        kit.hook(
            gfh, "cursor", "beforeSubmitPrompt", kit.payload("cursor", "beforeSubmitPrompt", repo)
        )
        kit.hook(gfh, "cursor", "postToolUse", kit.payload("cursor", "postToolUse", repo))
        answer = kit.hook(gfh, "cursor", "stop", kit.payload("cursor", "stop", repo, status=status))
        assert answer.json() == {}
    reasons = [(v["decision"], v["reason"]) for v in verdicts(repo)]
    assert reasons == [
        ("allow", "not evaluated: the turn ended with status aborted"),
        ("allow", "not evaluated: the turn ended with status error"),
    ]


def test_a_stop_that_fails_inside_still_records_a_fail_open_verdict(
    repo: Path, gfh: CliRunner
) -> None:
    kit.hook(gfh, "claude", "UserPromptSubmit", kit.payload("claude", "UserPromptSubmit", repo))
    (repo / ".gitflow-harness.toml").write_text('[ritual]\nrequire_box = "yes"\n')
    result = kit.hook(gfh, "claude", "Stop", kit.payload("claude", "Stop", repo))
    assert result.code == 0
    assert "/.gitflow-harness.toml:2: " in result.err
    assert "internal error" not in result.err
    [verdict] = verdicts(repo)
    assert verdict["decision"] == "fail_open"
    assert str(verdict["reason"]).startswith("the Stop check failed: ConfigError")
    assert "hook.error" in [e["type"] for e in read_events(repo)]


@pytest.mark.parametrize("adapter", ["claude", "codex"])
@pytest.mark.parametrize("message", ["absent", None, 42])
def test_a_prose_turn_without_a_usable_last_message_fails_open(
    repo: Path, gfh: CliRunner, adapter: str, message: object
) -> None:
    """If a Stop payload has no string `last_assistant_message`, then the box cannot be
    judged; a turn without tools has nothing else to check and is allowed as fail_open."""
    chat_box(repo)
    kit.hook(gfh, adapter, "UserPromptSubmit", kit.payload(adapter, "UserPromptSubmit", repo))
    data = kit.payload(adapter, "Stop", repo, last_assistant_message=message)
    if message == "absent":
        del data["last_assistant_message"]
    result = kit.hook(gfh, adapter, "Stop", data)
    assert (result.code, result.out, result.err) == (0, "", "")
    [verdict] = verdicts(repo)
    assert (verdict["decision"], verdict["rule"]) == ("fail_open", None)
    assert "no usable last_assistant_message" in str(verdict["reason"])


def test_a_tool_turn_without_a_last_message_is_held_to_status_and_task(
    repo: Path, gfh: CliRunner
) -> None:
    kit.hook(gfh, "claude", "UserPromptSubmit", kit.payload("claude", "UserPromptSubmit", repo))
    kit.hook(gfh, "claude", "PostToolUse", kit.payload("claude", "PostToolUse.Edit", repo))
    data = kit.payload("claude", "Stop", repo)
    del data["last_assistant_message"]
    blocked = kit.hook(gfh, "claude", "Stop", data)
    assert blocked.err.rstrip("\n").endswith("[gfh stop] rule=status")
    assert "1) run `gfh status --end-turn`" in blocked.err
    assert "2) declare the turn's focus" in blocked.err  # the box is not asked for
    box(gfh, CLAUDE_SESSION)
    gfh("task", "set", "edit", env={"GFH_SESSION": CLAUDE_SESSION})
    assert kit.hook(gfh, "claude", "Stop", {**data, "stop_hook_active": True}).code == 0
    last = verdicts(repo)[-1]
    assert (last["decision"], last["unchecked"]) == ("allow", ["box"])


def test_a_prose_turn_repaired_with_gfh_status_is_not_blocked_again(
    repo: Path, gfh: CliRunner
) -> None:
    chat_box(repo)
    kit.hook(gfh, "claude", "UserPromptSubmit", kit.payload("claude", "UserPromptSubmit", repo))
    first = kit.hook(gfh, "claude", "Stop", kit.payload("claude", "Stop", repo))
    assert first.err.rstrip("\n").endswith("[gfh stop] rule=box")
    kit.hook(gfh, "claude", "PostToolUse", kit.payload("claude", "PostToolUse.Bash", repo))
    shown = box(gfh, CLAUDE_SESSION)
    again = kit.hook(
        gfh,
        "claude",
        "Stop",
        kit.payload("claude", "Stop", repo, stop_hook_active=True, last_assistant_message=shown),
    )
    assert (again.code, again.err) == (0, "")


def test_a_turn_whose_prompt_was_not_recorded_fails_open(repo: Path, gfh: CliRunner) -> None:
    kit.hook(gfh, "claude", "UserPromptSubmit", kit.payload("claude", "UserPromptSubmit", repo))
    shown = box(gfh, CLAUDE_SESSION)
    gfh("task", "set", "one", env={"GFH_SESSION": CLAUDE_SESSION})
    done = kit.payload("claude", "Stop", repo, last_assistant_message=shown)
    assert kit.hook(gfh, "claude", "Stop", done).code == 0
    kit.hook(gfh, "claude", "PostToolUse", kit.payload("claude", "PostToolUse.Edit", repo))
    assert kit.hook(gfh, "claude", "Stop", done).code == 0
    last = verdicts(repo)[-1]
    assert last["decision"] == "fail_open"
    assert "the prompt of this turn was not recorded" in str(last["reason"])


BOX_TEXT = "┌─ gfh · feature ─┐\n│ tree  clean     │\n└─────────────────┘"


def cursor(
    gfh: CliRunner, repo: Path, event: str, fixture: str | None = None, **fields: object
) -> dict[str, object]:
    """Send one Cursor event (its fixture, `fields` set; a field set to None is left out)."""
    data = kit.payload("cursor", fixture or event, repo)
    data.update(fields)
    data = {key: value for key, value in data.items() if value is not None}
    result = kit.hook(gfh, "cursor", event, data)
    assert result.code == 0
    answer = result.json()
    assert isinstance(answer, dict)
    return answer


def box_observed(repo: Path) -> object:
    return [e for e in read_events(repo) if e["type"] == "turn.completed"][-1]["data"]["ritual"][
        "status_box"
    ]


def test_a_cursor_reply_of_an_earlier_generation_does_not_decide_a_later_stop(
    repo: Path, gfh: CliRunner
) -> None:
    """If a generation's reply had no stop of its own, then a later generation's stop treats
    its own reply as not observed: the stale box neither passes nor blocks it."""
    chat_box(repo)
    cursor(gfh, repo, "beforeSubmitPrompt", generation_id="g-0001")
    cursor(gfh, repo, "afterAgentResponse", text=BOX_TEXT, generation_id="g-0001")
    # g-0001's stop never came, nor did g-0002's prompt hook: g-0002 stops.
    answer = cursor(gfh, repo, "stop", generation_id="g-0002")
    assert str(answer["followup_message"]).startswith("[gfh:stop-remediation rule=status]\n")
    assert box_observed(repo) == {
        "state": "unknown",
        "reason": "after_agent_response_of_another_generation",
    }


def test_a_cursor_stop_takes_only_its_own_generations_reply(repo: Path, gfh: CliRunner) -> None:
    cursor(gfh, repo, "beforeSubmitPrompt", generation_id="g-0001")
    cursor(gfh, repo, "afterAgentResponse", text=BOX_TEXT, generation_id="g-0002")
    # A late stop of another generation leaves the reply for the stop it belongs to...
    cursor(gfh, repo, "stop", generation_id="g-0001")
    assert box_observed(repo)["state"] == "unknown"  # type: ignore[index]
    cursor(gfh, repo, "beforeSubmitPrompt", generation_id="g-0002")
    cursor(gfh, repo, "afterAgentResponse", text=BOX_TEXT, generation_id="g-0002")
    # ...and a stop without a generation never takes a reply of a known one.
    cursor(gfh, repo, "stop", generation_id=None)
    assert box_observed(repo)["state"] == "unknown"  # type: ignore[index]
    assert cursor(gfh, repo, "stop", generation_id="g-0002") == {}
    assert box_observed(repo) == {"state": "observed", "value": True}


def test_a_new_cursor_prompt_forgets_a_reply_whose_stop_never_came(
    repo: Path, gfh: CliRunner
) -> None:
    """If the payloads carry no generation_id, then a reply and a stop of the same turn still
    match, and a prompt in between clears the reply: it belonged to the turn before."""
    chat_box(repo)
    cursor(gfh, repo, "beforeSubmitPrompt", generation_id=None)
    cursor(gfh, repo, "afterAgentResponse", text=BOX_TEXT, generation_id=None)
    assert cursor(gfh, repo, "stop", generation_id=None) == {}
    assert box_observed(repo) == {"state": "observed", "value": True}
    cursor(gfh, repo, "afterAgentResponse", text=BOX_TEXT, generation_id=None)
    cursor(gfh, repo, "beforeSubmitPrompt", generation_id=None)
    answer = cursor(gfh, repo, "stop", generation_id=None)
    assert str(answer["followup_message"]).startswith("[gfh:stop-remediation rule=status]\n")
    assert box_observed(repo) == {"state": "unknown", "reason": "after_agent_response_not_reported"}


def test_claude_judges_a_turn_another_stop_hook_kept_going(repo: Path, gfh: CliRunner) -> None:
    """If gfh allowed a Stop but another Stop hook blocked it, then Claude Code continues the
    same turn: the work done after the allowed Stop needs the ritual again."""
    kit.hook(gfh, "claude", "UserPromptSubmit", kit.payload("claude", "UserPromptSubmit", repo))
    kit.hook(gfh, "claude", "PostToolUse", kit.payload("claude", "PostToolUse.Edit", repo))
    shown = box(gfh, CLAUDE_SESSION)
    gfh("task", "set", "fix the parser", env={"GFH_SESSION": CLAUDE_SESSION})
    stop = kit.payload("claude", "Stop", repo, last_assistant_message=shown)
    assert kit.hook(gfh, "claude", "Stop", stop).code == 0
    # Another hook blocked: the agent edits again and stops with the same box.
    kit.hook(gfh, "claude", "PostToolUse", kit.payload("claude", "PostToolUse.Edit", repo))
    again = kit.hook(gfh, "claude", "Stop", {**stop, "stop_hook_active": True})
    assert again.code == 2
    assert again.err.rstrip("\n").endswith("[gfh stop] rule=status")
    assert "went on after its Stop" in again.err
    shown = box(gfh, CLAUDE_SESSION)
    repaired = kit.hook(
        gfh, "claude", "Stop", {**stop, "stop_hook_active": True, "last_assistant_message": shown}
    )
    assert (repaired.code, repaired.err) == (0, "")
    assert [(v["decision"], v["rule"], v["continuation"]) for v in verdicts(repo)] == [
        ("allow", None, False),
        ("block", "status", True),
        ("allow", None, True),
    ]
    completed = [e["data"] for e in read_events(repo) if e["type"] == "turn.completed"]
    assert [c["continued"] for c in completed] == [False, True, True]
    assert len({v["turn"] for v in verdicts(repo)}) == 1


def test_a_continuation_without_tools_needs_only_the_box(repo: Path, gfh: CliRunner) -> None:
    chat_box(repo)
    kit.hook(gfh, "claude", "UserPromptSubmit", kit.payload("claude", "UserPromptSubmit", repo))
    shown = box(gfh, CLAUDE_SESSION)
    gfh("task", "set", "answer", env={"GFH_SESSION": CLAUDE_SESSION})
    stop = kit.payload("claude", "Stop", repo, last_assistant_message=shown)
    assert kit.hook(gfh, "claude", "Stop", stop).code == 0
    assert kit.hook(gfh, "claude", "Stop", {**stop, "stop_hook_active": True}).code == 0
    plain = {**stop, "stop_hook_active": True, "last_assistant_message": "Answered."}
    blocked = kit.hook(gfh, "claude", "Stop", plain)
    assert blocked.err.rstrip("\n").endswith("[gfh stop] rule=box")


def test_codex_records_what_it_would_have_blocked_in_a_continuation(
    repo: Path, gfh: CliRunner
) -> None:
    kit.hook(gfh, "codex", "UserPromptSubmit", kit.payload("codex", "UserPromptSubmit", repo))
    kit.hook(gfh, "codex", "Stop", kit.payload("codex", "Stop", repo))
    kit.hook(gfh, "codex", "PostToolUse", kit.payload("codex", "PostToolUse.Bash", repo))
    result = kit.hook(
        gfh, "codex", "Stop", kit.payload("codex", "Stop", repo, stop_hook_active=True)
    )
    assert (result.code, result.out, result.err) == (0, "", "")
    last = verdicts(repo)[-1]
    assert (last["decision"], last["rule"], last["continuation"]) == ("allow", "status", True)


@pytest.mark.parametrize(
    ("adapter", "event"), [("claude", "Stop"), ("cursor", "stop"), ("codex", "Stop")]
)
@pytest.mark.parametrize("stdin", ["", f"not json {CANARY}", "[1, 2]"])
def test_a_stop_whose_payload_is_unreadable_records_a_fail_open_verdict(
    repo: Path, gfh: CliRunner, adapter: str, event: str, stdin: str
) -> None:
    """If a Stop's stdin is not a JSON object, then the ritual was skipped: a `stop.verdict`
    says so (no session: none could be read), beside the runtime's `hook.error`."""
    result = gfh("hook", adapter, event, stdin=stdin)
    assert result.code == 0
    events = read_events(repo)
    assert [e["type"] for e in events] == ["hook.error", "stop.verdict"]
    verdict = events[1]
    assert verdict["session"] is None
    assert verdict["data"]["adapter"] == adapter
    assert (verdict["data"]["decision"], verdict["data"]["rule"]) == ("fail_open", None)
    assert verdict["data"]["reason"] == "payload_unreadable"
    assert verdict["data"]["enforced"] is (adapter != "codex")
    assert CANARY.encode() not in b"".join(
        p.read_bytes() for p in repo.joinpath(".git").rglob("*.jsonl")
    )


def test_only_a_stop_records_a_verdict_for_an_unreadable_payload(
    repo: Path, gfh: CliRunner, monkeypatch: pytest.MonkeyPatch
) -> None:
    for adapter, event in (("claude", "PostToolUse"), ("cursor", "afterAgentResponse")):
        assert gfh("hook", adapter, event, stdin="{").code == 0
    # Cursor running Claude Code's hooks: its own adapter records that Stop, once.
    monkeypatch.setenv("CURSOR_VERSION", "3.7.21")
    assert gfh("hook", "claude", "Stop", stdin="{").code == 0
    assert [e["type"] for e in read_events(repo)] == ["hook.error"] * 3


def test_the_report_counts_a_stop_that_could_not_be_read(repo: Path, gfh: CliRunner) -> None:
    gfh("hook", "claude", "Stop", stdin="not json")
    report = gfh("report", "--json")
    assert report.code == 0, report.err
    [ritual] = [d for d in report.json()["detectors"] if d["id"] == "stop-ritual"]
    [finding] = [f for f in report.json()["findings"] if f["detector"] == "stop-ritual"]
    assert (ritual["status"], ritual["considered"]) == ("fired", 1)
    assert finding["evidence"]["fail_open"] == 1
    assert "fail-opens by reason: payload_unreadable 1" in ritual["notes"]


def test_claude_lets_a_turn_end_after_max_blocks_and_says_how_many_tries_remain(
    repo: Path, gfh: CliRunner
) -> None:
    """If the agent cannot repair a turn, then gfh blocks it `max_blocks` times, each time
    saying how many tries remain (the marker line still last), and lets the next Stop end it
    as `fail_open` `remediation_exhausted` — well before Claude Code's own cap of 9."""
    kit.hook(gfh, "claude", "UserPromptSubmit", kit.payload("claude", "UserPromptSubmit", repo))
    kit.hook(gfh, "claude", "PostToolUse", kit.payload("claude", "PostToolUse.Edit", repo))
    results = [
        kit.hook(gfh, "claude", "Stop", kit.payload("claude", "Stop", repo, stop_hook_active=i > 0))
        for i in range(4)
    ]
    assert [r.code for r in results] == [2, 2, 2, 0]
    tries = ("2 of 3 tries left", "1 of 3 tries left", "0 of 3 tries left")
    for result, left in zip(results[:3], tries, strict=True):
        assert left in result.err
        assert result.err.rstrip("\n").splitlines()[-1] == "[gfh stop] rule=status"
    assert (results[3].out, results[3].err) == ("", "")
    last = verdicts(repo)[-1]
    assert (last["decision"], last["rule"], last["reason"]) == (
        "fail_open",
        "status",
        "remediation_exhausted",
    )


def test_cursor_followups_say_how_many_tries_remain(repo: Path, gfh: CliRunner) -> None:
    (repo / ".gitflow-harness.toml").write_text("[ritual]\nmax_blocks = 1\n")
    cursor(gfh, repo, "beforeSubmitPrompt")
    cursor(gfh, repo, "postToolUse")
    followup = str(cursor(gfh, repo, "stop")["followup_message"])
    assert followup.startswith("[gfh:stop-remediation rule=status]\n")
    assert followup.endswith(
        "0 of 1 tries left: gfh lets this turn end at its next Stop, repaired or not."
    )
    cursor(gfh, repo, "beforeSubmitPrompt", prompt=followup, generation_id="g-0002")
    assert cursor(gfh, repo, "stop", "stop.remediation") == {}
    assert [(v["decision"], v["reason"]) for v in verdicts(repo)][-1] == (
        "fail_open",
        "remediation_exhausted",
    )


def test_max_blocks_zero_never_blocks(repo: Path, gfh: CliRunner) -> None:
    (repo / ".gitflow-harness.toml").write_text("[ritual]\nmax_blocks = 0\n")
    kit.hook(gfh, "claude", "UserPromptSubmit", kit.payload("claude", "UserPromptSubmit", repo))
    kit.hook(gfh, "claude", "PostToolUse", kit.payload("claude", "PostToolUse.Edit", repo))
    result = kit.hook(gfh, "claude", "Stop", kit.payload("claude", "Stop", repo))
    assert (result.code, result.err) == (0, "")
    [verdict] = verdicts(repo)
    assert (verdict["decision"], verdict["rule"], verdict["enforced"]) == ("allow", "status", False)


def test_a_reply_with_only_the_box_top_line_is_blocked(repo: Path, gfh: CliRunner) -> None:
    kit.hook(gfh, "claude", "UserPromptSubmit", kit.payload("claude", "UserPromptSubmit", repo))
    kit.hook(gfh, "claude", "PostToolUse", kit.payload("claude", "PostToolUse.Edit", repo))
    shown = box(gfh, CLAUDE_SESSION)
    gfh("task", "set", "edit", env={"GFH_SESSION": CLAUDE_SESSION})
    top = shown.splitlines()[0]
    stop = kit.payload("claude", "Stop", repo, last_assistant_message=f"Done.\n{top}\n")
    blocked = kit.hook(gfh, "claude", "Stop", stop)
    assert blocked.code == 2
    assert "not the whole box" in blocked.err
    assert blocked.err.rstrip("\n").endswith("[gfh stop] rule=box")
    whole = {**stop, "stop_hook_active": True, "last_assistant_message": f"Done.\n{shown}"}
    assert kit.hook(gfh, "claude", "Stop", whole).code == 0


def test_the_report_says_a_host_ended_a_turn_gfh_still_blocked(repo: Path, gfh: CliRunner) -> None:
    """If the host gives up on a blocked turn before gfh's bound (Claude Code after 9 blocks)
    and the user's next prompt arrives, then the report counts that turn as ended by the host,
    in every format."""
    (repo / ".gitflow-harness.toml").write_text("[ritual]\nmax_blocks = 20\n")
    kit.hook(gfh, "claude", "UserPromptSubmit", kit.payload("claude", "UserPromptSubmit", repo))
    kit.hook(gfh, "claude", "PostToolUse", kit.payload("claude", "PostToolUse.Edit", repo))
    for i in range(9):
        stop = kit.payload("claude", "Stop", repo, stop_hook_active=i > 0)
        assert kit.hook(gfh, "claude", "Stop", stop).code == 2
    kit.hook(gfh, "claude", "UserPromptSubmit", kit.payload("claude", "UserPromptSubmit", repo))
    [finding] = [f for f in gfh("report", "--json").json()["findings"] if f["subject"] == "stop"]
    assert (finding["evidence"]["blocked"], finding["evidence"]["repaired"]) == (9, 0)
    assert (finding["evidence"]["ended_by_host"], finding["evidence"]["pending"]) == (1, 0)
    text = " ".join(gfh("report").out.split())
    assert "1 ended unrepaired (0 by gfh's bound, 1 by the host)" in text
    markdown = gfh("report", "--format", "markdown").out
    assert "| repaired | ended by gfh | ended by host | pending |" in markdown
    assert "by the host)" in markdown


def test_a_stop_past_the_calls_budget_still_records_a_fail_open_verdict(
    repo: Path, gfh: CliRunner, monkeypatch: pytest.MonkeyPatch
) -> None:
    """If the call's time budget runs out inside the Stop check, then the Stop is still counted
    (a `fail_open` verdict) and the agent is let stop: a later notification starts a turn."""
    from gitflow_harness.hookcall.budget import BudgetExceeded
    from gitflow_harness.ritual import hook as ritual

    def slow(ctx: object) -> None:
        raise BudgetExceeded(0.5)

    monkeypatch.setattr(ritual, "_stop", slow)
    prompt = kit.payload("claude", "UserPromptSubmit", repo)
    kit.hook(gfh, "claude", "UserPromptSubmit", prompt)
    result = kit.hook(gfh, "claude", "Stop", kit.payload("claude", "Stop", repo))
    assert result.code == 0
    [verdict] = verdicts(repo)
    assert verdict["decision"] == "fail_open"
    assert str(verdict["reason"]).startswith("the Stop check failed: BudgetExceeded")
    notice = "<task-notification>\n<status>completed"
    kit.hook(gfh, "claude", "UserPromptSubmit", {**prompt, "prompt": notice})
    assert [e["data"]["turn"] for e in read_events(repo) if e["type"] == "turn.started"] == [1, 2]
