"""A real headless Chromium for the tests that look at the HTML report in a browser.

Debian's `chromium` package, at `/usr/bin/chromium`. Where it is missing and the test set-up runs
as root on Debian, it is installed with apt (non-interactive, once, under a file lock the test
workers share); where it cannot be, a test that needs it fails in CI (`CI` set) and skips
elsewhere. It runs with everything that would reach the network turned off, in a profile of
the test's own.
"""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

from filelock import FileLock

from tests.helpers import ROOT

CHROMIUM = Path("/usr/bin/chromium")
LOCK = ROOT / ".cache" / "chromium.lock"
INSTALL_TIMEOUT_S = 1800
RUN_TIMEOUT_S = 300  # a hung browser fails its test instead of hanging the worker
# Without the background-networking flags Chromium tries the network, which is closed here.
FLAGS = (
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--hide-scrollbars",
)


class Unavailable(Exception):
    """Chromium is not here and cannot be installed."""


def installed() -> Path:
    """Chromium's command; one that cannot be provisioned fails the run in CI, else skips."""
    import pytest

    try:
        return ensure()
    except Unavailable as exc:
        if os.environ.get("CI"):
            pytest.fail(f"chromium is required in CI: {exc}")
        pytest.skip(f"chromium cannot be provisioned here: {exc}")


def ensure() -> Path:
    """Install Debian's `chromium` unless it is there; return its command."""
    if CHROMIUM.exists():
        return CHROMIUM
    if not Path("/etc/debian_version").exists() or shutil.which("apt-get") is None:
        raise Unavailable(f"{CHROMIUM} is missing and this is not Debian (no apt-get)")
    if os.geteuid() != 0:
        raise Unavailable(f"{CHROMIUM} is missing; as root: apt-get install chromium")
    LOCK.parent.mkdir(parents=True, exist_ok=True)
    with FileLock(str(LOCK)):
        if CHROMIUM.exists():
            return CHROMIUM
        env = {**os.environ, "DEBIAN_FRONTEND": "noninteractive"}
        install = ["apt-get", "install", "-y", "chromium"]
        # The package lists may be stale or missing (a fresh container): refresh once.
        for command in (install, ["apt-get", "update"], install):
            done = subprocess.run(
                command, env=env, capture_output=True, text=True, timeout=INSTALL_TIMEOUT_S
            )
            if done.returncode == 0 and command is install and CHROMIUM.exists():
                return CHROMIUM
        tail = (done.stderr or done.stdout).strip().splitlines()[-1:]
        raise Unavailable(f"apt-get install chromium failed: {' '.join(tail)}")


def run(page: Path, profile: Path, *args: str) -> subprocess.CompletedProcess[str]:
    """Open `page` in headless Chromium with `args`; its console goes to stderr."""
    command = [
        str(installed()),
        *FLAGS,
        f"--user-data-dir={profile}",
        "--enable-logging=stderr",
        "--v=0",
        *args,
        page.as_uri(),
    ]
    return subprocess.run(
        command, capture_output=True, text=True, timeout=RUN_TIMEOUT_S, cwd=profile
    )


def console(stderr: str) -> list[str]:
    """The lines of Chromium's log that are messages of the page's console."""
    return [line for line in stderr.splitlines() if ":CONSOLE" in line]
