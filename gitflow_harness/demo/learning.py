"""Demo chapter: a lesson recurs, graduates into a request, is answered by a way, and comes back."""

from __future__ import annotations

from gitflow_harness.demo import Demo

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
    demo.section("Lessons: a pill written after work was sent back")
    config = demo.repo / ".gitflow-harness.toml"
    existing = config.read_text(encoding="utf-8") if config.exists() else ""
    if "[graph" not in existing:
        config.write_text(existing + GRAPH, encoding="utf-8")
    demo.say("the agent graph: implementer -> reviewer; REJECTED sends work back to implementer")
    _rounds(demo, rejected=3)
    demo.gfh("learn", "--days", "1")
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
    pill = demo.repo / "pills" / "implementer" / "frontmatter-crlf.md"
    text = pill.read_text(encoding="utf-8")
    head, _, _ = text.partition("\n---\n")
    head = head.replace("citations: []", "citations:\n- src/parser.py:2")
    pill.write_text(f"{head}\n---\n\n{LESSON}", encoding="utf-8")
    demo.gfh("pills", "check")
    demo.git("add", "-A")
    demo.git("commit", "-q", "-m", "Capture the CRLF lesson")
    demo.gfh("pills", "index", "implementer")

    demo.section("The lesson recurs: at 3 occurrences a graduation request is owed")
    demo.gfh("pills", "bump", PILL)
    demo.gfh("pills", "bump", PILL)
    demo.gfh("learn", "--check")
    [request] = sorted((demo.repo / "requests").glob("*.md"))
    demo.say(f"--- {request.relative_to(demo.repo)} (first lines) ---")
    for line in request.read_text(encoding="utf-8").splitlines()[:16]:
        demo.say(f"    {line}")
    demo.gfh("learn", "--check")
    demo.git("add", "-A")
    demo.git("commit", "-q", "-m", "File the graduation request")

    demo.section("A maintainer answers it with a way; the pill retires")
    demo.write("hooks/ways/implementer/frontmatter-crlf/frontmatter-crlf.md", WAY)
    demo.git("add", "-A")
    demo.git("commit", "-q", "-m", "Way: the frontmatter parser accepts CRLF")
    rule = "hooks/ways/implementer/frontmatter-crlf/frontmatter-crlf.md"
    demo.gfh("requests", "answer", request.stem[:14], "--in", rule)
    demo.gfh("requests", "answer", request.stem, "--in", rule)
    demo.git("add", "-A")
    demo.git("commit", "-q", "-m", "Answer the CRLF request")
    demo.gfh("requests", "list")

    demo.section("The lesson comes back: a reopening names the rule that did not hold")
    _rounds(demo, rejected=1)
    demo.gfh("pills", "bump", PILL)
    demo.gfh("learn", "--check")
    demo.gfh("requests", "list")
    demo.gfh("requests", "check")
    demo.gfh("learn")


def _rounds(demo: Demo, *, rejected: int) -> None:
    """Record implementer/reviewer rounds as the SubagentStart/Stop hooks would."""
    from gitflow_harness import git
    from gitflow_harness.store.events import EventLog

    log = EventLog(git.discover(demo.repo).common_dir)
    branch = demo.git("rev-parse", "--abbrev-ref", "HEAD").strip()

    def event(kind: str, role: str, n: int, verdict: str | None = None) -> None:
        data: dict[str, object] = {"role": role, "agent": f"{role}-{n}"}
        if kind == "subagent.stopped":
            data.update(verdict=verdict, model=MODEL)
        log.record(kind, data, surface="hook", branch=branch, session=SESSION)

    for n in range(rejected + 1):
        verdict = "REJECTED" if n < rejected else "APPROVED"
        event("subagent.started", "implementer", n)
        event("subagent.stopped", "implementer", n, "DONE")
        event("subagent.started", "reviewer", n)
        event("subagent.stopped", "reviewer", n, verdict)
    demo.say(
        f"recorded {rejected + 1} implementer round(s) and their reviews: "
        f"{rejected} REJECTED, 1 APPROVED"
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
