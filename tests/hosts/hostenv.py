"""The environment a host CLI runs in under test: hermetic, offline, with this gfh on PATH."""

from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import Mapping, Sequence
from pathlib import Path

SESSION_TIMEOUT_S = 240  # one headless session, end to end; a hung host fails the test

# Variables a host exports to what it starts: a suite run inside an agent must not leak its own
# session into the host under test.
HOST_VARIABLES = (
    "GFH_SESSION",
    "CLAUDECODE",
    "CLAUDE_CODE_SESSION_ID",
    "CLAUDE_CODE_ENTRYPOINT",
    "CLAUDE_ENV_FILE",
    "CLAUDE_PROJECT_DIR",
    "AI_AGENT",
    "CODEX_SESSION_ID",
    "CODEX_THREAD_ID",
    "CODEX_CI",
    "CURSOR_VERSION",
    "CURSOR_PROJECT_DIR",
    "ANTHROPIC_API_KEY",
    "ANTHROPIC_BASE_URL",
    "ANTHROPIC_AUTH_TOKEN",
    "OPENAI_API_KEY",
    "OPENAI_BASE_URL",
)


def host_env(extra: Mapping[str, str] | None = None) -> dict[str, str]:
    """The test's own (hermetic) environment, less any host's variables, with the `gfh` of
    this interpreter first on PATH: the hooks `gfh init` writes call `gfh` by name."""
    env = {k: v for k, v in os.environ.items() if k not in HOST_VARIABLES}
    env["PATH"] = os.pathsep.join([os.path.dirname(sys.executable), env.get("PATH", "")])
    env.update(extra or {})
    return env


def run_host(
    argv: Sequence[str], repo: Path, environment: Mapping[str, str]
) -> subprocess.CompletedProcess[str]:
    """Run a host CLI headless in `repo`: no stdin, its output captured, bounded in time."""
    return subprocess.run(
        list(argv),
        cwd=repo,
        env=dict(environment),
        capture_output=True,
        text=True,
        stdin=subprocess.DEVNULL,
        timeout=SESSION_TIMEOUT_S,
    )
