from __future__ import annotations

from pathlib import Path

import pytest

from gitflow_harness.errors import UsageError
from gitflow_harness.report.repos import open_repositories, repo_ref
from tests.helpers import CliRunner, git, make_repo


def test_a_repository_is_named_by_its_trunks_root_commit_in_every_clone(tmp_path: Path) -> None:
    origin = make_repo(tmp_path / "origin")
    git(origin, "commit", "-q", "--allow-empty", "-m", "second")
    git(tmp_path, "clone", "-q", str(origin), "copy")
    [a, b] = open_repositories([str(origin), str(tmp_path / "copy")])
    root = git(origin, "rev-list", "--max-parents=0", "main").strip()
    assert repo_ref(a).id == repo_ref(b).id == root
    assert repo_ref(a).to_dict() == {"name": "origin", "path": str(origin), "id": root}
    assert repo_ref(b).name == "copy"


def test_a_repository_without_a_commit_has_no_id(tmp_path: Path) -> None:
    empty = tmp_path / "empty"
    empty.mkdir()
    git(empty, "init", "-q", "-b", "main")
    [ws] = open_repositories([str(empty)])
    assert repo_ref(ws).id is None


def test_a_worktree_and_its_main_checkout_are_one_repository(tmp_path: Path) -> None:
    main = make_repo(tmp_path / "main")
    git(main, "worktree", "add", "-q", "-b", "feature/x", str(tmp_path / "wt"))
    found = open_repositories([str(tmp_path / "wt"), str(main / "."), str(tmp_path / "wt")])
    assert len(found) == 1
    assert repo_ref(found[0]).path == str(main)  # the main checkout, from the worktree too


@pytest.mark.parametrize(
    ("where", "message"),
    [
        ("missing", "--repo {p}: no such directory; give the path of a git repository"),
        ("plain", "--repo {p}: not a git repository; give its working tree or a folder in it"),
    ],
)
def test_a_path_that_is_no_repository_is_one_line_and_exit_2(
    tmp_path: Path, gfh: CliRunner, where: str, message: str
) -> None:
    (tmp_path / "plain").mkdir()
    path = str(tmp_path / where)
    with pytest.raises(UsageError, match=r"^--repo"):
        open_repositories([path])
    for command in (("report", "--repo", path), ("events", "export", "--repo", path)):
        result = gfh(*command)
        assert result.code == 2
        assert result.err == f"gfh: {message.format(p=path)}\n"
        assert result.out == ""
