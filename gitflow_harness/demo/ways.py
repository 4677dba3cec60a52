"""Demo chapter: ways and their firing curves: list, show with a plot, simulate, lint, migrate,
and tune from the event log."""

from __future__ import annotations

import shutil

from gitflow_harness.demo import Demo

LEGACY_WAY = """---
description: Say which tests ran before claiming a fix
when:
  keywords: [fixed, works now]
redisclose: 10  # from the old format
colour: blue
---
Name the test command you ran and what it printed; "fixed" without it is a guess.
"""


def run(demo: Demo) -> None:
    from gitflow_harness.scaffold.project import starter_ways
    from gitflow_harness.ways import starter_ways_root

    _ensure_repo(demo)
    demo.section("Ways: guidance that fires through a curve")
    ways = demo.repo / "hooks" / "ways"
    starters = starter_ways()  # the ways that suit any repository (`gfh init --list-ways`)
    for way_id in starters:
        shutil.copytree(starter_ways_root() / way_id, ways / way_id, dirs_exist_ok=True)
    demo.git("add", "-A")
    demo.git("commit", "-q", "-m", "Adopt the starter ways")
    demo.say(f"copied {len(starters)} starter ways into hooks/ways and committed them")
    demo.gfh("ways", "list")
    demo.gfh("ways", "show", "prepare-before-done", "--plot")

    demo.section("Simulating the gate: one decision per matched tick")
    demo.say("An Exponential way, matched every 5000 tokens: suppressed until it fades below 0.5.")
    demo.gfh("ways", "simulate", "prepare-before-done", "--ticks", "0..45000/5000")
    demo.say("A staircase fires at each step from the episode's first fire, then is quiet.")
    demo.gfh("ways", "simulate", "branch-first", "--ticks", "0..200000/30000")
    demo.say("An ActionPotential: refractory after each fire; a burst raises the bar to 2 lanes.")
    demo.gfh("ways", "simulate", "file-size", "--ticks", "0,1000,3000,6000,9000,9000:2,40000")

    demo.section("Lint and migrate an old way file")
    demo.write("hooks/ways/testing/evidence/evidence.md", LEGACY_WAY)
    demo.say("lint fails on the old format and the unknown field; migrate fixes the first")
    demo.gfh("ways", "lint")
    demo.gfh("ways", "migrate")
    demo.gfh("ways", "migrate", "--apply")
    demo.gfh("ways", "lint", "--fix", "--check")

    demo.section("Tune half-lives from how often ways actually matched")
    _seed_matches(demo)
    demo.gfh("ways", "tune")
    demo.gfh("ways", "tune", "--apply")
    demo.gfh("ways", "show", "commit-messages")


def _ensure_repo(demo: Demo) -> None:
    if (demo.repo / ".git").exists():
        return
    demo.repo.mkdir(parents=True, exist_ok=True)
    demo.git("init", "-q", "-b", "main")
    demo.write("README.md", "# project\n")
    demo.git("add", "-A")
    demo.git("commit", "-q", "-m", "Start the project")


def _seed_matches(demo: Demo) -> None:
    """Record what the agent hook records when ways match (`way.fired`, `way.suppressed`)."""
    from gitflow_harness import git
    from gitflow_harness.store.events import EventLog

    log = EventLog(git.discover(demo.repo).common_dir)
    plan = {
        # Matched about every 8000 tokens: its 20000 half-life hides it for too long.
        "workflow/prepare-before-done": [0, 8000, 15500, 24000, 32000],
        # Matched about every 90000 tokens: a 40000 half-life re-shows it at every match.
        "git/commit-messages": [0, 90000, 181000, 270000],
    }
    count = 0
    for session in ("claude:demo-a", "claude:demo-b"):
        for way_id, ticks in plan.items():
            for i, tick in enumerate(ticks):
                fired = i == 0 or way_id == "git/commit-messages"
                data: dict[str, object] = {
                    "way": way_id,
                    "trigger": "prompt",
                    "tick": tick,
                    "axis": "tokens",
                    "kind": "first" if i == 0 else "refire",
                    "salience": 0.0,
                }
                if not fired:
                    data["reason"] = "salience"
                log.record(
                    "way.fired" if fired else "way.suppressed",
                    data,
                    surface="hook",
                    branch="main",
                    session=session,
                )
                count += 1
    demo.say(f"recorded {count} way.fired / way.suppressed events from two sessions")
