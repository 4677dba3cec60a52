"""Postchecks: only tracked scripts run, in parallel, killed at the timeout, hand-offs bounded."""

from __future__ import annotations

import os
import time
from pathlib import Path

import pytest

from gitflow_harness.agent import postcheck
from gitflow_harness.agent.postcheck import Postcheck, handoff_dir, prune_handoff, run_postchecks
from tests.helpers import commit, git, write

PAYLOAD = b'{"hook_event_name": "PostToolUse", "tool_name": "Write"}'


def _run(repo: Path, checks: list[Postcheck], tmp_path: Path, timeout: float = 10.0) -> list[str]:
    results = run_postchecks(
        repo,
        checks,
        PAYLOAD,
        timeout_s=timeout,
        session="claude:s1",
        session_directory=tmp_path / "session",
    )
    return [r.status for r in results]


def test_exit_0_requests_firing_and_the_payload_arrives_on_stdin(
    repo: Path, tmp_path: Path
) -> None:
    commit(
        repo,
        "postchecks",
        {
            "ways/yes/postcheck.sh": f"test \"$(cat)\" = '{PAYLOAD.decode()}'\n",
            "ways/no/postcheck.sh": "cat >/dev/null; exit 1\n",
        },
    )
    checks = [Postcheck("yes", "ways/yes/postcheck.sh"), Postcheck("no", "ways/no/postcheck.sh")]
    assert _run(repo, checks, tmp_path) == [postcheck.REQUESTED, postcheck.QUIET]


def test_an_untracked_or_uncommitted_postcheck_never_runs(repo: Path, tmp_path: Path) -> None:
    marker = tmp_path / "ran"
    write(repo, "ways/new/postcheck.sh", f"touch {marker}\n")
    write(repo, "ways/staged/postcheck.sh", f"touch {marker}\n")
    git(repo, "add", "ways/staged/postcheck.sh")
    checks = [
        Postcheck("new", "ways/new/postcheck.sh"),
        Postcheck("st", "ways/staged/postcheck.sh"),
    ]
    assert _run(repo, checks, tmp_path) == [postcheck.UNTRACKED, postcheck.UNTRACKED]
    assert not marker.exists()


def test_a_sleeping_postcheck_is_killed_with_its_children(repo: Path, tmp_path: Path) -> None:
    pidfile = tmp_path / "child.pid"
    commit(repo, "slow", {"ways/slow/postcheck.sh": f"sleep 300 & echo $! > {pidfile}; wait\n"})
    assert _run(repo, [Postcheck("slow", "ways/slow/postcheck.sh")], tmp_path, 0.5) == [
        postcheck.TIMEOUT
    ]
    child = int(pidfile.read_text())
    for _ in range(100):
        if not _alive(child):
            break
        time.sleep(0.05)
    assert not _alive(child)


def _alive(pid: int) -> bool:
    try:
        with open(f"/proc/{pid}/stat") as fh:
            return fh.read().split()[2] != "Z"
    except FileNotFoundError:
        return False


def test_postchecks_run_in_parallel(repo: Path, tmp_path: Path) -> None:
    """If each postcheck waits for the other's file, then both finish only when run together."""
    a, b = tmp_path / "a", tmp_path / "b"
    wait_for = (
        "i=0; while [ ! -e {f} ] && [ $i -lt 200 ]; do sleep 0.05; i=$((i+1)); done; test -e {f}"
    )
    commit(
        repo,
        "pair",
        {
            "ways/a/postcheck.sh": f"touch {a}; " + wait_for.format(f=b) + "\n",
            "ways/b/postcheck.sh": f"touch {b}; " + wait_for.format(f=a) + "\n",
        },
    )
    checks = [Postcheck("a", "ways/a/postcheck.sh"), Postcheck("b", "ways/b/postcheck.sh")]
    assert _run(repo, checks, tmp_path) == [postcheck.REQUESTED, postcheck.REQUESTED]


def test_the_handoff_dir_is_the_ways_own_and_is_capped(repo: Path, tmp_path: Path) -> None:
    script = (
        'test "$GFH_WAY" = noisy && test "$GFH_SESSION" = claude:s1 || exit 3\n'
        'for i in $(seq 1 100); do echo finding > "$GFH_WAY_STATE/f$i"; done\n'
    )
    commit(repo, "noisy", {"ways/noisy/postcheck.sh": script})
    assert _run(repo, [Postcheck("noisy", "ways/noisy/postcheck.sh")], tmp_path) == [
        postcheck.REQUESTED
    ]
    directory = handoff_dir(tmp_path / "session", "noisy")
    assert len(os.listdir(directory)) == postcheck.HANDOFF_MAX_ENTRIES
    assert oct(directory.stat().st_mode & 0o777) == "0o700"


def test_prune_drops_expired_entries_then_the_oldest_over_the_caps(tmp_path: Path) -> None:
    directory = tmp_path / "h"
    directory.mkdir()
    now = time.time()
    for i in range(10):
        path = directory / f"e{i}"
        path.write_bytes(b"x" * 100)
        os.utime(path, (now - 1000 + i, now - 1000 + i))
    old = directory / "old"
    old.mkdir()
    (old / "inner").write_text("y")
    os.utime(old, (now - 10**6, now - 10**6))
    removed = prune_handoff(directory, max_entries=5, max_bytes=450, ttl_s=3600, now=now)
    assert removed == 7
    assert sorted(os.listdir(directory)) == ["e6", "e7", "e8", "e9"]


@pytest.mark.parametrize("way", ["shared/branch-first", "../escape", "a b"])
def test_handoff_names_stay_inside_the_session(way: str, tmp_path: Path) -> None:
    path = handoff_dir(tmp_path, way)
    assert path.parent == tmp_path / postcheck.HANDOFF
    assert "/" not in path.name


def test_a_script_runs_directly_only_when_executable_with_an_interpreter_line(
    tmp_path: Path,
) -> None:
    bare = write(tmp_path, "bare.sh", "exit 0\n")
    shebang = write(tmp_path, "shebang.sh", "#!/bin/sh\nexit 0\n")
    plain = write(tmp_path, "plain.sh", "#!/bin/sh\nexit 0\n")
    for path in (bare, shebang):
        path.chmod(0o755)
    assert postcheck.script_argv(bare) == ["sh", str(bare)]  # as a shell runs it
    assert postcheck.script_argv(shebang) == [str(shebang)]
    assert postcheck.script_argv(plain) == ["sh", str(plain)]  # not executable
