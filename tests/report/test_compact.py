from __future__ import annotations

from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest

from gitflow_harness.report import compact
from gitflow_harness.report.model import DetectorResult, Finding
from gitflow_harness.report.runner import Report
from gitflow_harness.store.events import ReadStats
from tests.helpers import CliRunner, commit, git
from tests.report.conftest import A, Seeder

BEHIND = ("status-branch-behind",)


@pytest.fixture
def later(repo: Path) -> Seeder:
    """Events from a minute after now on: after the branch left the trunk."""
    return Seeder(repo, datetime.now(UTC) + timedelta(minutes=1))


def comment(gfh: CliRunner) -> str:
    result = gfh("report", "--format", "markdown", "--compact")
    assert result.code == 0, result.err
    return result.out


def test_the_comment_holds_the_branchs_own_part(
    repo: Path, feature: Path, later: Seeder, gfh: CliRunner
) -> None:
    """If the log holds other branches' work too, then the comment counts only the events
    recorded on this branch since it left the trunk, and lists the requests its commits filed."""
    commit(repo, "a request filed on the trunk", {"requests/2026-11-01-old.md": "x\n"})
    commit(feature, "work", {"src.txt": "1\n"})
    commit(feature, "file a request", {"requests/2026-12-01-implementer__parser.md": "x\n"})
    for _ in range(4):
        later.verb("status", BEHIND, who=A, branch="feature/x")
    later.verb("update", who=A, branch="feature/x")  # 3 not followed, then 1 followed
    for _ in range(4):
        later.verb("status", BEHIND, who=A, branch="feature/other")
    text = comment(gfh)
    assert text.startswith("## gfh report · `feature/x`")
    assert "_2 commit(s) since it left `main` at `" in text
    assert "| `hint-follow-through` | fired | 4 |" in text
    assert "status-branch-behind ×4" in text  # feature/other's four are not counted
    assert "### Requests filed on this branch" in text
    assert "- `2026-12-01-implementer__parser`" in text
    assert "2026-11-01-old" not in text
    assert len(text) < compact.LIMIT


def test_a_branch_with_nothing_recorded_says_so(repo: Path, feature: Path, gfh: CliRunner) -> None:
    text = comment(gfh)
    assert "0 events read" in text
    assert "### Requests filed on this branch\n\nNone." in text


def test_the_trunk_may_be_the_remotes_copy(
    repo: Path, feature: Path, tmp_path: Path, gfh: CliRunner
) -> None:
    """If the trunk has no local branch (a CI checkout of the pull request), then the branch is
    compared with the remote's copy of it."""
    remote = tmp_path / "remote.git"
    git(repo, "clone", "-q", "--bare", str(repo), str(remote))
    git(repo, "remote", "add", "origin", str(remote))
    git(repo, "fetch", "-q", "origin")
    commit(feature, "work", {"src.txt": "1\n"})
    git(repo, "checkout", "-q", "--detach")
    git(feature, "branch", "-D", "main")
    assert "since it left `origin/main`" in comment(gfh)


@pytest.mark.parametrize(
    ("where", "args", "says"),
    [
        ("trunk", ("--format", "markdown", "--compact"), "this is the trunk 'main'"),
        ("detached", ("--format", "markdown", "--compact"), "HEAD is detached"),
        ("feature", ("--format", "html", "--compact"), "--compact goes with --format markdown"),
        ("feature", ("--json", "--format", "markdown", "--compact"), "--compact goes with"),
        ("feature", ("--format", "markdown", "--compact", "--repo", "."), "drop --repo"),
    ],
)
def test_compact_refuses_what_has_no_branch_to_compare(
    repo: Path, feature: Path, gfh: CliRunner, monkeypatch: pytest.MonkeyPatch,
    where: str, args: tuple[str, ...], says: str,
) -> None:  # fmt: skip
    if where == "trunk":
        monkeypatch.chdir(repo)
    elif where == "detached":
        git(feature, "checkout", "-q", "--detach")
    result = gfh("report", *args)
    assert result.code == 2
    assert says in result.err
    assert len(result.err.strip().splitlines()) == 1
    assert result.out == ""


def test_a_long_comment_is_cut_whole_findings_at_a_time() -> None:
    """If the findings would pass the comment's limit, then whole findings are left out and a
    last line says how many."""
    findings = tuple(
        Finding("d", f"subject {n}", "attention", "x" * 500, {"n": n}, "do it") for n in range(40)
    )
    report = Report((DetectorResult("d", "fired", 40, findings),), ReadStats(), None)
    part = compact.BranchPart("feature/x", "main", "a" * 40, "2026-12-01T10:00:00.000Z", 1, ())
    whole = compact.markdown(report, part, limit=10**6)
    assert whole.count("### subject") == 40
    cut = compact.markdown(report, part, limit=8000)
    assert len(cut) <= 8000
    shown = cut.count("### subject")
    assert 0 < shown < 40
    assert cut.rstrip().endswith("`gfh report --format markdown` shows them all.")
    assert f"… {40 - shown + 1} more section(s) not shown" in cut  # and the requests section
    assert whole.startswith(cut.split("\n\n… ")[0])  # what is shown is shown whole


def test_request_findings_of_other_branches_are_left_out() -> None:
    mine = Finding("learning", "request r-mine", "info", "open", {}, "review it")
    theirs = Finding("learning", "request r-theirs", "info", "open", {}, "review it")
    lesson = Finding("learning", "lesson a (b)", "good", "lower", {}, "keep it")
    report = Report(
        (DetectorResult("learning", "fired", 1, (mine, theirs, lesson)),), ReadStats(), None
    )
    part = compact.BranchPart("f", "main", "a" * 40, "2026-12-01T10:00:00.000Z", 1, ("r-mine",))
    text = compact.markdown(report, part)
    assert "request r-mine" in text
    assert "r-theirs" not in text
    assert "lesson a (b)" in text


def test_a_branch_that_never_left_the_trunk_is_refused(repo: Path, gfh: CliRunner) -> None:
    """If the branch has no commit yet, or shares no history with the trunk, then nothing says
    where it left it: one line, and no comment."""
    git(repo, "checkout", "-q", "--orphan", "island")
    result = gfh("report", "--format", "markdown", "--compact")
    assert (result.code, result.out) == (2, "")
    assert "HEAD is unborn" in result.err
    commit(repo, "a history of its own", {"other.txt": "x\n"})
    result = gfh("report", "--format", "markdown", "--compact")
    assert (result.code, result.out) == (1, "")
    assert "island shares no history with main" in result.err


def test_without_a_trunk_it_says_how_to_name_one(repo: Path, feature: Path, gfh: CliRunner) -> None:
    git(repo, "branch", "-m", "main", "trunk")
    result = gfh("report", "--format", "markdown", "--compact")
    assert (result.code, result.out) == (1, "")
    assert "cannot find the trunk" in result.err
