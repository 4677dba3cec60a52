"""Way scripts: only content committed at HEAD runs; in parallel, killed at the deadline, their
hand-offs bounded."""

from __future__ import annotations

import os
import time
from pathlib import Path

import pytest

from gitflow_harness.git.tree import MODIFIED, UNTRACKED, blob_id
from gitflow_harness.ways import scripts
from gitflow_harness.ways.scripts import Script, handoff_dir, prune_handoff, run_scripts
from tests.helpers import commit, git, write

PAYLOAD = b'{"hook_event_name": "PostToolUse", "tool_name": "Write"}'


def _run(repo: Path, items: list[Script], tmp_path: Path, timeout: float = 10.0) -> list[str]:
    runs = run_scripts(
        repo,
        items,
        PAYLOAD,
        timeout_s=timeout,
        session="claude:s1",
        session_directory=tmp_path / "session",
    )
    return [r.status for r in runs]


def test_only_the_blob_committed_at_head_may_run(repo: Path, tmp_path: Path) -> None:
    """If a script is new, staged, edited since its commit, or a symlink, then it never runs:
    only what HEAD holds does."""
    marker = tmp_path / "ran"
    commit(
        repo,
        "scripts",
        {"ways/ok/macro.sh": "exit 0\n", "ways/edited/macro.sh": "exit 1\n", "elsewhere.sh": ""},
    )
    os.symlink(repo / "elsewhere.sh", repo / "ways" / "link.sh")
    git(repo, "add", "ways/link.sh")
    git(repo, "commit", "-q", "-m", "a link")
    write(repo, "ways/edited/macro.sh", f"touch {marker}; exit 0\n")  # not committed
    write(repo, "ways/new/macro.sh", f"touch {marker}\n")
    write(repo, "ways/staged/macro.sh", f"touch {marker}\n")
    git(repo, "add", "ways/staged/macro.sh")
    items = [Script(w, f"ways/{w}/macro.sh") for w in ("ok", "edited", "new", "staged")] + [
        Script("link", "ways/link.sh")
    ]
    assert _run(repo, items, tmp_path) == [
        scripts.EXITED,
        MODIFIED,
        UNTRACKED,
        UNTRACKED,
        UNTRACKED,  # HEAD holds a symlink, not a file
    ]
    assert not marker.exists()


def test_a_committed_script_runs_again_once_its_edit_is_reverted(
    repo: Path, tmp_path: Path
) -> None:
    commit(repo, "script", {"ways/a/macro.sh": "exit 0\n"})
    write(repo, "ways/a/macro.sh", "exit 0 # edited\n")
    assert _run(repo, [Script("a", "ways/a/macro.sh")], tmp_path) == [MODIFIED]
    git(repo, "checkout", "--", "ways/a/macro.sh")
    assert _run(repo, [Script("a", "ways/a/macro.sh")], tmp_path) == [scripts.EXITED]


def test_a_file_replaced_by_a_symlink_to_the_same_content_does_not_run(
    repo: Path, tmp_path: Path
) -> None:
    commit(repo, "script", {"ways/a/macro.sh": "exit 0\n"})
    same = write(tmp_path, "same.sh", "exit 0\n")
    (repo / "ways/a/macro.sh").unlink()
    os.symlink(same, repo / "ways/a/macro.sh")
    assert _run(repo, [Script("a", "ways/a/macro.sh")], tmp_path) == [MODIFIED]


def test_blob_ids_are_gits_own(repo: Path) -> None:
    content = b"#!/bin/sh\necho \xff\n"
    path = repo / "x.sh"
    path.write_bytes(content)
    assert blob_id(content) == git(repo, "hash-object", "x.sh").strip()


def test_a_sleeping_script_is_killed_with_its_children(repo: Path, tmp_path: Path) -> None:
    pidfile = tmp_path / "child.pid"
    commit(repo, "slow", {"ways/slow/postcheck.sh": f"sleep 300 & echo $! > {pidfile}; wait\n"})
    items = [Script("slow", "ways/slow/postcheck.sh")]
    # The script must start its child before the timeout: on a busy machine that can take
    # longer than the first timeout, so each run that did not get that far gets twice as long.
    timeout = 0.5
    while True:
        assert _run(repo, items, tmp_path, timeout) == [scripts.TIMEOUT]
        if (pidfile.exists() and pidfile.read_text().strip()) or timeout > 60:
            break
        timeout *= 2
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


def test_scripts_run_in_parallel(repo: Path, tmp_path: Path) -> None:
    """If each script waits for the other's file, then both finish only when run together."""
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
    items = [Script("a", "ways/a/postcheck.sh"), Script("b", "ways/b/postcheck.sh")]
    runs = run_scripts(repo, items, PAYLOAD, timeout_s=10.0, session=None, session_directory=None)
    assert [(r.status, r.code) for r in runs] == [(scripts.EXITED, 0), (scripts.EXITED, 0)]


def test_output_is_read_only_when_asked_and_only_up_to_the_cap(repo: Path, tmp_path: Path) -> None:
    size = scripts.MAX_OUTPUT + 1
    commit(
        repo,
        "loud",
        {"ways/loud/macro.sh": f"yes x | head -c {size}\n", "ways/ok/macro.sh": "echo fine\n"},
    )
    items = [Script("loud", "ways/loud/macro.sh"), Script("ok", "ways/ok/macro.sh")]
    kwargs = {"timeout_s": 10.0, "session": None, "session_directory": None}
    read = run_scripts(repo, items, PAYLOAD, read_output=True, **kwargs)  # type: ignore[arg-type]
    assert [r.output for r in read] == [None, b"fine\n"]
    unread = run_scripts(repo, items, PAYLOAD, **kwargs)  # type: ignore[arg-type]
    assert [r.output for r in unread] == [None, None]


def test_the_handoff_dir_is_the_ways_own_and_is_capped(repo: Path, tmp_path: Path) -> None:
    script = (
        'test "$GFH_WAY" = noisy && test "$GFH_SESSION" = claude:s1 || exit 3\n'
        'for i in $(seq 1 100); do echo finding > "$GFH_WAY_STATE/f$i"; done\n'
    )
    commit(repo, "noisy", {"ways/noisy/postcheck.sh": script})
    runs = run_scripts(
        repo,
        [Script("noisy", "ways/noisy/postcheck.sh")],
        PAYLOAD,
        timeout_s=10.0,
        session="claude:s1",
        session_directory=tmp_path / "session",
    )
    assert runs[0].code == 0
    directory = handoff_dir(tmp_path / "session", "noisy")
    assert len(os.listdir(directory)) == scripts.HANDOFF_MAX_ENTRIES
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
    assert path.parent == tmp_path / scripts.HANDOFF
    assert "/" not in path.name


def test_a_script_runs_directly_only_when_executable_with_an_interpreter_line(
    tmp_path: Path,
) -> None:
    bare = write(tmp_path, "bare.sh", "exit 0\n")
    shebang = write(tmp_path, "shebang.sh", "#!/bin/sh\nexit 0\n")
    plain = write(tmp_path, "plain.sh", "#!/bin/sh\nexit 0\n")
    for path in (bare, shebang):
        path.chmod(0o755)
    argv = scripts.script_argv
    assert argv(bare, bare.read_bytes()) == ["sh", str(bare)]  # as a shell runs it
    assert argv(shebang, shebang.read_bytes()) == [str(shebang)]
    assert argv(plain, plain.read_bytes()) == ["sh", str(plain)]  # not executable


def _wait_for_pid(pidfile: Path) -> int:
    for _ in range(600):
        if pidfile.exists() and pidfile.read_text().strip():
            return int(pidfile.read_text())
        time.sleep(0.05)
    raise AssertionError("the script never started its child")


def _dead_soon(pid: int) -> bool:
    for _ in range(100):
        if not _alive(pid):
            return True
        time.sleep(0.05)
    return False


@pytest.mark.parametrize(
    "body",
    [
        # hangs, its child a session leader of its own
        "setsid sleep 300 & echo $! > {pidfile}; wait\n",
        # exits at once, leaving a session leader behind (orphaned to the hook process)
        "setsid sleep 300 & echo $! > {pidfile}; exit 0\n",
        # a daemon: setsid forks, its parent exits, the grandchild is orphaned
        "setsid -f sh -c 'echo $$ > {pidfile}; exec sleep 300'; sleep 300\n",
    ],
    ids=["hanging", "exited", "daemon"],
)
def test_a_child_that_made_itself_a_session_leader_is_killed_too(
    repo: Path, tmp_path: Path, body: str
) -> None:
    """If a script's child leaves the process group with `setsid`, then it is killed all the
    same, whether the script hangs or exited."""
    pidfile = tmp_path / "child.pid"
    commit(repo, "escape", {"ways/esc/postcheck.sh": body.format(pidfile=pidfile)})
    items = [Script("esc", "ways/esc/postcheck.sh")]
    # Give the script long enough to start its child; a script that exits ends the run early.
    timeout = 0.5
    while True:
        _run(repo, items, tmp_path, timeout)
        if (pidfile.exists() and pidfile.read_text().strip()) or timeout > 60:
            break
        timeout *= 2
    child = _wait_for_pid(pidfile)
    assert _dead_soon(child)


def test_scripts_given_no_time_never_start(repo: Path, tmp_path: Path) -> None:
    marker = tmp_path / "ran"
    commit(repo, "script", {"ways/a/macro.sh": f"touch {marker}\n"})
    assert _run(repo, [Script("a", "ways/a/macro.sh")], tmp_path, timeout=0) == [scripts.TIMEOUT]
    assert not marker.exists()
