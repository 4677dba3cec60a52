"""Drive a real Claude Code session headless (`claude -p`) against the scripted model."""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from tests.hosts.hostenv import host_env, run_host

TOOLS = ("Bash", "Write", "Edit", "Read", "Agent")


@dataclass
class Run:
    """What one `claude -p` run gave: its exit code, its JSON result and its stderr."""

    code: int
    result: dict[str, Any]
    stderr: str

    @property
    def session_id(self) -> str:
        return str(self.result["session_id"])


def run(
    command: Path,
    repo: Path,
    model_url: str,
    prompt: str,
    *,
    tools: Sequence[str] = TOOLS,
    env: Mapping[str, str] | None = None,
    args: Sequence[str] = (),
) -> Run:
    """Run one headless turn of Claude Code in `repo` with the project's hooks."""
    environment = host_env(
        {
            "ANTHROPIC_BASE_URL": model_url,
            "ANTHROPIC_API_KEY": "sk-ant-test-loopback",
            "DISABLE_TELEMETRY": "1",
            "DISABLE_AUTOUPDATER": "1",
            "DISABLE_ERROR_REPORTING": "1",
            "CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC": "1",
            **(env or {}),
        }
    )
    proc = run_host(
        [
            str(command),
            "-p",
            prompt,
            "--output-format",
            "json",
            "--allowedTools",
            " ".join(tools),
            *args,
        ],
        repo,
        environment,
    )
    try:
        result = json.loads(proc.stdout.strip().splitlines()[-1]) if proc.stdout.strip() else {}
    except ValueError:
        result = {"unparsed": proc.stdout}
    return Run(proc.returncode, result, proc.stderr)


def transcript(home: Path, run_: Run) -> list[dict[str, Any]]:
    """The transcript Claude Code wrote for the run's session."""
    found = list((home / ".claude" / "projects").glob(f"*/{run_.session_id}.jsonl"))
    assert found, f"no transcript for session {run_.session_id}"
    return [json.loads(line) for line in found[0].read_text(encoding="utf-8").splitlines() if line]
