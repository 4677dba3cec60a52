"""The agent hook: `gfh hook claude PostToolUse` with a Write payload, against `python -c pass`.

This is the hottest path of the product: Claude Code runs it after every tool call. The case
measured is the runtime alone (no context source plugged in: evidence, session correlation and
the answer to the host); the ways engine adds its index and matching to it. Bytecode is compiled
first, as an install does: with `PYTHONDONTWRITEBYTECODE` set, every run would otherwise compile
the package from source and measure the compiler. A second case runs the same hook on a bare
interpreter (`-I -S`: no site, so no editable-install finder and none of this machine's `.pth`
imports) against that interpreter's own start: the floor, where every import the hook makes
shows in full — the development venv's start already imports `pathlib` and `re` for its finder.
"""

from __future__ import annotations

import compileall
import json
import os
import subprocess
import sys
from pathlib import Path

from bench.runner import PYTHON, Measurement, command_vs_pass, compare, time_once

ROOT = Path(__file__).resolve().parent.parent
PACKAGE = ROOT / "gitflow_harness"
FIXTURE = ROOT / "tests" / "fixtures" / "hooks" / "claude" / "PostToolUse.Write.json"
HEAVY = ("click", "git", "yaml", "frontmatter", "filelock", "platformdirs", "dataclasses", "typing")
TARGET_FINISHED = 2.5  # DESIGN: with 200 non-matching ways; the ways engine is not measured here


def run(work: Path) -> list[Measurement]:
    compileall.compile_dir(str(PACKAGE), quiet=1)
    repo = work / "repo"
    subprocess.run(["git", "init", "-q", str(repo)], check=True)
    subprocess.run(
        [
            "git",
            "-C",
            str(repo),
            "-c",
            "user.name=b",
            "-c",
            "user.email=b@b",
            "commit",
            "-q",
            "--allow-empty",
            "-m",
            "init",
        ],
        check=True,
    )
    payload = FIXTURE.read_text().replace("/home/dev/project", str(repo)).encode()
    env = {"GFH_STATE_HOME": str(work / "state")}
    argv = _gfh_argv("hook", "claude", "PostToolUse")
    hook = command_vs_pass(
        "gfh hook claude PostToolUse (Write; runtime, no ways)",
        argv,
        cwd=repo,
        env=env,
        stdin=payload,
        runs=41,
        target=TARGET_FINISHED,
    )
    hook.notes.append(
        f"target {TARGET_FINISHED}x is for the finished hook with 200 non-matching ways; this "
        "case is the runtime alone, so what it leaves below the target is the ways engine's budget"
    )
    hook.notes.append(_importtime(repo, env, payload))
    isolated = _isolated(repo, env, payload)
    events = len(list((repo / ".git" / "gitflow-harness" / "events").glob("*.jsonl")))
    hook.notes.append(f"every run appended its tool.requested event ({events} log file(s))")
    return [hook, isolated]


def _gfh_argv(*args: str) -> list[str]:
    script = Path(PYTHON).with_name("gfh")
    if script.exists():
        return [str(script), *args]  # the console script, exactly what a host runs
    return [PYTHON, "-m", "gitflow_harness", *args]


def _isolated(repo: Path, env: dict[str, str], payload: bytes) -> Measurement:
    base = getattr(sys, "_base_executable", PYTHON) or PYTHON
    code = (
        f"import sys; sys.path.insert(0, {str(ROOT)!r}); from gitflow_harness.main import main; "
        "raise SystemExit(main(['hook', 'claude', 'PostToolUse']))"
    )
    return compare(
        "same hook, bare interpreter (-I -S)",
        lambda: time_once([base, "-I", "-S", "-c", code], cwd=repo, env=env, stdin=payload),
        "python -I -S -c pass",
        lambda: time_once([base, "-I", "-S", "-c", "pass"]),
        runs=41,
    )


def _importtime(repo: Path, env: dict[str, str], payload: bytes) -> str:
    """Summarise `python -X importtime` of one hook call: our modules and any heavy ones."""
    entry = "from gitflow_harness.main import main; raise SystemExit(main())"
    command = [PYTHON, "-X", "importtime", "-c", entry, "hook", "claude", "PostToolUse"]
    proc = subprocess.run(
        command, cwd=repo, env={**os.environ, **env}, input=payload, capture_output=True
    )
    ours: list[tuple[int, str]] = []
    stdlib: list[tuple[int, str]] = []
    heavy: list[str] = []
    after_site = False
    for line in proc.stderr.decode().splitlines():
        if not line.startswith("import time:") or "|" not in line:
            continue
        self_part, _cumulative, name = line.removeprefix("import time:").split("|", 2)
        self_us = self_part.strip()
        if name.strip() == "site":
            after_site = True
            continue
        name = name.strip()
        if not after_site or not self_us.isdigit():
            continue
        micros = int(self_us)
        module = name
        if module.split(".")[0] in HEAVY:
            heavy.append(module)
        (ours if module.startswith("gitflow_harness") else stdlib).append((micros, module))
    total_ours = sum(m for m, _ in ours) / 1000
    total_std = sum(m for m, _ in stdlib) / 1000
    top = ", ".join(f"{n} {m / 1000:.1f}" for m, n in sorted(ours, reverse=True)[:5])
    new_std = ", ".join(sorted({n.split(".")[0] for _, n in stdlib}))
    return (
        f"`-X importtime` after site: {len(ours)} gitflow_harness modules, {total_ours:.1f} ms "
        f"self time (largest: {top}); stdlib imported beyond the interpreter's start: "
        f"{new_std or 'none'} ({total_std:.1f} ms); heavy imports: "
        f"{', '.join(sorted(set(heavy))) or 'none'} ({json.dumps(list(HEAVY))} checked)"
    )
