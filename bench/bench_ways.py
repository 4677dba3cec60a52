"""The ways index the agent hook loads on every tool call: 500 ways from a warm cache, alone and
then deciding one matched prompt, against a bare `python -c pass`; and a cold load (every file
parsed) for scale."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

from bench.runner import PYTHON, Measurement, command_vs_pass

WAYS = 500
GROUPS = 25
CURVES = (
    "curve: {type: Exponential, half_life: 30000}",
    "curve: {type: Flat, suppression: 20000}",
    "curve:\n  type: ProgressiveStaircase\n  steps: [[0, 1.0], [15000, 0.5], [40000, 0.2]]",
    "curve:\n  type: ActionPotential\n  burst_threshold: 3\n  peak_multiplier: 2.0\n"
    "  absolute_refractory: 3000\n  multiplier_half_life: 4000",
)
BODY = (
    "# Guidance {n}\n\n"
    + "- A line of guidance that an agent reads when this way fires, about topic {n}.\n" * 10
)
LOAD = (
    "from gitflow_harness.ways.index import load_index\n"
    "index = load_index({root!r}, cache_file={cache!r})\n"
    "assert len(index.ways) == {count}, len(index.ways)\n"
)
DECIDE = LOAD + (
    "from gitflow_harness.firing import EngagementState\n"
    "from gitflow_harness.ways.match import prompt_magnitude\n"
    "prompt = 'Please run the release checklist for topic0417 before we ship'\n"
    "fired = []\n"
    "for way in index.ways:\n"
    "    m = prompt_magnitude(way, prompt)\n"
    "    if m:\n"
    "        state = EngagementState.from_dict(way.curve, "
    "{{'last_fire': 1000, 'episode_start': 1000, 'history': [1000]}})\n"
    "        fired.append((way.id, state.decide(95000, m, 0.5).kind))\n"
    "assert len(fired) == 1, fired\n"
)


def write_ways(root: Path, count: int = WAYS) -> None:
    """Write `count` realistic ways: prompt, keyword, file and command lanes, all curve kinds."""
    for n in range(count):
        directory = root / f"group{n % GROUPS:02d}" / f"way{n:04d}"
        directory.mkdir(parents=True)
        text = (
            "---\n"
            f"description: Guidance number {n} for the benchmark\n"
            "when:\n"
            f"  prompt: '\\btopic{n:04d}\\b|\\brelease{n:04d}\\b'\n"
            f"  keywords: [keyword{n}, phrase number {n}]\n"
            f"  files: ['src/module{n}/**/*.py', 'docs/topic{n}.md']\n"
            f"  commands: '\\bmake\\s+target{n}\\b'\n"
            f"{CURVES[n % len(CURVES)]}\n"
            "---\n" + BODY.format(n=n)
        )
        (directory / f"way{n:04d}.md").write_text(text, encoding="utf-8")
    # As a checked-out tree is: nothing edited in the last seconds (which the index would
    # treat as "racy" and read again).
    for dirpath, _, filenames in os.walk(root, topdown=False):
        for path in [*(Path(dirpath) / name for name in filenames), Path(dirpath)]:
            settled = path.stat().st_mtime_ns - 3600 * 10**9
            os.utime(path, ns=(settled, settled))


def run(work: Path) -> list[Measurement]:
    root = work / "ways"
    cache = work / "state" / "ways-index.json"
    write_ways(root)
    env = {"GFH_STATE_HOME": str(work / "state")}
    # The first load warms the cache (bytecode is written before any benchmark runs).
    load = LOAD.format(root=str(root), cache=str(cache), count=WAYS)
    decide = DECIDE.format(root=str(root), cache=str(cache), count=WAYS)
    subprocess.run([PYTHON, "-c", decide], check=True, env=_env(env))
    warm = command_vs_pass(
        f"index load, {WAYS} ways, warm cache",
        [PYTHON, "-c", load],
        env=env,
        runs=41,
        target=1.5,
    )
    warm.notes.append(f"heavy imports on the warm path: {_heavy(load, env) or 'none'}")
    one = command_vs_pass(
        f"index load + match {WAYS} ways + decide one", [PYTHON, "-c", decide], env=env
    )
    cold_code = f"import os\nos.unlink({str(cache)!r})\n" + load
    cold = command_vs_pass(
        f"index load, {WAYS} ways, cold (every file parsed)",
        [PYTHON, "-c", cold_code],
        env=env,
        runs=5,
    )
    return [warm, one, cold]


def _env(extra: dict[str, str]) -> dict[str, str]:
    return {**os.environ, **extra}


def _heavy(code: str, env: dict[str, str]) -> str:
    proc = subprocess.run(
        [PYTHON, "-X", "importtime", "-c", code],
        capture_output=True,
        text=True,
        check=True,
        env=_env(env),
    )
    heavy = ("yaml", "frontmatter", "click", "git", "filelock", "dataclasses", "typing")
    found = set()
    for line in proc.stderr.splitlines():
        name = line.rsplit("|", 1)[-1].strip()
        if name.split(".")[0] in heavy:
            found.add(name.split(".")[0])
    return ", ".join(sorted(found))
