"""`gitflow_harness.git.index_tree`: the tree identity built in-process, against git's own
(`git add -A` into a copy of the index, `git write-tree`) in real repositories."""

from __future__ import annotations

import os
import stat
import tempfile
import time
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from gitflow_harness import git
from gitflow_harness.git import index_tree
from tests.helpers import git as run_git
from tests.helpers import make_repo, write

# Names that test git's tree order: a folder sorts as its name and `/` ("a.b" < "a/" < "a0").
NAMES = ["a", "a.b", "a-b", "a0", "ab", "b"]
LATER = time.time_ns() + 10**18  # every file counts as settled: a verdict is kept
NOW = 0  # no file counts as settled: nothing is kept


def built(repo: Path, *, settled_before: int = LATER) -> str | None:
    r = git.discover(repo)
    return index_tree.tree_identity(r, git.changes(r), settled_before=settled_before)


def by_git(repo: Path) -> str:
    return git.tree_identity(git.discover(repo))


def same_as_git(repo: Path) -> str:
    tree = built(repo)
    assert tree is not None, "fell back to git where it need not"
    assert tree == by_git(repo)
    return tree


paths = st.lists(st.sampled_from(NAMES), min_size=1, max_size=3).map("/".join)
contents = st.binary(max_size=12) | st.sampled_from([b"", b"same\n", b"a\r\nb\r\n"])
OPS = ["keep", "modify", "chmod", "delete", "symlink", "stage", "stage-modify", "untrack", "to-dir"]


def _free(top: Path, rel: str) -> bool:
    """True when `rel` can be created as a file: nothing there, no file above it."""
    parts = rel.split("/")
    for n in range(1, len(parts)):
        above = top.joinpath(*parts[:n])
        if above.is_symlink() or above.is_file():
            return False
    target = top / rel
    return not (target.exists() or target.is_symlink())


def _put(top: Path, rel: str, data: bytes, *, executable: bool = False) -> None:
    target = top / rel
    target.parent.mkdir(parents=True, exist_ok=True)
    target.write_bytes(data)
    if executable:
        target.chmod(0o755)


@pytest.mark.slow
@settings(max_examples=60, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(
    base=st.lists(st.tuples(paths, contents, st.booleans()), min_size=1, max_size=7),
    ops=st.lists(st.tuples(st.sampled_from(OPS), contents), min_size=7, max_size=7),
    new=st.lists(st.tuples(paths, contents, st.booleans()), max_size=4),
)
def test_the_tree_built_from_the_index_is_the_one_git_writes(
    base: list[tuple[str, bytes, bool]],
    ops: list[tuple[str, bytes]],
    new: list[tuple[str, bytes, bool]],
) -> None:
    """Files, folders, executables, symlinks, deletions, staged and unstaged changes, files
    untracked, type changes (file to folder, folder to file), nested folders and names that
    sort differently as folders: every tree equals git's."""
    with tempfile.TemporaryDirectory() as parent:
        top = make_repo(Path(parent) / "repo")
        committed = []
        for rel, data, executable in base:
            if _free(top, rel):
                _put(top, rel, data, executable=executable)
                committed.append(rel)
        run_git(top, "add", "-A")
        run_git(top, "commit", "-q", "-m", "base")
        for rel, (op, data) in zip(committed, ops, strict=False):
            target = top / rel
            if op == "modify":
                target.write_bytes(data + b"+")
            elif op == "chmod":
                target.chmod(target.stat().st_mode ^ stat.S_IXUSR)
            elif op == "delete":
                target.unlink()
            elif op == "symlink":
                target.unlink()
                target.symlink_to(data.decode("latin-1").replace("\0", "") or "nowhere")
            elif op == "stage":
                target.write_bytes(data + b"staged")
                run_git(top, "add", "--", rel)
            elif op == "stage-modify":
                target.write_bytes(data + b"staged")
                run_git(top, "add", "--", rel)
                target.write_bytes(data + b"then changed")
            elif op == "untrack":
                run_git(top, "rm", "-q", "--cached", "--", rel)
            elif op == "to-dir":
                target.unlink()
                _put(top, f"{rel}/a", data)
        for rel, data, executable in new:
            if _free(top, rel):
                _put(top, rel, data, executable=executable)
        same_as_git(top)


def test_a_clean_tree_and_only_staged_changes_are_the_index_tree(repo: Path) -> None:
    assert same_as_git(repo) == run_git(repo, "rev-parse", "HEAD^{tree}").strip()
    write(repo, "staged.txt", "staged\n")
    run_git(repo, "add", "staged.txt")
    same_as_git(repo)


def test_a_folder_emptied_and_a_file_of_its_name(repo: Path) -> None:
    write(repo, "d/x", "one\n")
    write(repo, "d/sub/y", "two\n")
    run_git(repo, "add", "-A")
    run_git(repo, "commit", "-q", "-m", "d")
    (repo / "d" / "sub" / "y").unlink()
    (repo / "d" / "sub").rmdir()
    same_as_git(repo)
    (repo / "d" / "x").unlink()
    (repo / "d").rmdir()
    write(repo, "d", "a file now\n")
    same_as_git(repo)


def test_the_index_trees_are_kept_by_the_index_and_read_again_when_it_changes(
    repo: Path,
) -> None:
    write(repo, "README.md", "edited\n")
    same_as_git(repo)
    kept = repo / ".git" / "gitflow-harness" / "index-trees.marshal"
    assert kept.exists()
    write(repo, "README.md", "edited again\n")
    same_as_git(repo)
    write(repo, "new.txt", "new\n")
    run_git(repo, "add", "new.txt")  # a new index: its trees are read from it again
    write(repo, "new.txt", "changed after staging\n")
    same_as_git(repo)
    kept.write_bytes(b"damaged")
    same_as_git(repo)


def test_the_plain_verdict_is_kept_until_a_config_file_changes(repo: Path) -> None:
    write(repo, "README.md", "edited\n")
    same_as_git(repo)
    verdict = repo / ".git" / "gitflow-harness" / "tree-plain.json"
    assert verdict.exists()
    run_git(repo, "config", "core.autocrlf", "true")
    assert built(repo) is None


def test_the_plain_verdict_serves_every_worktree(
    repo: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    write(repo, "README.md", "edited\n")
    same_as_git(repo)
    linked = repo.parent / "linked"
    run_git(repo, "worktree", "add", "-q", "-b", "feature", str(linked))
    write(linked, "README.md", "edited there\n")

    def no_git(*args: object, **kwargs: object) -> None:
        raise AssertionError("asked git again")

    with monkeypatch.context() as patch:
        patch.setattr(index_tree, "run", no_git)
        assert index_tree.plain(git.discover(linked), settled_before=LATER)
    same_as_git(linked)
    run_git(repo, "config", "extensions.worktreeConfig", "true")
    assert built(linked) is None


def test_a_verdict_on_files_just_written_is_not_kept(repo: Path) -> None:
    write(repo, "README.md", "edited\n")
    assert built(repo, settled_before=NOW) == by_git(repo)
    assert not (repo / ".git" / "gitflow-harness" / "tree-plain.json").exists()


# -- each case git's result could differ in falls back to git --


def falls_back(repo: Path) -> None:
    """`built` leaves it to git; the identity (`workflow.tree_identity`) is still git's."""
    from gitflow_harness.workflow.tree_identity import tree_identity

    assert built(repo) is None
    r, head = git.discover_head(repo)
    assert tree_identity(r, head.sha if head else None, git.changes(r)) == by_git(repo)


@pytest.mark.parametrize("where", [".gitattributes", "deep/er/.gitattributes"])
def test_gitattributes_in_the_index(repo: Path, where: str) -> None:
    write(repo, where, "* text=auto\n")
    run_git(repo, "add", "-A")
    run_git(repo, "commit", "-q", "-m", "attributes")
    write(repo, "README.md", "a\r\nb\r\n")
    falls_back(repo)


def test_an_untracked_gitattributes_beside_a_changed_file(repo: Path) -> None:
    write(repo, "sub/file.txt", "one\n")
    run_git(repo, "add", "-A")
    run_git(repo, "commit", "-q", "-m", "sub")
    write(repo, "sub/.gitattributes", "*.txt text eol=crlf\n")
    write(repo, ".gitignore", ".gitattributes\n")  # even ignored, git reads it
    write(repo, "sub/file.txt", "a\r\nb\r\n")
    falls_back(repo)


def test_the_repositorys_info_attributes(repo: Path) -> None:
    write(repo, ".git/info/attributes", "* text=auto\n")
    write(repo, "README.md", "a\r\nb\r\n")
    falls_back(repo)


def test_the_global_attributes(repo: Path, hermetic: Path) -> None:
    write(hermetic, ".config/git/attributes", "* text=auto\n")
    write(repo, "README.md", "a\r\nb\r\n")
    falls_back(repo)


@pytest.mark.parametrize(
    ("key", "value"),
    [
        ("core.autocrlf", "true"),
        ("core.autocrlf", "input"),
        ("core.eol", "crlf"),
        ("core.filemode", "false"),
        ("core.symlinks", "false"),
        ("core.ignorecase", "true"),
        ("core.precomposeunicode", "true"),
        ("core.attributesFile", "~/attributes"),
        ("include.path", "~/more.gitconfig"),
        ("includeIf.onbranch:main.path", "~/more.gitconfig"),
    ],
)
def test_config_that_changes_what_git_adds(repo: Path, key: str, value: str) -> None:
    run_git(repo, "config", key, value)
    write(repo, "README.md", "a\r\nb\r\n")
    falls_back(repo)


def test_config_from_the_command_line_environment(
    repo: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    write(repo, "README.md", "a\r\nb\r\n")
    same_as_git(repo)  # a verdict kept for the environment without it
    monkeypatch.setenv("GIT_CONFIG_COUNT", "1")
    monkeypatch.setenv("GIT_CONFIG_KEY_0", "core.autocrlf")
    monkeypatch.setenv("GIT_CONFIG_VALUE_0", "true")
    falls_back(repo)


def test_a_sha256_repository(tmp_path: Path) -> None:
    top = tmp_path / "repo"
    top.mkdir()
    run_git(top, "init", "-q", "--object-format=sha256")
    write(top, "a.txt", "one\n")
    run_git(top, "add", "-A")
    run_git(top, "commit", "-q", "-m", "one")
    write(top, "a.txt", "two\n")
    falls_back(top)


def test_a_submodule_entry(repo: Path) -> None:
    head = run_git(repo, "rev-parse", "HEAD").strip()
    run_git(repo, "update-index", "--add", "--cacheinfo", f"160000,{head},sub")
    write(repo, "README.md", "edited\n")
    falls_back(repo)


def test_an_untracked_nested_repository(repo: Path) -> None:
    make_repo(repo / "nested")
    falls_back(repo)


@pytest.mark.parametrize(
    "how",
    [
        ["update-index", "--index-version", "4"],
        ["update-index", "--split-index"],
        ["update-index", "--skip-worktree", "README.md"],
        ["update-index", "--assume-unchanged", "README.md"],
        ["add", "-N", "intent.txt"],
    ],
)
def test_an_index_this_module_leaves_to_git(repo: Path, how: list[str]) -> None:
    write(repo, "intent.txt", "to be added\n")
    write(repo, "other.txt", "untracked\n")
    run_git(repo, *how)
    falls_back(repo)


def test_unmerged_entries(repo: Path) -> None:
    run_git(repo, "checkout", "-q", "-b", "side")
    write(repo, "README.md", "side\n")
    run_git(repo, "commit", "-q", "-am", "side")
    run_git(repo, "checkout", "-q", "main")
    write(repo, "README.md", "main\n")
    run_git(repo, "commit", "-q", "-am", "main")
    run_git(repo, "merge", "-q", "side", check=False)
    assert built(repo) is None


def test_another_index_file_in_the_environment(repo: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    write(repo, "README.md", "edited\n")
    monkeypatch.setenv("GIT_INDEX_FILE", os.fspath(repo / ".git" / "index"))
    assert built(repo) is None


def test_a_changed_file_that_is_neither_file_nor_symlink(repo: Path) -> None:
    (repo / "README.md").unlink()
    os.mkfifo(repo / "README.md")  # git cannot add it either
    assert built(repo) is None


def test_an_index_of_more_entries_than_pay(repo: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(index_tree, "MAX_ENTRIES", 0)
    write(repo, "README.md", "edited\n")
    falls_back(repo)


def test_the_tree_identity_of_a_plain_tree_runs_no_git_of_its_own(
    repo: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from gitflow_harness.workflow.tree_identity import tree_identity

    write(repo, "README.md", "edited\n")
    write(repo, "new/file.txt", "untracked\n")
    expected = by_git(repo)
    r, head = git.discover_head(repo)
    assert head is not None
    changes = git.changes(r)
    built(repo)  # the verdict and the index's trees, kept

    def no_git(*args: object, **kwargs: object) -> None:
        raise AssertionError("ran git")

    monkeypatch.setattr(git, "tree_identity", no_git)
    monkeypatch.setattr(index_tree, "run", no_git)
    assert tree_identity(r, head.sha, changes) == expected
