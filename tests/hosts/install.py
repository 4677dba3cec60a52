"""The real agent hosts, installed at pinned versions into the project's ignored `.cache/`.

Both CLIs are npm packages whose optional dependency carries the native binary for this
platform. The install is the test set-up's own: nothing on the machine is assumed but node and
npm, and nothing is fetched but the two packages (npm's cache lives beside them, never in the
user's home). Workers of one run share an install under a file lock; a finished install is
marked, so a half-written one is never used.
"""

from __future__ import annotations

import os
import shutil
import subprocess
from dataclasses import dataclass
from pathlib import Path

from filelock import FileLock

from tests.helpers import ROOT

CACHE = ROOT / ".cache" / "hosts"
INSTALL_TIMEOUT_S = 600


@dataclass(frozen=True)
class Host:
    """One host CLI: its npm package, the version verified against, its command."""

    name: str
    package: str
    version: str

    @property
    def prefix(self) -> Path:
        return CACHE / f"{self.name}-{self.version}"

    @property
    def command(self) -> Path:
        return self.prefix / "node_modules" / ".bin" / self.name


CLAUDE = Host("claude", "@anthropic-ai/claude-code", "2.1.332")
CODEX = Host("codex", "@openai/codex", "0.171.0")


class Unavailable(Exception):
    """The host cannot be installed here (no npm, or the registry refused)."""


def ensure(host: Host) -> Path:
    """Install `host` unless a finished install is there; return its command."""
    done = host.prefix / ".installed"
    if done.exists():
        return host.command
    if shutil.which("npm") is None:
        raise Unavailable("npm is not on PATH")
    CACHE.mkdir(parents=True, exist_ok=True)
    with FileLock(str(CACHE / f"{host.name}.lock")):
        if done.exists():
            return host.command
        shutil.rmtree(host.prefix, ignore_errors=True)
        host.prefix.mkdir(parents=True)
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
                "--prefix",
                str(host.prefix),
                f"{host.package}@{host.version}",
            ],
            capture_output=True,
            text=True,
            env=env,
            stdin=subprocess.DEVNULL,
            timeout=INSTALL_TIMEOUT_S,
        )
        if proc.returncode != 0 or not host.command.exists():
            tail = (proc.stderr or proc.stdout).strip().splitlines()[-5:]
            raise Unavailable(
                f"npm install {host.package}@{host.version} failed: {' / '.join(tail)}"
            )
        done.write_text(host.version + "\n", encoding="utf-8")
    return host.command
