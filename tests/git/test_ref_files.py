"""`gitflow_harness.git.ref_files`: the refs read from git's files are the refs git reads, and
whatever the files may not tell as git would is left to git."""

from __future__ import annotations

from pathlib import Path

import pytest

from gitflow_harness import git
from gitflow_harness.git.ref_files import refs_from_files
from tests.helpers import commit, make_repo, reftable_repo
from tests.helpers import git as run_git

NAMES = ("refs/remotes/origin/HEAD", "refs/heads/main", "refs/heads/master", "refs/tags/v1")


def _as_git_reads(top: Path, names: tuple[str, ...] = NAMES) -> dict[str, tuple[str, str]]:
    out = run_git(top, "for-each-ref", "--format=%(refname)%00%(symref)%00%(objectname)", *names)
    refs: dict[str, tuple[str, str]] = {}
    for line in out.splitlines():
        name, _, rest = line.partition("\0")
        target, _, sha = rest.partition("\0")
        refs[name] = (target, sha)
    return refs


def _read(top: Path, names: tuple[str, ...] = NAMES) -> dict[str, tuple[str, str]] | None:
    return refs_from_files(git.discover(top), names)


def test_loose_packed_and_shadowed_refs_read_as_git_reads_them(repo: Path) -> None:
    assert _read(repo) == _as_git_reads(repo) != {}
    run_git(repo, "tag", "-a", "-m", "one", "v1")  # a peeled `^` line follows it once packed
    run_git(repo, "pack-refs", "--all")
    assert not (repo / ".git" / "refs" / "heads" / "main").exists()
    assert _read(repo) == _as_git_reads(repo)
    commit(repo, "moves main past its packed line", {"m.txt": "m\n"})
    assert (repo / ".git" / "refs" / "heads" / "main").exists()
    assert _read(repo) == _as_git_reads(repo)
    assert _read(repo, ("refs/heads/main",)) == {
        "refs/heads/main": ("", run_git(repo, "rev-parse", "main").strip())
    }


def test_a_remote_head_is_followed_to_its_branch(tmp_path: Path) -> None:
    make_repo(tmp_path / "origin", branch="stable")
    run_git(tmp_path, "clone", "-q", str(tmp_path / "origin"), "clone")
    clone = tmp_path / "clone"
    names = ("refs/remotes/origin/HEAD", "refs/heads/stable", "refs/remotes/origin/stable")
    read = _read(clone, names)
    assert read == _as_git_reads(clone, names)
    assert read is not None
    assert read["refs/remotes/origin/HEAD"][0] == "refs/remotes/origin/stable"
    run_git(clone, "symbolic-ref", "refs/remotes/origin/HEAD", "refs/remotes/origin/gone")
    assert _read(clone, names) == _as_git_reads(clone, names)  # a dangling one is left out
    run_git(clone, "symbolic-ref", "refs/remotes/origin/HEAD", "refs/remotes/origin/TOP")
    run_git(clone, "symbolic-ref", "refs/remotes/origin/TOP", "refs/remotes/origin/stable")
    assert _read(clone, names) is None  # a chain of symbolic refs


@pytest.mark.parametrize(
    "state",
    [
        "reftable-dir",
        "ref-storage-config",
        "symbolic-branch",
        "symlinked-ref",
        "malformed-loose",
        "malformed-packed",
        "unterminated-packed",
        "unreadable-packed",
        "git-dir-variable",
        "odd-name",
        "removed-worktree",
    ],
)
def test_what_the_files_may_not_tell_is_left_to_git(
    repo: Path, state: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    dot_git = repo / ".git"
    names = NAMES
    r = git.discover(repo)
    if state == "reftable-dir":
        (dot_git / "reftable").mkdir()
    elif state == "ref-storage-config":
        with (dot_git / "config").open("a") as config:
            config.write("[extensions]\n\trefStorage = reftable\n")
    elif state == "symbolic-branch":
        run_git(repo, "symbolic-ref", "refs/heads/master", "refs/heads/main")
    elif state == "symlinked-ref":  # how git once stored a symbolic ref, and still reads one
        (dot_git / "refs" / "heads" / "master").symlink_to("main")
    elif state == "malformed-loose":
        (dot_git / "refs" / "heads" / "master").write_text("not an object name\n")
    elif state == "malformed-packed":
        run_git(repo, "pack-refs", "--all")
        (dot_git / "packed-refs").write_text("xyz refs/heads/main\n")
    elif state == "unterminated-packed":
        run_git(repo, "pack-refs", "--all")
        packed = dot_git / "packed-refs"
        packed.write_bytes(packed.read_bytes().rstrip(b"\n"))
    elif state == "unreadable-packed":
        run_git(repo, "pack-refs", "--all")
        (dot_git / "packed-refs").unlink()
        (dot_git / "packed-refs").mkdir()
    elif state == "git-dir-variable":
        monkeypatch.setenv("GIT_DIR", str(dot_git))
    elif state == "odd-name":
        names = ("refs/heads/../../HEAD",)
    else:
        r = r._replace(top=repo / "gone")
    assert refs_from_files(r, names) is None


def test_the_trunk_of_a_reftable_repository_is_git_s(tmp_path: Path) -> None:
    top = reftable_repo(tmp_path)
    r = git.discover(top)
    assert refs_from_files(r, NAMES) is None
    main = run_git(top, "rev-parse", "main").strip()
    assert git.read_local_trunk(r, "", git.start_local_trunk(r)) == git.LocalTrunk("main", main)
