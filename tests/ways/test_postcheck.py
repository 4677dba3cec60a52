"""Postchecks: exit 0 requests firing; only committed content runs, through the hook too."""

from __future__ import annotations

from pathlib import Path

from gitflow_harness.ways import postcheck
from gitflow_harness.ways.postcheck import Postcheck, run_postchecks
from tests.agent import kit
from tests.helpers import CliRunner, commit, git, read_events, write

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
    commit(repo, "tracked", {"ways/edited/postcheck.sh": "exit 1\n"})
    write(repo, "ways/edited/postcheck.sh", f"touch {marker}; exit 0\n")
    write(repo, "ways/new/postcheck.sh", f"touch {marker}\n")
    write(repo, "ways/staged/postcheck.sh", f"touch {marker}\n")
    git(repo, "add", "ways/staged/postcheck.sh")
    checks = [
        Postcheck("new", "ways/new/postcheck.sh"),
        Postcheck("st", "ways/staged/postcheck.sh"),
        Postcheck("ed", "ways/edited/postcheck.sh"),
    ]
    assert _run(repo, checks, tmp_path) == [
        postcheck.UNTRACKED,
        postcheck.UNTRACKED,
        postcheck.MODIFIED,
    ]
    assert not marker.exists()


def test_an_uncommitted_edit_of_a_committed_postcheck_neither_runs_nor_fires(
    repo: Path, gfh: CliRunner, tmp_path: Path
) -> None:
    """If a committed postcheck that stays quiet is edited to ask for firing, then the hook runs
    neither the edit nor the way: only what HEAD holds runs."""
    marker = tmp_path / "MODIFIED_RAN"
    kit.way(repo, "pc", "curve: {type: Flat, suppression: 0}\n", postcheck="exit 1\n")
    script = repo / "hooks/ways/pc/postcheck.sh"
    script.write_text(f"touch {marker}; exit 0\n", encoding="utf-8")
    result = kit.hook(gfh, "claude", "PostToolUse", kit.payload("claude", "PostToolUse.Bash", repo))
    assert (result.code, result.out) == (0, "")
    assert not marker.exists()
    assert not [e for e in read_events(repo) if e["type"] == "way.fired"]
    git(repo, "commit", "-q", "-am", "the postcheck asks now")
    result = kit.hook(gfh, "claude", "PostToolUse", kit.payload("claude", "PostToolUse.Bash", repo))
    assert kit.context(result) == "Guidance of pc."
    assert marker.exists()
