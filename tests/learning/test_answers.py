from __future__ import annotations

import datetime as dt
from collections.abc import Callable
from pathlib import Path

import pytest

from gitflow_harness import git
from gitflow_harness.errors import GfhError, UsageError
from gitflow_harness.learning import answers, graduation
from gitflow_harness.learning.pills import load_catalog
from gitflow_harness.learning.requests import load_ledger
from gitflow_harness.store.config import default_config
from gitflow_harness.store.documents import yaml_scalar
from tests.helpers import commit
from tests.helpers import git as run_git

PutPill = Callable[..., Path]
TODAY = dt.date(2026, 11, 30)
RULE = "hooks/ways/implementer/parser/parser.md"
REQUEST = "2026-11-30-implementer__parser"


@pytest.fixture
def filed(repo: Path, put_pill: PutPill) -> Path:
    """A committed pill at 3 occurrences and its committed, open request."""
    put_pill(occurrences="3")
    graduation.file_owed(git.discover(repo), default_config(), today=TODAY)
    run_git(repo, "add", "-A")
    run_git(repo, "commit", "-q", "-m", "pill and request")
    return repo / "requests" / f"{REQUEST}.md"


def answer(repo: Path, given: str = REQUEST, rule: str = RULE) -> answers.Answered:
    return answers.answer(git.discover(repo), default_config(), given, rule, cwd=repo)


def test_answer_closes_the_request_and_retires_the_pill(repo: Path, filed: Path) -> None:
    commit(repo, "rule", {RULE: "a rule\n"})
    commit(repo, "unrelated", {"other.txt": "x\n"})
    before = filed.read_bytes()
    done = answer(repo, "2026-11-30-impl")
    expected_sha = run_git(repo, "log", "-1", "--format=%h", "--", RULE).strip()
    assert done.answered_in == expected_sha
    sha = yaml_scalar(expected_sha)  # quoted only if it happens to read as a number
    added = f"occurrences: 3\nrule_in: {RULE}\nanswered_in: {sha}\n---".encode()
    assert filed.read_bytes() == before.replace(b"status: open", b"status: closed").replace(
        b"occurrences: 3\n---", added
    )
    [request] = load_ledger(repo, "requests").requests
    assert (request.status, request.rule_in) == ("closed", RULE)
    assert request.answered_in == expected_sha
    [pill] = load_catalog(repo, "pills").pills
    assert pill.rel == "pills/retired/implementer/parser.md"
    assert pill.status == "retired"
    assert not (repo / "pills/implementer/parser.md").exists()
    # Moved with git (staged); its status edit is left in the working tree beside the request's.
    assert "RM pills/implementer/parser.md -> pills/retired/implementer/parser.md" in run_git(
        repo, "status", "--porcelain"
    )


def test_answer_refuses_a_missing_rule(repo: Path, filed: Path) -> None:
    before = filed.read_bytes()
    with pytest.raises(GfhError, match="no such file; write and commit the rule first"):
        answer(repo)
    assert filed.read_bytes() == before


def test_answer_refuses_an_untracked_rule(repo: Path, filed: Path) -> None:
    (repo / "hooks/ways/implementer/parser").mkdir(parents=True)
    (repo / RULE).write_text("a rule\n")
    before = filed.read_bytes()
    with pytest.raises(GfhError, match="is not tracked by git; commit it"):
        answer(repo)
    assert filed.read_bytes() == before
    assert (repo / "pills/implementer/parser.md").exists()


def test_answer_refuses_a_staged_but_uncommitted_rule(repo: Path, filed: Path) -> None:
    (repo / "hooks/ways/implementer/parser").mkdir(parents=True)
    (repo / RULE).write_text("a rule\n")
    run_git(repo, "add", RULE)
    with pytest.raises(GfhError, match="has no commit yet"):
        answer(repo)


def test_answer_refuses_a_path_outside_the_repository(repo: Path, filed: Path) -> None:
    with pytest.raises(UsageError, match="outside the repository"):
        answer(repo, rule="../elsewhere.md")


def test_answering_twice_is_refused_clearly(repo: Path, filed: Path) -> None:
    commit(repo, "rule", {RULE: "a rule\n"})
    first = answer(repo)
    snapshot = filed.read_bytes()
    with pytest.raises(GfhError) as err:
        answer(repo)
    assert str(err.value) == (
        f"{REQUEST} is already closed: answered in {first.answered_in} by {RULE}; nothing to do "
        "(when the lesson comes back, `gfh learn --check` files a reopening)"
    )
    assert filed.read_bytes() == snapshot


def test_decline_keeps_the_pill_active_and_cannot_be_answered(repo: Path, filed: Path) -> None:
    before = filed.read_text()
    done = answers.decline(git.discover(repo), default_config(), REQUEST, " not\n a rule ")
    assert done.why == "not a rule"
    assert filed.read_text() == before.replace("status: open", "status: declined").replace(
        "occurrences: 3\n---", "occurrences: 3\ndeclined: not a rule\n---"
    )
    [pill] = load_catalog(repo, "pills").pills
    assert (pill.status, pill.rel) == ("active", "pills/implementer/parser.md")
    commit(repo, "rule", {RULE: "a rule\n"})
    with pytest.raises(GfhError, match="was declined \\(not a rule\\)"):
        answer(repo)


def test_decline_needs_a_reason(repo: Path, filed: Path) -> None:
    with pytest.raises(UsageError, match="--why"):
        answers.decline(git.discover(repo), default_config(), REQUEST, "  ")


def test_answering_a_reopening_keeps_the_pill_retired_in_place(repo: Path, filed: Path) -> None:
    commit(repo, "rule", {RULE: "a rule\n"})
    answer(repo)
    run_git(repo, "add", "-A")
    run_git(repo, "commit", "-q", "-m", "answered")
    pill_path = repo / "pills/retired/implementer/parser.md"
    pill_path.write_text(pill_path.read_text().replace("occurrences: 3", "occurrences: 4"))
    [reopening] = graduation.file_owed(git.discover(repo), default_config(), today=TODAY).filed
    run_git(repo, "add", "-A")
    run_git(repo, "commit", "-q", "-m", "reopened")
    commit(repo, "better rule", {RULE: "a better rule\n"})
    done = answer(repo, reopening.rel)
    assert done.moved is None
    assert not done.retired
    assert pill_path.exists()
    [_, closed] = sorted(load_ledger(repo, "requests").requests, key=lambda r: r.order)
    assert (closed.status, closed.reopens, closed.rule_in) == (
        "closed",
        f"{REQUEST}.md",
        RULE,
    )


def _bump(repo: Path, times: int = 1) -> None:
    from gitflow_harness.learning import edits

    for _ in range(times):
        [pill] = load_catalog(repo, "pills").pills
        edits.bump(git.discover(repo), pill, on=TODAY, today=TODAY)


def _owed(repo: Path) -> list[str]:
    filed = graduation.file_owed(git.discover(repo), default_config(), today=TODAY).filed
    return [f"{f.owed.kind}:{f.rel}" for f in filed]


def test_recurrences_while_in_review_are_not_a_relapse_once_answered(
    repo: Path, filed: Path
) -> None:
    """If the lesson recurs while its request is in review, answering records the count the rule
    was written against: nothing is owed right after, and a later recurrence is a relapse."""
    _bump(repo)  # 4, while the request is open
    commit(repo, "rule", {RULE: "a rule\n"})
    answer(repo)
    [request] = load_ledger(repo, "requests").requests
    assert request.occurrences == 4
    assert _owed(repo) == []
    _bump(repo)  # 5: the rule did not hold
    assert _owed(repo) == [f"reopening:requests/{REQUEST}-again.md"]


def test_growth_after_a_decline_counts_from_the_decision(repo: Path, filed: Path) -> None:
    """If the lesson recurred in review and the request is declined, then it is owed again only
    once it grew by graduation_at since the decline, not since the filing."""
    _bump(repo)  # 4
    answers.decline(git.discover(repo), default_config(), REQUEST, "not yet")
    [request] = load_ledger(repo, "requests").requests
    assert request.occurrences == 4
    _bump(repo, 2)  # 6: grew by 2 since the decline (by 3 since the filing)
    assert _owed(repo) == []
    _bump(repo)  # 7
    assert _owed(repo) == [f"request:requests/{REQUEST}-again.md"]


def test_a_declined_reopening_is_reopened_again_once_the_lesson_keeps_coming_back(
    repo: Path, filed: Path
) -> None:
    """answer → relapse → reopening → declined → growth by graduation_at → a new reopening that
    names the closed request and keeps its rule."""
    commit(repo, "rule", {RULE: "a rule\n"})
    answer(repo)
    _bump(repo)  # 4: a relapse
    assert _owed(repo) == [f"reopening:requests/{REQUEST}-again.md"]
    answers.decline(git.discover(repo), default_config(), f"{REQUEST}-again", "holds mostly")
    _bump(repo, 2)  # 6
    assert _owed(repo) == []
    _bump(repo)  # 7: grew by graduation_at since the declined reopening
    assert _owed(repo) == [f"reopening:requests/{REQUEST}-again-2.md"]
    latest = next(r for r in load_ledger(repo, "requests").requests if r.id.endswith("-again-2"))
    assert (latest.status, latest.reopens, latest.rule_in) == ("open", f"{REQUEST}.md", RULE)
