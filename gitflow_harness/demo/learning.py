"""Demo chapter: a lesson recurs, graduates into a request, is answered by a way, and comes back.

The chapter replays two weeks. Rounds of past days go into the event log with their dates, as
the hooks recorded them then (a hook stamps the moment it runs, so it cannot record the past);
today's rounds are real Claude Code payloads sent through `gfh hook claude SubagentStart` and
`SubagentStop`, and the first of them shows the lessons index the starting subagent is given.
"""

from __future__ import annotations

import json
import time
from datetime import datetime, timedelta

from gitflow_harness.demo import Demo

SESSION = "claude:demo-learning"  # the replayed days' session
LIVE_SESSION = "6b1e0c52-demo-learning"  # today's Claude Code session, through the hooks
MODEL = "claude-sonnet-4-5"
PILL = "implementer/frontmatter-crlf"

LESSON = """\
## What went wrong

The frontmatter parser split on `---` and returned the YAML with `\\r` left on every line of a
CRLF file, so every key of a Windows-edited pill failed to validate.

## Rule

Normalise line ends before splitting frontmatter, and test the parser with a CRLF file.

## Why

A CRLF file's separator line is `---\\r`, which never equals `---`.

## How to apply

When you touch `src/parser.py`, add or keep a CRLF case in its tests.
"""

WAY = """\
---
description: The frontmatter parser must accept CRLF files
when:
  files: ["src/parser.py"]
curve: {type: Exponential, half_life: 20000}
---
Normalise `\\r\\n` to `\\n` before splitting frontmatter; keep a CRLF case in the tests.
"""

GRAPH = """
[graph]
stages = ["implementer", "reviewer"]

[graph.loops.reviewer]
REJECTED = ["implementer"]
"""


def run(demo: Demo) -> None:
    _ensure_repo(demo)
    demo.section("Lessons: work keeps being sent back, and nobody wrote down why")
    config = demo.repo / ".gitflow-harness.toml"
    existing = config.read_text(encoding="utf-8") if config.exists() else ""
    if "[graph" not in existing:
        config.write_text(existing + GRAPH, encoding="utf-8")
    demo.say("the agent graph: implementer -> reviewer; REJECTED sends work back to implementer")
    demo.say("(the chapter's clock: the last two weeks, replayed; dates are days ago)")
    _rounds(demo, days_ago=12, verdicts=["REJECTED"] * 6)
    demo.gfh("learn", "--days", "14")

    demo.section("A lesson is written 10 days ago")
    demo.gfh(
        "pills",
        "new",
        "implementer",
        "frontmatter-crlf",
        "--trigger",
        "editing the frontmatter parser or anything that splits on '---'",
        "--severity",
        "high",
    )
    learned = _day(10).date().isoformat()
    pill = demo.repo / "pills" / "implementer" / "frontmatter-crlf.md"
    head, _, _ = pill.read_text(encoding="utf-8").partition("\n---\n")
    head = head.replace("citations: []", "citations:\n- src/parser.py:2")
    head = "\n".join(
        f"{line.split(':')[0]}: {learned}" if line.startswith(("date:", "last_seen:")) else line
        for line in head.splitlines()
    )
    pill.write_text(f"{head}\n---\n\n{LESSON}", encoding="utf-8")
    demo.gfh("pills", "check")
    _commit(demo, "Capture the CRLF lesson", days_ago=10)
    demo.gfh("pills", "index", "implementer")
    _rounds(demo, days_ago=8, verdicts=["APPROVED"] * 5)

    demo.section("The lesson recurs: at 3 occurrences a graduation request is owed")
    for days_ago in (6, 4):
        _rounds(demo, days_ago=days_ago, verdicts=["REJECTED", "APPROVED"])
        demo.gfh("pills", "bump", PILL, "--date", _day(days_ago).date().isoformat())
    demo.say("today, in a Claude Code session: each subagent start and stop goes through the hook")
    live = _Live(demo)
    live.send("SessionStart", source="startup", model=MODEL)
    live.round(verdict="APPROVED", show_start=True)
    demo.gfh("learn", "--check")
    [request] = sorted((demo.repo / "requests").glob("*.md"))
    demo.say(f"--- {request.relative_to(demo.repo)} (first lines) ---")
    for line in request.read_text(encoding="utf-8").splitlines()[:16]:
        demo.say(f"    {line}")
    demo.gfh("learn", "--check")
    _commit(demo, "File the graduation request", days_ago=0)

    demo.section("A maintainer answers it with a way; the pill retires")
    demo.write("hooks/ways/implementer/frontmatter-crlf/frontmatter-crlf.md", WAY)
    _commit(demo, "Way: the frontmatter parser accepts CRLF", days_ago=0)
    rule = "hooks/ways/implementer/frontmatter-crlf/frontmatter-crlf.md"
    demo.gfh("requests", "answer", request.stem[:14], "--in", rule)
    demo.gfh("requests", "answer", request.stem, "--in", rule)
    _commit(demo, "Answer the CRLF request", days_ago=0)
    _pass_the_commit_second(demo)
    demo.gfh("requests", "list")

    demo.section("The lesson comes back: a reopening names the rule that did not hold")
    demo.say("retired, the lesson has left the implementer's index: its rule is a way now")
    live.round(verdict="REJECTED", show_start=True)
    live.round(verdict="APPROVED")
    demo.gfh("pills", "bump", PILL)
    demo.gfh("learn", "--check")
    demo.gfh("requests", "list")
    demo.gfh("requests", "check")
    demo.gfh("learn")


def _day(days_ago: int) -> datetime:
    """An hour of the morning `days_ago` days back, in local time (pill dates are local)."""
    moment = datetime.now().astimezone() - timedelta(days=days_ago)
    return moment.replace(hour=9, minute=0, second=0, microsecond=0) if days_ago else moment


def _commit(demo: Demo, message: str, *, days_ago: int) -> None:
    """Commit everything as it was done `days_ago` days back."""
    when = (_day(days_ago) + timedelta(hours=1)).isoformat() if days_ago else None
    dates = {"GIT_AUTHOR_DATE": when, "GIT_COMMITTER_DATE": when} if when else {}
    demo.git("add", "-A")
    demo.git("commit", "-q", "-m", message, env=dates)


def _pass_the_commit_second(demo: Demo) -> None:
    """Wait until the clock has left the second of HEAD's commit.

    Git stamps a commit to the whole second and the hooks stamp events to the millisecond, so
    a moment read from a commit (the pill retired, its rule came in) is the end of that second.
    A round recorded within the same second would count as before it on one run and after it
    on the next; the chapter's rounds happen after the commit, so they must read that way.
    """
    committed = int(demo.git("log", "-1", "--format=%ct").strip())
    while time.time() < committed + 1:
        time.sleep(committed + 1 - time.time() + 0.01)


def _rounds(demo: Demo, *, days_ago: int, verdicts: list[str]) -> None:
    """Replay implementer rounds and their reviews of a past day, as the hooks recorded them."""
    from gitflow_harness import git
    from gitflow_harness.store.events import EventLog, format_at, make_event

    log = EventLog(git.discover(demo.repo).common_dir)
    branch = demo.git("rev-parse", "--abbrev-ref", "HEAD").strip()
    start = _day(days_ago) + timedelta(hours=2)
    minute = timedelta(minutes=1)

    def event(at: datetime, kind: str, role: str, n: int, verdict: str | None = None) -> None:
        data: dict[str, object] = {"role": role, "agent": f"{role}-{n}"}
        if kind == "subagent.stopped":
            data.update(verdict=verdict, model=MODEL)
        log.append(
            make_event(kind, data, surface="hook", session=SESSION, branch=branch, at=format_at(at))
        )

    for n, verdict in enumerate(verdicts):
        at = start + 10 * n * minute
        event(at, "subagent.started", "implementer", n)
        event(at + 3 * minute, "subagent.stopped", "implementer", n, "DONE")
        event(at + 4 * minute, "subagent.started", "reviewer", n)
        event(at + 6 * minute, "subagent.stopped", "reviewer", n, verdict)
    rejected = verdicts.count("REJECTED")
    demo.say(
        f"replayed {len(verdicts)} implementer round(s) {days_ago} days ago, each reviewed: "
        f"{rejected} REJECTED, {len(verdicts) - rejected} APPROVED"
    )


class _Live:
    """Today's subagents: Claude Code payloads through `gfh hook claude …`, as the host sends."""

    def __init__(self, demo: Demo) -> None:
        self.demo = demo
        self.transcript = demo.root / "learning-transcript.jsonl"
        self.transcript.write_text("", encoding="utf-8")
        self.agents = 0

    def send(self, event: str, **fields: object) -> str | None:
        """Send one hook event; return the context it injects, if any."""
        payload = {
            "session_id": LIVE_SESSION,
            "transcript_path": str(self.transcript),
            "cwd": str(self.demo.repo),
            "permission_mode": "default",
            "hook_event_name": event,
            **fields,
        }
        proc = self.demo.gfh("hook", "claude", event, stdin=json.dumps(payload), show=False)
        out = proc.stdout.strip()
        context = json.loads(out).get("hookSpecificOutput", {}) if out else {}
        text = context.get("additionalContext")
        return text if isinstance(text, str) else None

    def subagent(self, role: str, verdict: str, *, show_start: bool = False) -> None:
        """Start and stop one subagent of `role` whose final message opens with its verdict."""
        self.agents += 1
        agent = f"a-{self.agents}"
        context = self.send("SubagentStart", agent_id=agent, agent_type=role)
        if show_start:
            self.demo.say(f"SubagentStart {role} ({agent}) -> additionalContext:")
            for line in (context or "(nothing: no active lesson applies)").splitlines():
                self.demo.say(f"    | {line}")
        self.send(
            "SubagentStop",
            agent_id=agent,
            agent_type=role,
            stop_hook_active=False,
            last_assistant_message=f"VERDICT: {verdict}\nSee the diff for details.",
            agent_transcript_path=str(self.demo.root / f"agent-{agent}.jsonl"),
        )

    def round(self, *, verdict: str, show_start: bool = False) -> None:
        """One implementer round, then its review."""
        self.subagent("implementer", "DONE", show_start=show_start)
        self.subagent("reviewer", verdict)
        self.demo.say(f"hooks recorded an implementer round and its review: {verdict}")


def _ensure_repo(demo: Demo) -> None:
    """Run after the foundation chapter, or alone on a fresh scratch repository."""
    if (demo.repo / ".git").exists():
        return
    demo.repo.mkdir(parents=True, exist_ok=True)
    demo.git("init", "-q", "-b", "main")
    demo.write("src/parser.py", "def parse(text):\n    return text.split('---')\n")
    demo.git("add", "-A")
    demo.git("commit", "-q", "-m", "Start the project")
