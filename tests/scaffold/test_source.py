"""Where gfh was installed from (PEP 610), as pre-commit's `repo:` and `rev:`."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from gitflow_harness.errors import UsageError
from gitflow_harness.scaffold.source import from_direct_url
from tests.helpers import git, make_repo


def test_a_git_install_pins_its_commit() -> None:
    record = {
        "url": "https://git.example.invalid/gitflow-harness.git",
        "vcs_info": {"vcs": "git", "commit_id": "c" * 40, "requested_revision": "v0.2.0"},
    }
    source, warning = from_direct_url(json.dumps(record))
    assert (source.repo, source.rev) == (record["url"], "c" * 40)
    assert warning is None


def test_a_directory_install_pins_the_directorys_head_and_warns_it_is_local(
    tmp_path: Path,
) -> None:
    checkout = make_repo(tmp_path / "gfh src")
    head = git(checkout, "rev-parse", "HEAD").strip()
    url = "file://" + str(checkout).replace(" ", "%20")
    source, warning = from_direct_url(json.dumps({"url": url, "dir_info": {"editable": True}}))
    assert (source.repo, source.rev) == (str(checkout), head)
    assert warning is not None
    assert "--hooks-repo URL --hooks-rev REV" in warning


@pytest.mark.parametrize(
    "text",
    [
        None,
        "not json",
        json.dumps({"url": "https://files.example.invalid/gfh.tar.gz", "archive_info": {}}),
        json.dumps({"url": "file:///nowhere/at/all", "dir_info": {}}),
    ],
)
def test_what_cannot_be_pinned_says_how_to_name_it(text: str | None) -> None:
    with pytest.raises(UsageError, match="--hooks-repo URL --hooks-rev REV"):
        from_direct_url(text)
