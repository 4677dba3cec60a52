"""Demo chapter: a repository with a trunk and a feature worktree, and the event log."""

from __future__ import annotations

from gitflow_harness.demo import Demo


def run(demo: Demo) -> None:
    demo.section("A repository, a trunk, a feature worktree")
    demo.repo.mkdir(parents=True)
    demo.git("init", "-q", "-b", "main")
    demo.write("README.md", "# project\n")
    demo.write("src/parser.py", "def parse(text):\n    return text.split('---')\n")
    demo.git("add", "-A")
    demo.git("commit", "-q", "-m", "Start the project")
    feature = demo.root / "project.worktrees" / "feature-parser"
    demo.git("worktree", "add", "-q", "-b", "feature/parser", str(feature))
    demo.say(f"main checkout: {demo.repo}")
    demo.say(f"worktree:      {feature} (branch feature/parser)")
    demo.gfh("config", "show")

    demo.section("The event log: one file per month in the git common dir")
    from gitflow_harness import git
    from gitflow_harness.store.events import EventLog

    repo = git.discover(feature)
    log = EventLog(repo.common_dir)
    log.record(
        "turn.started",
        {"turn": 1, "stop_remediation": False},
        surface="hook",
        branch="feature/parser",
        session="claude:demo-session",
    )
    log.record(
        "tool.requested",
        {"tool": "Edit", "phase": "post"},
        surface="hook",
        branch="feature/parser",
        session="claude:demo-session",
    )
    log.record(
        "coord.status_observed",
        {"status": "end_turn_checked"},
        surface="cli",
        branch="feature/parser",
        session="claude:demo-session",
    )
    demo.say(f"appended 3 events to {log.directory}")
    demo.gfh("events", "tail", "-n", "5", cwd=feature)
    demo.gfh("events", "verify", cwd=feature)
