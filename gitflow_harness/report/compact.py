"""`gfh report --format markdown --compact`: a branch's own part, sized for a pull-request comment.

The branch's part is what happened on it since it left the trunk: the events recorded on the
branch since the commit where it left (their episodes and verdicts), and the requests its
commits filed. The comment stays under `LIMIT` characters (GitHub's limit on a comment body),
cutting whole findings with a line that says how many were left out.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Final

from gitflow_harness import git
from gitflow_harness.errors import RepoStateError, UsageError
from gitflow_harness.report import render
from gitflow_harness.report.detectors import DetectorFactory, factories
from gitflow_harness.report.model import Detector, DetectorResult, Finding, ReportContext
from gitflow_harness.store.events import Event, format_at

if TYPE_CHECKING:
    from gitflow_harness.report.runner import Report
    from gitflow_harness.workspace import Workspace

LIMIT: Final = 65_536  # characters GitHub accepts in a comment body
VERB: Final = "gfh report --compact"


@dataclass(frozen=True, slots=True)
class BranchPart:
    """Where the branch left the trunk, and what its commits filed."""

    branch: str
    trunk: str  # the ref compared with: the local trunk, else the remote's copy
    base: str  # the commit where the branch left the trunk
    left_at: str  # that commit's time, as events write times
    commits: int  # the branch's commits since then
    requests: tuple[str, ...]  # ids of the requests its commits added

    @property
    def since(self) -> str:
        """The day the branch left the trunk: the log is read from then on."""
        return self.left_at[:10]


def branch_part(ws: Workspace) -> BranchPart:
    """Find the current branch's part: refuse on the trunk, a detached HEAD or a cut history."""
    repo = ws.repo
    head = ws.head()
    if head.branch is None or head.sha is None:
        raise UsageError(
            f"{VERB} reports a branch's part since it left the trunk, and HEAD is "
            f"{'detached' if head.sha else 'unborn'}: check out the pull request's branch "
            "(in CI: check out its head ref, with its history)"
        )
    trunk = _trunk_ref(ws)
    if head.branch == trunk:
        raise UsageError(
            f"{VERB} compares a branch with the trunk, and this is the trunk {trunk!r}: run it "
            "on the pull request's branch"
        )
    git.require_history(repo, "HEAD", trunk, VERB)
    base = git.merge_base(repo, "HEAD", trunk)
    if base is None:
        raise RepoStateError(
            f"{head.branch} shares no history with {trunk}: nothing says where it left it"
        )
    ahead = git.ahead_behind(repo, "HEAD", trunk)
    filed = git.added_between(repo, base, "HEAD", ws.config.paths.requests)
    requests = tuple(
        path.rsplit("/", 1)[-1].removesuffix(".md")
        for path in filed
        if path.endswith(".md") and not path.endswith("/README.md")
    )
    return BranchPart(
        head.branch,
        trunk,
        base,
        format_at(git.commit_time(repo, base)),
        ahead.ahead if ahead is not None else 0,
        requests,
    )


def _trunk_ref(ws: Workspace) -> str:
    """The trunk to compare with: its local branch, else `origin/<trunk>` (a CI checkout of a
    pull request often has only the remote's copy, and no `origin/HEAD`)."""
    configured = ws.config.repository.trunk
    name = git.detect_trunk(ws.repo, configured)
    for candidate in [name] if name is not None else ["main", "master"]:
        if git.branch_exists(ws.repo, candidate):
            return candidate
        if git.ref_exists(ws.repo, f"refs/remotes/origin/{candidate}"):
            return f"origin/{candidate}"
    return git.require_trunk(ws.repo, configured)  # it says how to name one


def comment(ws: Workspace, *, since: str | None = None) -> str:
    """Run every detector over the current branch's part and render it as one comment."""
    from gitflow_harness.report.runner import run_report

    part = branch_part(ws)
    since = max(since or "", part.since)
    return markdown(run_report(ws, since=since, detectors=on_branch(part)), part)


class OnBranch:
    """A detector that sees only the events recorded on one branch from a moment on."""

    def __init__(self, inner: Detector, branch: str, since: str) -> None:
        self.inner = inner
        self.id = inner.id
        self.types = getattr(inner, "types", None)
        self._branch = branch
        self._since = since

    def observe(self, event: Event) -> None:
        if event.branch == self._branch and event.at >= self._since:
            self.inner.observe(event)

    def finish(self, ctx: ReportContext) -> DetectorResult:
        return self.inner.finish(ctx)


def on_branch(part: BranchPart) -> list[DetectorFactory]:
    """Every registered detector, each fed only the branch's own events."""

    def wrap(make: DetectorFactory) -> DetectorFactory:
        return lambda ctx: OnBranch(make(ctx), part.branch, part.left_at)

    return [wrap(make) for make in factories()]


def markdown(report: Report, part: BranchPart, *, limit: int = LIMIT) -> str:
    """Render the branch's part of `report` as one pull-request comment of at most `limit`
    characters."""
    head = [
        f"## gfh report · `{render.md(part.branch)}`",
        "",
        f"_{part.commits} commit(s) since it left `{render.md(part.trunk)}` at "
        f"`{git.short(part.base)}` ({part.left_at[:16].replace('T', ' ')} UTC); "
        f"{render.md(render.read_line(report))}; of those, only the events recorded on this "
        "branch count._",
        "",
        *render.markdown_table(report.results),
    ]
    blocks = [render.markdown_finding(f) for f in _own(report.findings, part)]
    blocks.append(_requests(part))
    notes = render.markdown_notes(report.results)
    if notes:
        blocks.append(notes)
    return _fit(head, blocks, limit)


def _own(findings: Sequence[Finding], part: BranchPart) -> list[Finding]:
    """The findings of the branch's part: a request's finding only for a request it filed
    (the others are the trunk's business)."""
    filed = {f"request {r}" for r in part.requests}
    return [
        f
        for f in findings
        if not (f.detector == "learning" and f.subject.startswith("request ")) or f.subject in filed
    ]


def _requests(part: BranchPart) -> list[str]:
    out = ["", "### Requests filed on this branch", ""]
    if not part.requests:
        return [*out, "None."]
    return out + [f"- `{render.md(r)}`" for r in part.requests]


def _fit(head: list[str], blocks: list[list[str]], limit: int) -> str:
    """Join `head` and as many whole `blocks` as fit in `limit`, then a line for the rest."""
    text = "\n".join(head)
    for i, block in enumerate(blocks):
        piece = "\n" + "\n".join(block)
        rest = len(blocks) - i
        cut = (
            f"\n\n… {rest} more section(s) not shown: the comment would pass {limit:,} "
            "characters; `gfh report --format markdown` shows them all."
        )
        # Room for this block, and (if more follow) for the line that says what was cut.
        reserve = 0 if rest == 1 else len(cut) + 8
        if len(text) + len(piece) + reserve > limit:
            return (text + cut)[:limit]
        text += piece
    return text
