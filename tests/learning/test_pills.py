from __future__ import annotations

import datetime as dt
from collections.abc import Callable
from pathlib import Path

import pytest

from gitflow_harness import git
from gitflow_harness.errors import UsageError
from gitflow_harness.learning.lint import check_pills, failing
from gitflow_harness.learning.pills import load_catalog, place_of
from gitflow_harness.store.config import default_config
from tests.learning.conftest import pill_text

TODAY = dt.date(2026, 11, 30)
PutPill = Callable[..., Path]


def problems(repo: Path, today: dt.date = TODAY) -> list[str]:
    _, found = check_pills(git.discover(repo), default_config().paths.pills, today=today)
    return [str(p) for p in found]


def errors(repo: Path, today: dt.date = TODAY) -> list[str]:
    _, found = check_pills(git.discover(repo), default_config().paths.pills, today=today)
    return [str(p) for p in failing(found)]


def test_a_well_formed_pill_has_no_problem(repo: Path, put_pill: PutPill) -> None:
    put_pill()
    assert problems(repo) == []


def test_bom_crlf_and_yaml_comments_are_tolerated(repo: Path) -> None:
    text = pill_text(occurrences="2  # seen twice").replace("---\n", "---\n# a comment\n", 1)
    path = repo / "pills" / "implementer" / "parser.md"
    path.parent.mkdir(parents=True)
    path.write_bytes(("\ufeff" + text.replace("\n", "\r\n")).encode())
    assert problems(repo) == []
    [pill] = load_catalog(repo, "pills").pills
    assert pill.occurrences == 2


@pytest.mark.parametrize(
    ("last_seen", "ok"),
    [("2026-11-30", True), ("2026-12-01", False)],
)
def test_last_seen_in_the_future_is_a_problem(
    repo: Path, put_pill: PutPill, last_seen: str, ok: bool
) -> None:
    put_pill(last_seen=last_seen)
    found = errors(repo)
    if ok:
        assert found == []
    else:
        assert found == [
            "pills/implementer/parser.md:7: error: last_seen 2026-12-01 is in the future (today "
            "is 2026-11-30): it would silence the capture detector for its roles until then; "
            "use a date up to today"
        ]


@pytest.mark.parametrize(("last_seen", "ok"), [("2026-11-01", True), ("2026-10-31", False)])
def test_last_seen_before_date_is_a_problem(
    repo: Path, put_pill: PutPill, last_seen: str, ok: bool
) -> None:
    put_pill(date="2026-11-01", last_seen=last_seen)
    found = errors(repo)
    assert (found == []) is ok
    if not ok:
        assert "last_seen 2026-10-31 is before date 2026-11-01" in found[0]


def test_a_future_date_is_a_problem(repo: Path, put_pill: PutPill) -> None:
    put_pill(date="2026-12-02", last_seen="2026-12-02")
    found = errors(repo)
    assert any("date 2026-12-02 is in the future" in p for p in found)


@pytest.mark.parametrize(
    ("value", "message"),
    [
        ("1", None),
        ("7", None),
        ("0", "occurrences: expected an integer >= 1, got 0"),
        ("-2", "occurrences: expected an integer >= 1, got -2"),
        ("'3'", "occurrences: expected an integer >= 1, got '3' (a string)"),
        ("1.5", "occurrences: expected an integer >= 1, got 1.5 (a number)"),
        ("true", "occurrences: expected an integer >= 1, got true (a boolean)"),
    ],
)
def test_occurrences_must_be_a_positive_integer(
    repo: Path, put_pill: PutPill, value: str, message: str | None
) -> None:
    put_pill(occurrences=value)
    found = errors(repo)
    if message is None:
        assert found == []
    else:
        assert found == [f"pills/implementer/parser.md:8: error: {message}"]


@pytest.mark.parametrize(
    ("key", "under", "pill_id", "ok"),
    [
        ("implementer/parser", "", "implementer-parser", True),
        ("implementer/parser", "", "implementer-lexer", False),
        ("implementer/parser", "retired", "implementer-parser", True),
        ("shared/parser", "", "shared-parser", True),
        ("shared/parser", "", "implementer-parser", False),
    ],
)
def test_id_must_match_its_place(
    repo: Path, put_pill: PutPill, key: str, under: str, pill_id: str, ok: bool
) -> None:
    status = "retired" if under else "active"
    put_pill(key, under=under, id=pill_id, status=status)
    found = errors(repo)
    assert (found == []) is ok, found
    if not ok:
        assert f"id {pill_id!r} does not match its place" in found[0]


def test_a_one_role_pill_in_another_roles_folder_is_a_problem(
    repo: Path, put_pill: PutPill
) -> None:
    put_pill("reviewer/parser", applies_to="[implementer]")
    assert errors(repo) == [
        "pills/reviewer/parser.md:3: error: it sits in reviewer's folder but applies to "
        "implementer: move it to pills/implementer/ or add 'reviewer' to applies_to"
    ]


def test_a_pill_in_its_own_roles_folder_or_shared_is_fine(repo: Path, put_pill: PutPill) -> None:
    put_pill("reviewer/parser", applies_to="[reviewer]")
    put_pill("shared/lexer", applies_to="[implementer, reviewer]")
    assert problems(repo) == []


def test_a_several_role_pill_in_one_roles_folder_gets_a_note(repo: Path, put_pill: PutPill) -> None:
    put_pill("reviewer/parser", applies_to="[reviewer, implementer]")
    assert errors(repo) == []
    assert problems(repo) == [
        "pills/reviewer/parser.md:3: note: it applies to several roles: pills/shared/ is its home"
    ]


def test_a_retired_pill_outside_retired_is_a_note(repo: Path, put_pill: PutPill) -> None:
    put_pill(status="retired")
    assert errors(repo) == []
    assert problems(repo) == [
        "pills/implementer/parser.md:5: note: retired but outside pills/retired/: "
        "`gfh pills tidy` moves it there"
    ]


def test_a_retired_pill_under_retired_has_no_note(repo: Path, put_pill: PutPill) -> None:
    put_pill(under="retired", status="retired")
    assert problems(repo) == []


def test_unknown_fields_are_errors_and_x_fields_are_free(repo: Path, put_pill: PutPill) -> None:
    put_pill(**{"x-team": "core", "owner": "me"})
    [found] = errors(repo)
    assert found.startswith("pills/implementer/parser.md:13: error: unknown field 'owner' in pill")


def test_missing_required_fields_and_bad_choices_are_errors(repo: Path, put_pill: PutPill) -> None:
    put_pill(trigger=None, severity="urgent")
    assert errors(repo) == [
        "pills/implementer/parser.md:1: error: missing required field 'trigger'",
        "pills/implementer/parser.md:4: error: severity: expected one of 'low', 'medium', "
        "'high', got 'urgent'",
    ]


@pytest.mark.parametrize("rel", ["pills/loose.md", "pills/a/b/c.md", "pills/retired/x.md"])
def test_a_file_outside_a_pills_place_is_a_problem(repo: Path, rel: str) -> None:
    target = repo / rel
    target.parent.mkdir(parents=True, exist_ok=True)
    target.write_text(pill_text(), encoding="utf-8")
    [found] = errors(repo)
    assert found.startswith(f"{rel}: error: not a pill's place")


def test_the_same_pill_active_and_retired_is_a_problem(repo: Path, put_pill: PutPill) -> None:
    put_pill()
    put_pill(under="retired", status="retired")
    [found] = errors(repo)
    assert "pill implementer/parser also exists as" in found


def test_missing_body_sections_are_a_note(repo: Path) -> None:
    path = repo / "pills" / "implementer" / "parser.md"
    path.parent.mkdir(parents=True)
    path.write_text(pill_text(body="\n## Rule\n\nx\n"), encoding="utf-8")
    assert errors(repo) == []
    assert problems(repo) == [
        "pills/implementer/parser.md:13: note: body lacks the section(s) '## What went wrong', "
        "'## Why', '## How to apply'"
    ]


def test_malformed_yaml_names_the_line(repo: Path) -> None:
    path = repo / "pills" / "implementer" / "parser.md"
    path.parent.mkdir(parents=True)
    path.write_text(pill_text(citations="[a.py"), encoding="utf-8")
    [found] = errors(repo)
    assert found.startswith("pills/implementer/parser.md:")
    assert "invalid YAML" in found


@pytest.mark.parametrize(
    ("parts", "expected"),
    [
        (("implementer", "x.md"), ("implementer", "x", False)),
        (("retired", "shared", "x.md"), ("shared", "x", True)),
        (("x.md",), None),
        (("implementer", "x.txt"), None),
        (("retired", "retired", "x.md"), None),
        ((".hidden", "x.md"), None),
    ],
)
def test_place_of(parts: tuple[str, ...], expected: tuple[str, str, bool] | None) -> None:
    place = place_of(parts)
    assert (None if place is None else (place.folder, place.slug, place.retired)) == expected


def test_find_resolves_a_path_a_key_an_id_and_a_unique_prefix(
    repo: Path, put_pill: PutPill
) -> None:
    put_pill("implementer/parser")
    put_pill("implementer/pipeline")
    put_pill("reviewer/naming", applies_to="[reviewer]")
    catalog = load_catalog(repo, "pills")
    for given in (
        "pills/implementer/parser.md",
        str(repo / "pills/implementer/parser.md"),
        "implementer/parser",
        "implementer-parser",
        "implementer/par",
    ):
        assert catalog.find(given, top=repo, cwd=repo).key == "implementer/parser", given
    assert catalog.find("nam", top=repo, cwd=repo).key == "reviewer/naming"
    with pytest.raises(UsageError, match="names several pills: implementer/parser, implementer/"):
        catalog.find("implementer/p", top=repo, cwd=repo)
    with pytest.raises(UsageError, match="no pill named 'nothing'"):
        catalog.find("nothing", top=repo, cwd=repo)


def test_a_warm_catalog_parses_nothing_and_reads_the_same(
    repo: Path, put_pill: PutPill, monkeypatch: pytest.MonkeyPatch
) -> None:
    """If `pills check` re-parsed unchanged pills, it would pay for YAML on every file."""
    from gitflow_harness.learning import pills

    put_pill(citations="[src/a.py, 'src/b.py:3']", occurrences="4")
    put_pill("shared/naming", applies_to="[implementer, reviewer]")
    put_pill("implementer/bad", occurrences="zero")
    put_pill("implementer/old", under="retired", status="retired")
    (repo / "pills" / "loose.md").write_text(pill_text(), encoding="utf-8")
    cold = load_catalog(repo, "pills")

    def no_parse(*args: object) -> None:
        raise AssertionError("parsed a pill again")

    monkeypatch.setattr(pills, "parse_pill", no_parse)
    warm = load_catalog(repo, "pills")
    assert warm == cold
    assert len(warm.pills) == 3
    assert [p.path for p in warm.problems] == ["pills/implementer/bad.md", "pills/loose.md"]


def test_a_changed_pill_is_read_again_from_its_file(repo: Path, put_pill: PutPill) -> None:
    put_pill(occurrences="1")
    assert load_catalog(repo, "pills").pills[0].occurrences == 1
    put_pill(occurrences="12", trigger="a longer trigger than before")
    [pill] = load_catalog(repo, "pills").pills
    assert (pill.occurrences, pill.trigger) == (12, "a longer trigger than before")
    put_pill(occurrences="zero", trigger="a longer trigger than before")
    catalog = load_catalog(repo, "pills")
    assert catalog.pills == ()
    assert "occurrences" in str(catalog.problems[0])


def test_the_catalog_lists_pills_folder_by_folder(repo: Path, put_pill: PutPill) -> None:
    """`a-b/` sorts after `a/` as folders do, though `-` comes before `/` as characters."""
    for key in ("rev-iewer/x", "rev/y", "rev/x-z", "rev/x"):
        put_pill(key, applies_to=f"[{key.split('/')[0]}]")
    keys = [p.key for p in load_catalog(repo, "pills").pills]
    assert keys == ["rev/x-z", "rev/x", "rev/y", "rev-iewer/x"]
