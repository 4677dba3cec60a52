"""`gfh report` over a generated log of 1,000,000 events, against a bare Python loop that only
`json.loads` each line of the same files; and its peak memory at 100,000 and 1,000,000 events
(flat memory: the report keeps what detectors need, never the log)."""

from __future__ import annotations

import json
import random
import subprocess
import time
from collections.abc import Sequence
from pathlib import Path

from bench.runner import PYTHON, Measurement, compare

EVENTS = 1_000_000
SMALL = 100_000

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
for path in sorted(Path(sys.argv[1]).glob("*.jsonl")):
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
code = main(["report", "--json"])
"""
    + PEAK
    + "sys.exit(code)\n"
)


def run(work: Path) -> list[Measurement]:
    big = _repo(work / "big", EVENTS)
    small = _repo(work / "small", SMALL)
    events_dir = big / ".git" / "gitflow-harness" / "events"
    size = sum(p.stat().st_size for p in events_dir.glob("*.jsonl"))
    peaks: dict[str, list[int]] = {"report": [], "bare": []}

    def ours() -> float:
        seconds, peak = measured([PYTHON, "-c", REPORT], big)
        peaks["report"].append(peak)
        return seconds

    def bare() -> float:
        seconds, peak = measured([PYTHON, "-c", BARE_LOOP, str(events_dir)], big)
        peaks["bare"].append(peak)
        return seconds

    result = compare(
        f"gfh report, {EVENTS:,} events",
        ours,
        "json.loads loop",
        bare,
        runs=3,
        warmup=1,
        target=2.0,
    )
    _, small_peak = measured([PYTHON, "-c", REPORT], small)
    big_peak = max(peaks["report"])
    result.notes.append(
        f"log: {size / 1e6:.0f} MB in {len(list(events_dir.glob('*.jsonl')))} monthly files"
    )
    result.notes.append(
        f"peak RSS: {small_peak / 1024:.1f} MiB at {SMALL:,} events, {big_peak / 1024:.1f} MiB "
        f"at {EVENTS:,} events (x{big_peak / small_peak:.2f} for 10x the log; "
        f"the bare loop: {max(peaks['bare']) / 1024:.1f} MiB)"
    )
    return [result]


def measured(argv: Sequence[str], cwd: Path) -> tuple[float, int]:
    """Run `argv` and return its wall time and the peak resident set size it reported (KiB)."""
    start = time.perf_counter()
    proc = subprocess.run(
        list(argv), cwd=cwd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, check=False
    )
    elapsed = time.perf_counter() - start
    err = proc.stderr.decode(errors="replace")
    if proc.returncode != 0:
        raise RuntimeError(f"{' '.join(argv)[:80]} exited {proc.returncode}: {err[:500]}")
    peaks = [int(line.split()[1]) for line in err.splitlines() if line.startswith("peak-kib ")]
    return elapsed, peaks[-1] if peaks else 0


def _repo(path: Path, count: int) -> Path:
    path.mkdir(parents=True)
    subprocess.run(["git", "init", "-q", "-b", "main", str(path)], check=True)
    events = path / ".git" / "gitflow-harness" / "events"
    events.mkdir(parents=True)
    generate(events, count)
    return path


def generate(directory: Path, count: int, *, seed: int = 7) -> None:
    """Write `count` host-shaped events over twelve monthly files: many sessions and branches,
    the event types in roughly the proportions a busy repository sees."""
    rng = random.Random(seed)
    sessions = [f"claude:{rng.getrandbits(64):016x}" for _ in range(3000)] + [None] * 300
    branches = [f"feature/topic-{i}" for i in range(400)]
    surfaces = ["cli", "cli", "cli", "hook", "mcp"]
    per_month = count // 12
    written = 0
    for month in range(12):
        n = per_month if month < 11 else count - written
        with open(directory / f"2026-{month + 1:02d}.jsonl", "w", encoding="utf-8") as fh:
            lines = []
            for i in range(n):
                second = i * (28 * 86400) // max(n, 1)
                at = (
                    f"2026-{month + 1:02d}-{1 + second // 86400:02d}T"
                    f"{second % 86400 // 3600:02d}:{second % 3600 // 60:02d}:{second % 60:02d}."
                    f"{i % 1000:03d}Z"
                )
                lines.append(_event(rng, at, sessions, branches, surfaces))
                if len(lines) >= 10_000:
                    fh.write("".join(lines))
                    lines.clear()
            fh.write("".join(lines))
        written += n


def _event(
    rng: random.Random,
    at: str,
    sessions: list[str | None],
    branches: list[str],
    surfaces: list[str],
) -> str:
    roll = rng.random()
    session = rng.choice(sessions)
    branch = rng.choice(branches)
    surface = rng.choice(surfaces)
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
    elif roll < 0.64:
        kind = "git.update"
        data = {"via": "merge", "trunk": "main", "onto": f"{rng.getrandbits(160):040x}"}
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
