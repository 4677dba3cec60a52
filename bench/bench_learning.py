"""Lessons: `pills check`, the SubagentStart index, `learn --check` and the `learn` report.

Each against the baseline it must not drift far from: the history walk alone (`git log
--name-only`), a bare interpreter, `gfh --version`, and a bare JSON pass over the same log.
"""

from __future__ import annotations

import json
import os
import subprocess
import uuid
from datetime import UTC, datetime, timedelta
from pathlib import Path

from bench.runner import PYTHON, Measurement, command_vs_pass, compare, time_once

PILLS = 200
COMMITS = 300
EVENTS = 100_000

PILL = """---
id: {role}-lesson-{n}
applies_to: [{role}]
severity: medium
status: active
date: 2026-01-01
last_seen: 2026-01-02
occurrences: 2
trigger: when touching module {n}
citations:
  - src/m{n}.py:1
  - src/m{m}.py
---

## What went wrong

It broke.

## Rule

Do not.

## Why

Because.

## How to apply

Check.
"""

INDEX = (
    "from pathlib import Path; from gitflow_harness.store.config import default_config;"
    "from gitflow_harness.learning.index import lessons_index;"
    "lessons_index(Path({top!r}), default_config().paths.pills, 'implementer')"
)

CONFIG_ONLY = "from gitflow_harness.store.config import default_config; default_config()"


def run(work: Path) -> list[Measurement]:
    repo = work / "repo"
    env = _repo(repo)
    gfh = [PYTHON, "-m", "gitflow_harness"]
    check = compare(
        f"gfh pills check ({PILLS} pills, {2 * PILLS} citations, {COMMITS} commits)",
        lambda: time_once([*gfh, "pills", "check"], cwd=repo, env=env),
        "git log --name-only (the walk alone)",
        lambda: time_once(["git", "log", "--name-only", "--since=2025-12-31"], cwd=repo, env=env),
        runs=11,
        target=3.0,
    )
    check.notes.append(
        "pills parsed on the warm-up run only: after it, each file's stamp finds its parse in "
        "the catalog cache, as on every run until a pill changes"
    )
    check.notes.append(
        "the walk starts once the pills are read; ls-files, the pills' rules and the cited "
        "files are checked beside it, so on a machine with a core to spare they cost no time"
    )
    time_once([PYTHON, "-c", INDEX.format(top=str(repo))], env=env)  # warm the cache
    # The hook has its configuration loaded anyway: that is the baseline to compare against.
    index = compare(
        f"lessons_index, warm cache ({PILLS} pills)",
        lambda: time_once([PYTHON, "-c", INDEX.format(top=str(repo))], env=env),
        "loading the configuration alone",
        lambda: time_once([PYTHON, "-c", CONFIG_ONLY], env=env),
    )
    bare = command_vs_pass(
        "lessons_index, warm cache, vs a bare interpreter",
        [PYTHON, "-c", INDEX.format(top=str(repo))],
        env=env,
    )
    index.notes.append("imports on the warm path: " + _imports(INDEX.format(top=str(repo)), env))
    nothing_owed = compare(
        "gfh learn --check, nothing owed",
        lambda: time_once([*gfh, "learn", "--check"], cwd=repo, env=env),
        "gfh --version",
        lambda: time_once([*gfh, "--version"], cwd=repo, env=env),
        runs=11,
        target=2.0,
    )
    log = _log(repo)
    report = compare(
        f"gfh learn ({EVENTS} events, {EVENTS // 10} rounds)",
        lambda: time_once([*gfh, "learn", "--json"], cwd=repo, env=env),
        "one json.loads per line of the same log",
        lambda: time_once(
            [PYTHON, "-c", f"import json\nfor line in open({str(log)!r}, 'rb'): json.loads(line)"]
        ),
        runs=7,
    )
    return [check, index, bare, nothing_owed, report]


def _repo(repo: Path) -> dict[str, str]:
    env = {
        "GIT_CONFIG_GLOBAL": os.devnull,
        "GIT_CONFIG_NOSYSTEM": "1",
        "GIT_AUTHOR_NAME": "bench",
        "GIT_AUTHOR_EMAIL": "bench@example.invalid",
        "GIT_COMMITTER_NAME": "bench",
        "GIT_COMMITTER_EMAIL": "bench@example.invalid",
        "GFH_STATE_HOME": str(repo.parent / "state"),
    }
    run_env = {**os.environ, **env}
    subprocess.run(["git", "init", "-q", "-b", "main", str(repo)], check=True, env=run_env)
    (repo / "src").mkdir()
    for n in range(PILLS):
        (repo / "src" / f"m{n}.py").write_text(f"x = {n}\n")
        role = "implementer" if n % 2 else "reviewer"
        folder = repo / "pills" / role
        folder.mkdir(parents=True, exist_ok=True)
        (folder / f"lesson-{n}.md").write_text(PILL.format(role=role, n=n, m=(n + 1) % PILLS))
    subprocess.run(["git", "add", "-A"], cwd=repo, check=True, env=run_env)
    start = datetime(2026, 1, 3, tzinfo=UTC)
    for i in range(COMMITS):
        (repo / "src" / f"m{i % PILLS}.py").write_text(f"x = {i}  # change {i}\n")
        when = (start + timedelta(hours=i)).isoformat()
        subprocess.run(
            ["git", "commit", "-q", "-am", f"change {i}"],
            cwd=repo,
            check=True,
            env={**run_env, "GIT_AUTHOR_DATE": when, "GIT_COMMITTER_DATE": when},
        )
    return env


def _log(repo: Path) -> Path:
    """Write EVENTS events (a tenth of them subagent rounds) into the repository's log."""
    directory = repo / ".git" / "gitflow-harness" / "events"
    directory.mkdir(parents=True)
    path = directory / "2026-02.jsonl"
    start = datetime(2026, 2, 1, tzinfo=UTC)
    with path.open("w", encoding="utf-8") as fh:
        for i in range(EVENTS):
            at = (start + timedelta(seconds=20 * i)).strftime("%Y-%m-%dT%H:%M:%S.000Z")
            if i % 10 == 0:
                role = "implementer" if i % 20 else "reviewer"
                kind = "subagent.stopped"
                data = {"role": role, "agent": "a", "verdict": "FAIL" if i % 30 == 0 else "DONE"}
                data["model"] = "m"
            else:
                kind, data = "tool.requested", {"tool": "Edit", "phase": "post"}
            event = {
                "schema": 1,
                "id": uuid.uuid4().hex,
                "at": at,
                "type": kind,
                "surface": "hook",
                "session": f"claude:s{i // 500}",
                "branch": "main",
                "data": data,
            }
            fh.write(json.dumps(event, separators=(",", ":")) + "\n")
    return path


def _imports(code: str, env: dict[str, str]) -> str:
    proc = subprocess.run(
        [PYTHON, "-X", "importtime", "-c", code],
        capture_output=True,
        text=True,
        check=True,
        env={**os.environ, **env},
    )
    heavy = ("yaml", "git", "click", "frontmatter", "filelock")
    found = {
        name.split(".")[0]
        for line in proc.stderr.splitlines()
        if (name := line.rsplit("|", 1)[-1].strip()).split(".")[0] in heavy
    }
    return ", ".join(sorted(found)) or "none of yaml, git, click, frontmatter, filelock"
