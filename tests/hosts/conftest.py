"""Real agent hosts in the loop: the CLIs installed by the set-up, a scripted model on loopback."""

from __future__ import annotations

import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests import npm
from tests.helpers import git, make_repo
from tests.hosts.anthropic import MessagesAPI
from tests.hosts.hostenv import host_env
from tests.hosts.model import ModelServer
from tests.hosts.responses import ResponsesAPI


@pytest.fixture(scope="session")
def claude_command() -> Path:
    return npm.installed(npm.CLAUDE)


@pytest.fixture
def anthropic() -> Iterator[ModelServer]:
    with ModelServer(MessagesAPI()) as server:
        yield server


def gfh_cli(repo: Path, *args: str) -> subprocess.CompletedProcess[str]:
    """Run this interpreter's `gfh` in `repo` as a person would, outside any agent session."""
    return subprocess.run(
        [str(Path(sys.executable).parent / "gfh"), *args],
        cwd=repo,
        env=host_env(),
        capture_output=True,
        text=True,
        stdin=subprocess.DEVNULL,
        check=True,
    )


def scratch_repo(path: Path, *adapters: str, ways: tuple[str, ...] = ("--all-ways",)) -> Path:
    """A repository set up by `gfh init` for `adapters`, with what it wrote committed."""
    repo = make_repo(path)
    flags = [f for a in adapters for f in ("--adapter", a)]
    gfh_cli(repo, "init", *flags, *ways)
    git(repo, "add", "-A")
    git(repo, "commit", "-q", "-m", "gfh init")
    return repo


@pytest.fixture(scope="session")
def codex_command() -> Path:
    return npm.installed(npm.CODEX)


@pytest.fixture
def responses() -> Iterator[ModelServer]:
    with ModelServer(ResponsesAPI()) as server:
        yield server
