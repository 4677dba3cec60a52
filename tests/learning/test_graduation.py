from __future__ import annotations

import datetime as dt
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from gitflow_harness import git
from gitflow_harness.errors import GfhError
from gitflow_harness.learning import graduation
from gitflow_harness.learning.requests import candidates, load_ledger
from gitflow_harness.store import documents
from gitflow_harness.store.config import default_config
from tests.helpers import commit
from tests.helpers import git as run_git

PutPill = Callable[..., Path]
TODAY = dt.date(2026, 11, 30)


def check(repo: Path, **kwargs: Any) -> list[graduation.Filed]:
    return graduation.file_owed(git.discover(repo), default_config(), today=TODAY, **kwargs).filed


def request_files(repo: Path) -> list[str]:
    return sorted(p.name for p in (repo / "requests").glob("*.md"))


def put_request(repo: Path, name: str, **fields: Any) -> Path:
    meta = {
        "kind": "harness-request",
        "status": "open",
        # The filing date its name begins with, as gfh files it.
        "date": name[:10] if name[:4].isdigit() else "2026-11-20",
        "core": {"gfh": "0.1.0", "ways": None},
        "target": "hooks/ways/implementer/",
        "pill": "implementer/parser",
        "occurrences": 3,
    }
    meta.update(fields)
    if meta.get("answered_in") == "HEAD":  # the commit the repository is at, as answer gives it
        meta["answered_in"] = run_git(repo, "rev-parse", "--short", "HEAD").strip()
    meta = {k: v for k, v in meta.items() if v is not None}
    path = repo / "requests" / name
    path.parent.mkdir(parents=True, exist_ok=True)
    documents.create(path, meta, "# a request\n")
    return path


def put_answered(repo: Path, name: str, rule: str, **fields: Any) -> Path:
    """Commit a rule at `rule` and put request `name` closed by it at 3 occurrences."""
    commit(repo, "rule", {rule: "rule\n"})
    closed = {"status": "closed", "rule_in": rule, "answered_in": "HEAD", "occurrences": 3}
    return put_request(repo, name, **{**closed, **fields})


def test_graduation_at_3_files_exactly_one_request_and_a_second_check_nothing(
    repo: Path, put_pill: PutPill
) -> None:
    put_pill(occurrences="3")
    put_pill("implementer/young", occurrences="2")
    [filed] = check(repo)
    assert filed.rel == "requests/2026-11-30-implementer__parser.md"
    assert filed.owed.kind == "request"
    assert request_files(repo) == ["2026-11-30-implementer__parser.md"]
    assert check(repo) == []
    assert request_files(repo) == ["2026-11-30-implementer__parser.md"]


def test_the_request_has_the_documented_fields_and_stands_alone(
    repo: Path, put_pill: PutPill
) -> None:
    commit(repo, "ways", {"hooks/ways/README.md": "ways\n"})
    pill = put_pill(occurrences="4", applies_to="[implementer]")
    check(repo, evidence=lambda due: {d.pill.key: ["- loop-backs: 2"] for d in due})
    [request] = load_ledger(repo, "requests").requests
    expected_tree = run_git(repo, "rev-parse", "--short", "HEAD:hooks/ways").strip()
    assert (request.status, request.date, request.pill, request.occurrences) == (
        "open",
        TODAY,
        "implementer/parser",
        4,
    )
    assert request.core == {"gfh": "0.1.0", "ways": expected_tree}
    assert request.target == "hooks/ways/implementer/"
    text = request.path.read_text()
    assert pill.read_text().rstrip("\n") in text  # the pill quoted whole
    assert "- occurrences: 4 (first seen 2026-11-01, last seen 2026-11-02)" in text
    assert "- loop-backs: 2" in text
    assert "gfh requests answer 2026-11-30-implementer__parser --in " in text
    assert "gfh requests decline 2026-11-30-implementer__parser --why" in text


def test_a_pill_of_several_roles_targets_the_shared_ways(repo: Path, put_pill: PutPill) -> None:
    put_pill("shared/naming", applies_to="[implementer, reviewer]", occurrences="3")
    [filed] = check(repo)
    [request] = load_ledger(repo, "requests").requests
    assert filed.rel == "requests/2026-11-30-shared__naming.md"
    assert request.target == "hooks/ways/shared/"
    assert request.core["ways"] is None  # no ways tree at HEAD


def test_an_open_request_blocks_another(repo: Path, put_pill: PutPill) -> None:
    put_pill(occurrences="9")
    put_request(repo, "2026-11-20-implementer__parser.md", occurrences=3)
    assert check(repo) == []


def test_after_a_decline_it_is_owed_again_only_once_grown_by_graduation_at(
    repo: Path, put_pill: PutPill
) -> None:
    put_request(repo, "2026-11-30-implementer__parser.md", status="declined", declined="not a rule")
    put_pill(occurrences="5")
    assert check(repo) == []
    put_pill(occurrences="6")
    [filed] = check(repo)
    assert filed.rel == "requests/2026-11-30-implementer__parser-again.md"
    assert filed.owed.after_decline is not None
    text = (repo / "requests" / "2026-11-30-implementer__parser-again.md").read_text()
    assert (
        "Asked again: 2026-11-30-implementer__parser was declined at 3 occurrences (not a rule), "
        "and the lesson recurred 3 more times since." in text
    )
    assert request_files(repo) == [
        "2026-11-30-implementer__parser-again.md",
        "2026-11-30-implementer__parser.md",
    ]


def test_an_existing_file_is_never_overwritten(
    repo: Path, put_pill: PutPill, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A name taken between looking and creating goes to the next name, never over it."""
    put_pill(occurrences="3")
    squatter = repo / "requests" / "2026-11-30-implementer__parser.md"
    real_create = documents.create

    def racing_create(path: Path, meta: dict[str, Any], body: str) -> None:
        if path == squatter and not squatter.exists():
            squatter.write_text("written by someone else\n")
        real_create(path, meta, body)

    monkeypatch.setattr(documents, "create", racing_create)
    [filed] = check(repo)
    assert filed.rel == "requests/2026-11-30-implementer__parser-again.md"
    assert squatter.read_text() == "written by someone else\n"


def test_candidates_go_again_then_count() -> None:
    names = candidates(TODAY, "shared/x")
    assert [next(names) for _ in range(4)] == [
        "2026-11-30-shared__x.md",
        "2026-11-30-shared__x-again.md",
        "2026-11-30-shared__x-again-2.md",
        "2026-11-30-shared__x-again-3.md",
    ]


def test_a_relapse_files_one_reopening_naming_the_closed_request(
    repo: Path, put_pill: PutPill
) -> None:
    put_answered(
        repo, "2026-11-10-implementer__parser.md", "hooks/ways/implementer/parser/parser.md"
    )
    put_pill(under="retired", status="retired", occurrences="3")
    assert check(repo) == []
    put_pill(under="retired", status="retired", occurrences="5")
    [filed] = check(repo)
    assert filed.owed.kind == "reopening"
    reopening = next(r for r in load_ledger(repo, "requests").requests if r.status == "open")
    assert reopening.reopens == "2026-11-10-implementer__parser.md"
    assert reopening.rule_in == "hooks/ways/implementer/parser/parser.md"
    assert reopening.occurrences == 5
    text = reopening.path.read_text()
    assert "did not hold: the lesson recurred 2 time(s) since" in text
    assert check(repo) == []


def test_no_reopening_while_the_request_is_open_or_after_a_decline(
    repo: Path, put_pill: PutPill
) -> None:
    put_pill(under="retired", status="retired", occurrences="5")
    put_request(repo, "2026-11-10-implementer__parser.md", status="open", occurrences=3)
    assert check(repo) == []
    (repo / "requests" / "2026-11-10-implementer__parser.md").unlink()
    put_request(
        repo,
        "2026-11-10-implementer__parser.md",
        status="declined",
        declined="no",
        occurrences=3,
    )
    assert check(repo) == []
    assert (
        graduation.relapses(graduation.load_catalog(repo, "pills"), load_ledger(repo, "requests"))
        == []
    )


def test_an_unreadable_request_stops_filing(repo: Path, put_pill: PutPill) -> None:
    put_pill(occurrences="3")
    bad = repo / "requests" / "2026-11-01-implementer__parser.md"
    bad.parent.mkdir()
    bad.write_text("---\nkind: [\n---\n")
    with pytest.raises(GfhError, match="nothing was filed"):
        check(repo)
    assert request_files(repo) == ["2026-11-01-implementer__parser.md"]


@pytest.mark.slow
def test_twenty_concurrent_checks_file_exactly_one_request(repo: Path, put_pill: PutPill) -> None:
    put_pill(occurrences="3")
    procs = [
        subprocess.Popen(
            [sys.executable, "-m", "gitflow_harness", "learn", "--check"],
            cwd=repo,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            stdin=subprocess.DEVNULL,
        )
        for _ in range(20)
    ]
    outs = [p.communicate()[0].decode() for p in procs]
    # Every check fails (the request is not added yet), but only one filed it.
    assert [p.returncode for p in procs] == [1] * 20
    assert sum(out.startswith("filed ") for out in outs) == 1
    assert sum("filed earlier, not added to git yet" in out for out in outs) == 19
    [name] = request_files(repo)
    assert name.endswith("-implementer__parser.md")


def test_a_relapse_is_owed_only_while_the_latest_request_is_the_closed_one(
    repo: Path, put_pill: PutPill
) -> None:
    """Like owed(): a relapse counts while the rule is the last word; an open reopening is the
    relapse's request, and a declined one is kept as a declined relapse."""
    put_answered(
        repo, "2026-11-10-implementer__parser.md", "hooks/ways/implementer/parser/parser.md"
    )
    put_pill(under="retired", status="retired", occurrences="5")

    def relapses() -> list[graduation.Relapse]:
        catalog = graduation.load_catalog(repo, "pills")
        return graduation.relapses(catalog, load_ledger(repo, "requests"))

    [relapse] = relapses()
    assert (relapse.closed.id, relapse.declined, relapse.grown) == (
        "2026-11-10-implementer__parser",
        None,
        2,
    )
    [filed] = check(repo)
    assert relapses() == []
    reopening = repo / filed.rel
    reopening.write_text(
        reopening.read_text().replace("status: open", "status: declined\ndeclined: not now")
    )
    [declined] = relapses()
    assert declined.closed.id == "2026-11-10-implementer__parser"
    assert declined.declined is not None
    assert declined.declined.id == "2026-11-30-implementer__parser"
