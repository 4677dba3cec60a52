"""`gfh demo`: the whole product, working, on a scratch repository.

The demo is a list of chapters. Each drives real git and the real `gfh` command (as a
subprocess, exactly as an agent or a hook would run it) in one scratch directory, and prints
what happened. Every capability adds its chapter, so `make demo` always shows all of it.
"""

from __future__ import annotations

import os
import shlex
import shutil
import subprocess
import sys
import tempfile
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from gitflow_harness.errors import UsageError

Echo = Callable[[str], None]


@dataclass
class Demo:
    """The scratch world a chapter works in."""

    root: Path
    echo: Echo
    env: dict[str, str] = field(default_factory=dict)

    @property
    def repo(self) -> Path:
        return self.root / "project"

    def section(self, title: str) -> None:
        self.echo("")
        self.echo(f"== {title} " + "=" * max(0, 74 - len(title)))

    def say(self, text: str) -> None:
        self.echo(text)

    def git(
        self,
        *args: str,
        cwd: Path | None = None,
        check: bool = True,
        env: dict[str, str] | None = None,
    ) -> str:
        """Run git in the scratch repository (or `cwd`) and return its stdout."""
        proc = subprocess.run(
            ["git", *args],
            cwd=cwd or self.repo,
            env={**self.env, **(env or {})},
            capture_output=True,
            text=True,
            stdin=subprocess.DEVNULL,
        )
        if check and proc.returncode != 0:
            raise UsageError(f"demo: git {' '.join(args)} failed: {proc.stderr.strip()}")
        return proc.stdout

    def gfh(
        self,
        *args: str,
        cwd: Path | None = None,
        stdin: str | None = None,
        env: dict[str, str] | None = None,
        show: bool = True,
    ) -> subprocess.CompletedProcess[str]:
        """Run the real `gfh` as a subprocess and show the command and its output.

        A shown command is printed quoted as a shell needs it, so it can be copied, and its
        stderr is merged into its stdout in the order they were written (unbuffered), as a
        terminal would show them: a failing test's traceback stays inside the gate's lines
        instead of trailing gfh's hint. Not shown, the two streams stay apart for the caller.
        """
        proc = subprocess.run(
            [sys.executable, "-m", "gitflow_harness", *args],
            cwd=cwd or self.repo,
            env={**self.env, **(env or {}), **({"PYTHONUNBUFFERED": "1"} if show else {})},
            input=stdin,
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT if show else subprocess.PIPE,
            text=True,
            stdin=None if stdin is not None else subprocess.DEVNULL,
        )
        if show:
            proc.stderr = ""
            self.echo(
                f"$ {shlex.join(['gfh', *args])}"
                + (f"   (exit {proc.returncode})" if proc.returncode else "")
            )
            text = proc.stdout.rstrip("\n")
            if text:
                self.echo(_indent(text))
        return proc

    def write(self, relpath: str, text: str, *, cwd: Path | None = None) -> Path:
        path = (cwd or self.repo) / relpath
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
        return path


Chapter = Callable[[Demo], None]


def chapters() -> list[Chapter]:
    """Return the demo's chapters in order."""
    from gitflow_harness.demo import (
        foundation,
        hooks,
        learning,
        precommit,
        ritual,
        ways,
        workflow,
    )

    return [
        foundation.run,
        workflow.run,
        ways.run,
        hooks.run,
        ritual.run,
        precommit.run,
        learning.run,
    ]


def demo_env(root: Path) -> dict[str, str]:
    """An environment that keeps the demo inside `root`, whatever the user's git config says."""
    from gitflow_harness.store.session_env import HOST_VARIABLES

    # The demo's commands name their own session: not the one of an agent running the demo.
    sessions = {"GFH_SESSION", "CLAUDE_ENV_FILE", *(name for name, _ in HOST_VARIABLES)}
    env = dict(os.environ)
    for name in list(env):
        if name.startswith("GIT_") or name in sessions:
            del env[name]
    env.update(
        {
            "GIT_CONFIG_GLOBAL": os.devnull,  # no signing, hooksPath or aliases of the user's
            "GIT_CONFIG_NOSYSTEM": "1",
            "GIT_AUTHOR_NAME": "Demo Agent",
            "GIT_AUTHOR_EMAIL": "agent@example.invalid",
            "GIT_COMMITTER_NAME": "Demo Agent",
            "GIT_COMMITTER_EMAIL": "agent@example.invalid",
            "GFH_STATE_HOME": str(root / "state"),
            "PYTHONIOENCODING": "utf-8",
            # The hooks the demo installs run `gfh` by name, as an agent's would: put the `gfh`
            # of this interpreter's environment first on PATH.
            "PATH": os.pathsep.join([os.path.dirname(sys.executable), env.get("PATH", "")]),
        }
    )
    return env


def run_demo(keep: Path | None, echo: Echo, *, only: Sequence[Chapter] | None = None) -> int:
    """Build the scratch world, run every chapter, and clean up unless `keep`."""
    if keep is not None:
        if keep.exists() and any(keep.iterdir()):
            raise UsageError(f"{keep} exists and is not empty; give --keep a new directory")
        keep.mkdir(parents=True, exist_ok=True)
        root = keep.resolve()
    else:
        root = Path(tempfile.mkdtemp(prefix="gfh-demo-"))
    demo = Demo(root=root, echo=echo, env=demo_env(root))
    try:
        for chapter in only or chapters():
            chapter(demo)
    finally:
        if keep is None:
            shutil.rmtree(root, ignore_errors=True)
    echo("")
    echo(
        f"Scratch world kept in {root}"
        if keep is not None
        else "Done; the scratch world was removed (--keep DIR keeps it)."
    )
    return 0


def _indent(text: str) -> str:
    return "\n".join(f"    {line}" for line in text.splitlines())
