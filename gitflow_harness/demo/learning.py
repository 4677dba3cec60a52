"""Demo chapter: a lesson recurs, graduates into a request, is answered by a way, and comes back."""

from __future__ import annotations

import subprocess
from datetime import datetime, timedelta

from gitflow_harness.demo import Demo
from gitflow_harness.errors import UsageError

SESSION = "claude:demo-learning"
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
    demo.gfh("requests", "list")

    demo.section("The lesson comes back: a reopening names the rule that did not hold")
    _rounds(demo, days_ago=0, verdicts=["REJECTED", "APPROVED"])
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
    for args in (["add", "-A"], ["commit", "-q", "-m", message]):
        proc = subprocess.run(
            ["git", *args],
            cwd=demo.repo,
            env={**demo.env, **dates},
            capture_output=True,
            text=True,
            stdin=subprocess.DEVNULL,
        )
        if proc.returncode != 0:
            raise UsageError(f"demo: git {' '.join(args)} failed: {proc.stderr.strip()}")


def _rounds(demo: Demo, *, days_ago: int, verdicts: list[str]) -> None:
    """Record implementer rounds and their reviews, as the SubagentStart/Stop hooks would."""
    from gitflow_harness import git
    from gitflow_harness.store.events import EventLog, format_at, make_event

    log = EventLog(git.discover(demo.repo).common_dir)
    branch = demo.git("rev-parse", "--abbrev-ref", "HEAD").strip()
    # Today's rounds happen now, a second apart: after everything committed so far.
    unit = timedelta(minutes=1) if days_ago else timedelta(seconds=1)
    start = _day(days_ago) + timedelta(hours=2) if days_ago else _day(0) + unit

    def event(at: datetime, kind: str, role: str, n: int, verdict: str | None = None) -> None:
        data: dict[str, object] = {"role": role, "agent": f"{role}-{n}"}
        if kind == "subagent.stopped":
            data.update(verdict=verdict, model=MODEL)
        log.append(
            make_event(kind, data, surface="hook", session=SESSION, branch=branch, at=format_at(at))
        )

    for n, verdict in enumerate(verdicts):
        at = start + 10 * n * unit
        event(at, "subagent.started", "implementer", n)
        event(at + 3 * unit, "subagent.stopped", "implementer", n, "DONE")
        event(at + 4 * unit, "subagent.started", "reviewer", n)
        event(at + 6 * unit, "subagent.stopped", "reviewer", n, verdict)
    rejected = verdicts.count("REJECTED")
    when = f"{days_ago} days ago" if days_ago else "today"
    demo.say(
        f"recorded {len(verdicts)} implementer round(s) {when}, each reviewed: "
        f"{rejected} REJECTED, {len(verdicts) - rejected} APPROVED"
    )


def _ensure_repo(demo: Demo) -> None:
    """Run after the foundation chapter, or alone on a fresh scratch repository."""
    if (demo.repo / ".git").exists():
        return
    demo.repo.mkdir(parents=True, exist_ok=True)
    demo.git("init", "-q", "-b", "main")
    demo.write("src/parser.py", "def parse(text):\n    return text.split('---')\n")
    demo.git("add", "-A")
    demo.git("commit", "-q", "-m", "Start the project")
