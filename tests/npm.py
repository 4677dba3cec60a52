"""The real tools the tests run that come from npm, installed pinned into the ignored `.cache/`.

The agent hosts (Claude Code, Codex: npm packages whose optional dependency carries the native
binary for this platform) and the hook managers (husky, lefthook). The install is the test
set-up's own: nothing on the machine is assumed but node and npm, nothing is fetched but the
pinned packages, and npm's cache lives beside them, never in the user's home. Workers of one run
share an install under a file lock; a finished install is marked, so a half-written one is never
used. A tool that cannot be installed fails the run in CI (`CI` set) and skips elsewhere.
"""

from __future__ import annotations

import os
import shutil
import subprocess
from dataclasses import dataclass
from pathlib import Path

from filelock import FileLock

from tests.helpers import ROOT

CACHE = ROOT / ".cache" / "npm"
INSTALL_TIMEOUT_S = 600


@dataclass(frozen=True)
class Tool:
    """One command from npm: its package, the version verified against, its command's name, and
    whether the package's install scripts run (Claude Code's puts its binary in place; lefthook's
    would install hooks into whatever repository npm was started in)."""

    name: str
    package: str
    version: str
    scripts: bool = True

    @property
    def prefix(self) -> Path:
        return CACHE / f"{self.name}-{self.version}"

    @property
    def command(self) -> Path:
        return self.prefix / "node_modules" / ".bin" / self.name


CLAUDE = Tool("claude", "@anthropic-ai/claude-code", "2.1.332")
CODEX = Tool("codex", "@openai/codex", "0.171.0")
HUSKY = Tool("husky", "husky", "9.1.7", scripts=False)
LEFTHOOK = Tool("lefthook", "lefthook", "2.2.2", scripts=False)


class Unavailable(Exception):
    """The tool cannot be installed here (no npm, or the registry refused)."""


def installed(tool: Tool) -> Path:
    """The tool's command; one that cannot be installed fails the run in CI, else skips."""
    import pytest

    try:
        return ensure(tool)
    except Unavailable as exc:
        if os.environ.get("CI"):
            pytest.fail(f"{tool.name} {tool.version} is required in CI: {exc}")
        pytest.skip(f"{tool.name} {tool.version} cannot be installed here: {exc}")


def ensure(tool: Tool) -> Path:
    """Install `tool` unless a finished install is there; return its command."""
    done = tool.prefix / ".installed"
    if done.exists():
        return tool.command
    if shutil.which("npm") is None:
        raise Unavailable("npm is not on PATH")
    CACHE.mkdir(parents=True, exist_ok=True)
    with FileLock(str(CACHE / f"{tool.name}.lock")):
        if done.exists():
            return tool.command
        shutil.rmtree(tool.prefix, ignore_errors=True)
        tool.prefix.mkdir(parents=True)
        env = {
            **os.environ,
            "npm_config_cache": str(CACHE / "npm"),
            "npm_config_update_notifier": "false",
        }
        proc = subprocess.run(
            [
                "npm",
                "install",
                "--no-audit",
                "--no-fund",
                "--no-save",
                *([] if tool.scripts else ["--ignore-scripts"]),
                "--prefix",
                str(tool.prefix),
                f"{tool.package}@{tool.version}",
            ],
            cwd=tool.prefix,
            capture_output=True,
            text=True,
            env=env,
            stdin=subprocess.DEVNULL,
            timeout=INSTALL_TIMEOUT_S,
        )
        if proc.returncode != 0 or not tool.command.exists():
            tail = (proc.stderr or proc.stdout).strip().splitlines()[-5:]
            raise Unavailable(
                f"npm install {tool.package}@{tool.version} failed: {' / '.join(tail)}"
            )
        done.write_text(tool.version + "\n", encoding="utf-8")
    return tool.command
