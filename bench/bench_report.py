"""`gfh report` over a generated log of 1,000,000 events, against a bare Python loop that only
`json.loads` each line of the same files; and its peak memory at 100,000 and 1,000,000 events
(flat memory: the report keeps what detectors need, never the log). Then `gfh report --repo a
--repo b --repo c` over three such repositories of 300,000 events each, against the same bare
loop over their three logs, and its peak memory against one of them reported alone.

The log is shaped like a busy repository's year: agent sessions come and go (a new one every
two dozen events or so, 40,000 in all), each on one branch and almost all through the CLI, and
each leaves its last episodes open when it ends. Nothing else clears them in bulk: people
without a session work on the trunk, MCP sessions and `git.update` events are rare. So what the
report keeps must be bounded by the sessions still active, not by every session the log saw.
The repository holds real branches whose reflogs have commits, merges of the trunk and rebases
spread over the same year, so the report's git evidence is read and judged as it would be;
most branch names in the log are long deleted. On a machine with a CPU idle for it, the report
forks a child for the detectors that read a few types of event (docs/report.md): the table is
wall time, and the CPU-time note counts the child's too.
"""

from __future__ import annotations

import datetime as dt
import json
import os
import random
import resource
import statistics
import subprocess
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Final, NamedTuple

from bench.runner import PYTHON, Measurement, compare

EVENTS = 1_000_000
SMALL = 100_000
EACH = 300_000  # events in each of the three repositories of the report across repositories

# Each program reports its own peak RSS (VmHWM belongs to the process image, so unlike
# ru_maxrss it does not include the benchmark's own memory inherited through fork).
PEAK = """
import sys
with open("/proc/self/status") as _status:
    for _line in _status:
        if _line.startswith("VmHWM:"):
            print("peak-kib", _line.split()[1], file=sys.stderr)
"""

BARE_LOOP = (
    """
import json, sys
from pathlib import Path
for directory in sys.argv[1:]:
    for path in sorted(Path(directory).glob("*.jsonl")):
        with open(path, "rb") as fh:
            for line in fh:
                try:
                    json.loads(line)
                except ValueError:
                    pass
"""
    + PEAK
)

REPORT = (
    """
import sys
from gitflow_harness.main import main
code = main(["report", "--json", *sys.argv[1:]])
"""
    + PEAK
    + "sys.exit(code)\n"
)


def run(work: Path) -> list[Measurement]:
    big, sessions = _repo(work / "big", EVENTS)
    small, _ = _repo(work / "small", SMALL)
    events_dir = big / ".git" / "gitflow-harness" / "events"
    size = sum(p.stat().st_size for p in events_dir.glob("*.jsonl"))
    runs: dict[str, list[Run]] = {"report": [], "bare": []}

    def ours() -> float:
        runs["report"].append(run := measured([PYTHON, "-c", REPORT], big))
        return run.seconds

    def bare() -> float:
        runs["bare"].append(run := measured([PYTHON, "-c", BARE_LOOP, str(events_dir)], big))
        return run.seconds

    result = compare(
        f"gfh report, {EVENTS:,} events",
        ours,
        "json.loads loop",
        bare,
        runs=3,
        warmup=1,
        target=0.8,
    )
    small_peak = measured([PYTHON, "-c", REPORT], small).peak_kib
    big_peak = max(r.peak_kib for r in runs["report"])
    result.notes.append(
        f"log: {size / 1e6:.0f} MB in {len(list(events_dir.glob('*.jsonl')))} monthly files, "
        f"{sessions:,} sessions; repository: {LIVE_BRANCHES} live branches with "
        f"{MONTHS} months of reflog (commits, merges and rebases of the trunk)"
    )
    result.notes.append(
        f"peak RSS: {small_peak / 1024:.1f} MiB at {SMALL:,} events, {big_peak / 1024:.1f} MiB "
        f"at {EVENTS:,} events (x{big_peak / small_peak:.2f} for 10x the log; "
        f"the bare loop: {max(r.peak_kib for r in runs['bare']) / 1024:.1f} MiB)"
    )
    result.notes.append(cpu_note(runs["report"], runs["bare"]))
    return [result, _across(work)]


def _across(work: Path) -> Measurement:
    """The report across three repositories against a bare pass over their three logs."""
    repos = [_repo(work / name, EACH, seed=seed)[0] for seed, name in enumerate("abc", 21)]
    logs = [str(r / ".git" / "gitflow-harness" / "events") for r in repos]
    args = [arg for r in repos for arg in ("--repo", str(r))]
    runs: dict[str, list[Run]] = {"report": [], "bare": []}

    def ours() -> float:
        runs["report"].append(run := measured([PYTHON, "-c", REPORT, *args], work))
        return run.seconds

    def bare() -> float:
        runs["bare"].append(run := measured([PYTHON, "-c", BARE_LOOP, *logs], work))
        return run.seconds

    result = compare(
        f"gfh report --repo ×3, {EACH:,} events each",
        ours,
        "json.loads loop over the three logs",
        bare,
        runs=3,
        warmup=1,
        target=0.8,
    )
    alone = measured([PYTHON, "-c", REPORT], repos[0]).peak_kib
    peak = max(r.peak_kib for r in runs["report"])
    result.notes.append(
        f"peak RSS: {peak / 1024:.1f} MiB over the three repositories, "
        f"{alone / 1024:.1f} MiB for one of them alone (x{peak / alone:.2f})"
    )
    result.notes.append(cpu_note(runs["report"], runs["bare"]))
    return result


class Run(NamedTuple):
    """One run of a program: its wall time, the CPU time it and its children used (user and
    system: less swayed than wall time by other work on a loaded machine), its peak RSS."""

    seconds: float
    cpu: float
    peak_kib: int


def measured(argv: Sequence[str], cwd: Path) -> Run:
    """Run `argv` and return its wall time, its CPU time and the peak RSS it reported (KiB)."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    proc = subprocess.run(
        list(argv), cwd=cwd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, check=False
    )
    elapsed = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = after.ru_utime - before.ru_utime + after.ru_stime - before.ru_stime
    err = proc.stderr.decode(errors="replace")
    if proc.returncode != 0:
        raise RuntimeError(f"{' '.join(argv)[:80]} exited {proc.returncode}: {err[:500]}")
    peaks = [int(line.split()[1]) for line in err.splitlines() if line.startswith("peak-kib ")]
    return Run(elapsed, cpu, peaks[-1] if peaks else 0)


def cpu_note(ours: Sequence[Run], bare: Sequence[Run]) -> str:
    """The ratio of the median CPU times, beside the wall-time ratio the table shows."""
    mine = statistics.median(r.cpu for r in ours)
    base = statistics.median(r.cpu for r in bare)
    return (
        f"CPU time (user + system, with git's and that of the child the report forks for the "
        f"detectors that read a few types, where a CPU is idle for it): {mine:.1f} s against "
        f"{base:.1f} s, x{mine / base:.2f}"
    )


# -- the repository ------------------------------------------------------------------------

MONTHS: Final = 12
LIVE_BRANCHES: Final = 40  # of BRANCHES: the rest were accepted and deleted long ago
BRANCHES: Final = 400
YEAR_START: Final = int(dt.datetime(2026, 1, 1, tzinfo=dt.UTC).timestamp())
MONTH_SECONDS: Final = 28 * 86400


def _repo(path: Path, count: int, *, seed: int = 7) -> tuple[Path, int]:
    path.mkdir(parents=True)
    _git(path, "init", "-q", "-b", "main")
    history(path)
    events = path / ".git" / "gitflow-harness" / "events"
    events.mkdir(parents=True)
    return path, generate(events, count, seed=seed)


def history(repo: Path, *, seed: int = 11) -> None:
    """Give the trunk and the live branches a year of reflog: every few days the trunk moves,
    and each live branch commits, merges the trunk or rebases onto it, at those times.

    Plumbing (`commit-tree`, `update-ref -m`) writes the same reflog entries git's porcelain
    does, with the times set through the committer date, in a fraction of the time.
    """
    rng = random.Random(seed)
    tree = _git(repo, "write-tree").strip()  # the empty tree: the steps, not the files, matter
    moments = sorted(rng.randrange(MONTHS * MONTH_SECONDS) for _ in range(MONTHS * 12))
    trunk = _commit(repo, tree, [], "initial", YEAR_START)
    _update(repo, "main", trunk, None, "commit (initial): initial", YEAR_START)
    tips: dict[str, str] = {}
    for i in range(LIVE_BRANCHES):
        tips[_branch(i)] = trunk
        _update(repo, _branch(i), trunk, None, "branch: Created from main", YEAR_START)
    for n, offset in enumerate(moments):
        when = YEAR_START + offset
        new = _commit(repo, tree, [trunk], f"trunk {n}", when)
        _update(repo, "main", new, trunk, f"commit: trunk {n}", when)
        trunk = new
        for name in rng.sample(sorted(tips), LIVE_BRANCHES // 4):
            old = tips[name]
            when += 1 + rng.randrange(3600)
            roll = rng.random()
            if roll < 0.5:
                tip = _commit(repo, tree, [old], f"{name} work", when)
                message = f"commit: {name} work"
            elif roll < 0.85:
                tip = _commit(repo, tree, [old, trunk], "Merge branch 'main'", when)
                message = "merge main: Merge made by the 'ort' strategy."
            else:
                tip = _commit(repo, tree, [trunk], f"{name} work, rebased", when)
                message = f"rebase (finish): refs/heads/{name} onto {trunk}"
            _update(repo, name, tip, old, message, when)
            tips[name] = tip


def _branch(i: int) -> str:
    return f"feature/topic-{i}"


def _commit(repo: Path, tree: str, parents: list[str], message: str, when: int) -> str:
    args = ["commit-tree", tree, "-m", message]
    for parent in parents:
        args += ["-p", parent]
    return _git(repo, *args, when=when).strip()


def _update(repo: Path, branch: str, new: str, old: str | None, message: str, when: int) -> None:
    args = ["update-ref", "--create-reflog", "-m", message, f"refs/heads/{branch}", new]
    _git(repo, *args, *([old] if old else []), when=when)


def _git(repo: Path, *args: str, when: int | None = None) -> str:
    env = {
        **os.environ,
        "GIT_AUTHOR_NAME": "Bench",
        "GIT_AUTHOR_EMAIL": "bench@example.invalid",
        "GIT_COMMITTER_NAME": "Bench",
        "GIT_COMMITTER_EMAIL": "bench@example.invalid",
    }
    if when is not None:
        env["GIT_AUTHOR_DATE"] = env["GIT_COMMITTER_DATE"] = f"@{when} +0000"
    proc = subprocess.run(
        ["git", *args], cwd=repo, env=env, capture_output=True, text=True, check=False
    )
    if proc.returncode != 0:
        raise RuntimeError(f"git {' '.join(args)} failed: {proc.stderr.strip()}")
    return proc.stdout


# -- the log -------------------------------------------------------------------------------

SLOTS: Final = 12  # sessions at work at any moment
LIFETIME: Final = 25  # a session's events, on average, before it ends and a new one starts


def generate(directory: Path, count: int, *, seed: int = 7) -> int:
    """Write `count` host-shaped events over twelve monthly files, in time order, and return
    how many sessions they came from: sessions come and go, each on one branch, through the CLI
    mostly; a few have no session (a person at the terminal, on the trunk); the event types in
    roughly the proportions a busy repository sees."""
    rng = random.Random(seed)
    slots = [_session(rng) for _ in range(SLOTS)]
    sessions = SLOTS
    per_month = count // MONTHS
    written = 0
    for month in range(MONTHS):
        n = per_month if month < MONTHS - 1 else count - written
        with open(directory / f"2026-{month + 1:02d}.jsonl", "w", encoding="utf-8") as fh:
            lines = []
            for i in range(n):
                second = i * MONTH_SECONDS // max(n, 1)
                at = (
                    f"2026-{month + 1:02d}-{1 + second // 86400:02d}T"
                    f"{second % 86400 // 3600:02d}:{second % 3600 // 60:02d}:{second % 60:02d}."
                    f"{i % 1000:03d}Z"
                )
                slot = rng.randrange(SLOTS)
                if rng.random() < 1 / LIFETIME:
                    slots[slot] = _session(rng)
                    sessions += 1
                lines.append(_event(rng, at, *slots[slot]))
                if len(lines) >= 10_000:
                    fh.write("".join(lines))
                    lines.clear()
            fh.write("".join(lines))
        written += n
    return sessions


def _session(rng: random.Random) -> tuple[str | None, str, str]:
    """A new session: its id, its branch, its CLI surface. An agent works on one branch (a live
    one half the time); a person without a session works on the trunk in the main checkout."""
    if rng.random() < 0.05:
        return None, "main", "cli"
    session = f"claude:{rng.getrandbits(64):016x}"
    live = rng.random() < 0.5
    branch = _branch(rng.randrange(LIVE_BRANCHES if live else BRANCHES))
    surface = "mcp" if rng.random() < 0.02 else "cli"
    return session, branch, surface


def _event(rng: random.Random, at: str, session: str | None, branch: str, cli_surface: str) -> str:
    roll = rng.random()
    surface = cli_surface
    if roll < 0.45:
        kind, data = (
            "tool.requested",
            {"tool": rng.choice(["Edit", "Bash", "Read"]), "phase": "post"},
        )
        surface = "hook"
    elif roll < 0.55:
        kind, data = "turn.started", {"turn": rng.randrange(1, 200), "stop_remediation": False}
        surface = "hook"
    elif roll < 0.62:
        kind = "way.fired"
        data = {
            "way": "shared/testing",
            "trigger": "prompt",
            "tick": rng.randrange(10**6),
            "axis": "tokens",
            "kind": "first",
            "salience": 1.0,
        }
        surface = "hook"
    elif roll < 0.625:
        kind = "git.update"
        data = {
            "via": "merge",
            "trunk": "main",
            "onto": f"{rng.getrandbits(160):040x}",
            "head": f"{rng.getrandbits(160):040x}",
        }
        surface = "git"
    else:
        kind, data = "verb", _verb(rng)
    envelope = {
        "schema": 1,
        "id": f"{rng.getrandbits(128):032x}",
        "at": at,
        "type": kind,
        "surface": surface,
        "session": session,
        "branch": branch,
        "data": data,
    }
    return json.dumps(envelope, separators=(",", ":")) + "\n"


def _verb(rng: random.Random) -> dict[str, object]:
    verb = rng.choice(["status", "status", "status", "update", "prepare", "test", "done", "start"])
    hints: list[str] = []
    gate = None
    behind = rng.choice([0, 0, 0, 1, 3])
    if verb == "status" and behind:
        hints.append("status-branch-behind")
    if verb in ("test", "done"):
        gate = rng.choice(["green", "red"])
        if gate == "red":
            hints.append(rng.choice(["gate-failure-test", "gate-failure-prepare"]))
    data: dict[str, object] = {
        "verb": verb,
        "outcome": "ok" if gate != "red" else "failed",
        "hint_ids": hints,
        "trunk": "main",
        "clean": rng.random() < 0.7,
        "head": f"{rng.getrandbits(160):040x}",
        "tree": f"{rng.getrandbits(160):040x}",
        "ahead": rng.randrange(5),
        "behind": behind,
        "duration_ms": rng.randrange(5, 400),
        "flags": [],
    }
    if verb in ("test", "done"):
        data["gate"] = gate
    if verb == "done":
        data["probe"] = False
    return data
