"""Drive a real Codex session headless (`codex exec`) against the scripted Responses API."""

from __future__ import annotations

import os
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

from tests.hosts.hostenv import host_env, run_host
from tests.hosts.responses import MODEL

KEY_VARIABLE = "GFH_TEST_MODEL_KEY"

# What makes Codex talk to nothing but the scripted model: a custom provider on loopback, and
# the two background features that otherwise reach the network at start-up — analytics (an OTLP
# exporter to ab.chatgpt.com) and the curated plugins sync (`git ls-remote` of
# github.com/openai/plugins, api.github.com, chatgpt.com). No retries, so a wire-format mistake
# fails the run at once instead of backing off. Tools run unsandboxed: gfh writes to the git
# common dir and to $GFH_STATE_HOME, outside the workspace a sandbox would allow.
CONFIG = """\
model = "{model}"
model_provider = "x"
approval_policy = "never"
sandbox_mode = "danger-full-access"
check_for_update_on_startup = false

[model_providers.x]
name = "scripted model on loopback"
base_url = "{url}/v1"
env_key = "{key}"
wire_api = "responses"
request_max_retries = 0
stream_max_retries = 0

[analytics]
enabled = false

[features]
plugins = false
"""

# `hook: SessionStart` when a hook starts, `hook: SessionStart Completed` (or `Failed`) when it
# ends, one pair per hook, on stderr.
_HOOK = re.compile(r"^hook: (\w+)(?: (\w+))?$", re.M)
_SESSION = re.compile(r"^session id: (\S+)$", re.M)


@dataclass
class Run:
    """What one `codex exec` run gave: its exit code, the last message (stdout) and its log
    (stderr: the session header, each hook's start and end, each command run)."""

    code: int
    stdout: str
    stderr: str

    @property
    def session_id(self) -> str:
        found = _SESSION.search(self.stderr)
        assert found, f"no session id in Codex's output:\n{self.stderr}"
        return found.group(1)

    @property
    def hooks(self) -> list[tuple[str, str]]:
        """Each hook that ended, in order: (event, status), status `Completed` or `Failed`."""
        return [(m[1], m[2]) for m in _HOOK.finditer(self.stderr) if m[2]]

    def statuses(self, event: str) -> list[str]:
        return [status for name, status in self.hooks if name == event]


def configure(home: Path, model_url: str) -> Path:
    """Write `$HOME/.codex/config.toml` pointing Codex at the scripted model."""
    path = home / ".codex" / "config.toml"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(CONFIG.format(model=MODEL, url=model_url, key=KEY_VARIABLE), encoding="utf-8")
    return path


def run(
    command: Path,
    repo: Path,
    model_url: str,
    prompt: str,
    *,
    env: Mapping[str, str] | None = None,
    args: Sequence[str] = (),
) -> Run:
    """Run one headless turn of Codex in `repo` with the project's hooks, trusted for this run."""
    configure(Path(os.environ["HOME"]), model_url)
    environment = host_env({KEY_VARIABLE: "sk-test-loopback", **(env or {})})
    proc = run_host(
        [
            str(command),
            "exec",
            "--trust",  # without it the project's .codex/ (its hooks.json) is ignored
            "--dangerously-bypass-hook-trust",  # else new hooks wait for review in /hooks
            "--color",
            "never",
            *args,
            prompt,
        ],
        repo,
        environment,
    )
    return Run(proc.returncode, proc.stdout, proc.stderr)
