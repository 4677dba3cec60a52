"""The environment a host CLI runs in under test: hermetic, offline, with this gfh on PATH."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
from collections.abc import Mapping, Sequence
from pathlib import Path

SESSION_TIMEOUT_S = 240  # one headless session, end to end; a hung host fails the test

# What a host under test may inherit from the test, and nothing else: a developer's own
# settings (`CODEX_HOME`, `CLAUDE_CONFIG_DIR`, a provider switch such as
# `CLAUDE_CODE_USE_BEDROCK`, a proxy, an API key, an agent's own session) would send the host
# elsewhere than the stand-in, with real credentials. The test's HOME, XDG and git settings are
# already hermetic (tests/conftest.py); coverage's variables measure the hooks the host runs.
INHERITED = ("PATH", "HOME", "TMPDIR", "LANG", "LC_ALL", "TZ", "GFH_STATE_HOME", "PRE_COMMIT_HOME")
INHERITED_PREFIXES = ("GIT_", "XDG_", "COVERAGE_")


def host_env(extra: Mapping[str, str] | None = None) -> dict[str, str]:
    """The test's own (hermetic) environment cut down to `INHERITED`, the host's configuration
    pinned under the test's HOME, and the `gfh` of this interpreter first on PATH: the hooks
    `gfh init` writes call `gfh` by name."""
    env = {
        k: v for k, v in os.environ.items() if k in INHERITED or k.startswith(INHERITED_PREFIXES)
    }
    home = env["HOME"]
    env["CODEX_HOME"] = os.path.join(home, ".codex")
    env["CLAUDE_CONFIG_DIR"] = os.path.join(home, ".claude")
    env["PATH"] = os.pathsep.join([os.path.dirname(sys.executable), env.get("PATH", "")])
    env.update(extra or {})
    return env


def run_host(
    argv: Sequence[str], repo: Path, environment: Mapping[str, str]
) -> subprocess.CompletedProcess[str]:
    """Run a host CLI headless in `repo`: no stdin, its output captured, bounded in time.

    The host runs in a process group of its own, and a host that outlives the bound is killed
    with everything it started (the native binary behind the npm launcher, MCP servers, hooks).
    """
    proc = subprocess.Popen(
        list(argv),
        cwd=repo,
        env=dict(environment),
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        stdin=subprocess.DEVNULL,
        text=True,
        start_new_session=True,
    )
    try:
        out, err = proc.communicate(timeout=SESSION_TIMEOUT_S)
    except subprocess.TimeoutExpired:
        os.killpg(proc.pid, signal.SIGKILL)
        proc.communicate()
        raise
    return subprocess.CompletedProcess(proc.args, proc.returncode, out, err)
