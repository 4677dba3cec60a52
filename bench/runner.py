"""Time commands against a baseline in the same run, and report medians and ratios.

Machines here are shared and noisy, so a benchmark never asserts a wall-clock limit: it measures
the thing and its baseline back to back, interleaved, and reports the ratio of the medians.
"""

from __future__ import annotations

import json
import os
import statistics
import subprocess
import sys
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path

PYTHON = sys.executable
BASELINE_PASS = (PYTHON, "-c", "pass")


@dataclass
class Measurement:
    """One benchmark case: its median, its baseline's median, and their ratio."""

    name: str
    baseline: str
    median_s: float
    baseline_median_s: float
    target: float | None = None  # the ratio it should stay under, if any
    notes: list[str] = field(default_factory=list)

    @property
    def ratio(self) -> float:
        return self.median_s / self.baseline_median_s if self.baseline_median_s else float("inf")

    @property
    def verdict(self) -> str:
        if self.target is None:
            return "recorded"
        return "meets target" if self.ratio <= self.target else "MISSES target"


def user_env(work: Path) -> tuple[dict[str, str], Path]:
    """The environment of a user's gfh, whose state is where platformdirs puts it (no
    `$GFH_STATE_HOME`: empty is unset), under a home of its own in `work`; and that state root."""
    home = work / "home"
    home.mkdir(parents=True, exist_ok=True)
    env = {"GFH_STATE_HOME": "", "XDG_STATE_HOME": "", "HOME": str(home)}
    return env, home / ".local" / "state" / "gitflow-harness"


def time_once(
    argv: Sequence[str],
    *,
    cwd: Path | None = None,
    env: Mapping[str, str] | None = None,
    stdin: bytes | None = None,
) -> float:
    """Run `argv` once and return its wall time in seconds; fail loudly if it fails."""
    start = time.perf_counter()
    proc = subprocess.run(
        list(argv),
        cwd=cwd,
        env={**os.environ, **(env or {})},
        input=stdin,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        stdin=None if stdin is not None else subprocess.DEVNULL,
    )
    elapsed = time.perf_counter() - start
    if proc.returncode not in (0, 1):
        raise RuntimeError(
            f"{' '.join(argv)} exited {proc.returncode}: {proc.stderr.decode()[:500]}"
        )
    return elapsed


def compare(
    name: str,
    run: Callable[[], float],
    baseline_name: str,
    baseline: Callable[[], float],
    *,
    runs: int = 21,
    warmup: int = 3,
    target: float | None = None,
) -> Measurement:
    """Interleave `run` and `baseline` (each returns seconds) and compare their medians."""
    for _ in range(warmup):
        run()
        baseline()
    ours: list[float] = []
    base: list[float] = []
    for _ in range(runs):
        ours.append(run())
        base.append(baseline())
    return Measurement(
        name, baseline_name, statistics.median(ours), statistics.median(base), target
    )


def command_vs_pass(
    name: str,
    argv: Sequence[str],
    *,
    cwd: Path | None = None,
    env: Mapping[str, str] | None = None,
    stdin: bytes | None = None,
    runs: int = 21,
    target: float | None = None,
) -> Measurement:
    """Compare a command against a bare `python -c pass`."""
    return compare(
        name,
        lambda: time_once(argv, cwd=cwd, env=env, stdin=stdin),
        "python -c pass",
        lambda: time_once(BASELINE_PASS),
        runs=runs,
        target=target,
    )


def event_counts(repo: Path) -> dict[str, int]:
    """Count the events of each type in the log of the repository at `repo`."""
    counts: dict[str, int] = {}
    for path in (repo / ".git" / "gitflow-harness" / "events").glob("*.jsonl"):
        for line in path.read_text(encoding="utf-8").splitlines():
            kind = json.loads(line)["type"]
            counts[kind] = counts.get(kind, 0) + 1
    return counts


def render_table(results: Sequence[Measurement]) -> str:
    """Render results as a markdown table."""
    lines = [
        "| case | median | baseline | baseline median | ratio | target |",
        "|---|---:|---|---:|---:|---|",
    ]
    for r in results:
        target = f"<= {r.target:g}x ({r.verdict})" if r.target is not None else "-"
        lines.append(
            f"| {r.name} | {r.median_s * 1000:.1f} ms | {r.baseline} | "
            f"{r.baseline_median_s * 1000:.1f} ms | {r.ratio:.2f}x | {target} |"
        )
    for r in results:
        for note in r.notes:
            lines.append(f"\n- {r.name}: {note}")
    return "\n".join(lines)
