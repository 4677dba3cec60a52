"""The blob ids a worktree's git index proves, in real repositories and real `git worktree add`."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from gitflow_harness.store import git_index
from gitflow_harness.ways import blobs
from tests.helpers import git, make_repo, write

FILES = {
    f"hooks/ways/w{n}/w{n}.md": f"---\ndescription: way {n}\n---\nBody {n}.\n" for n in range(4)
}
HOUR = 3600 * 10**9


def _git_dir(top: Path) -> str:
    return git(top, "rev-parse", "--absolute-git-dir").strip()


def _settled_worktree(repo: Path, name: str) -> Path:
    """A new worktree of `repo` whose files are dated an hour back and whose index git
    refreshed after that, so no entry is racily clean (a checkout's last files can share the
    index file's timestamp)."""
    tree = repo.parent / name
    git(repo, "worktree", "add", "-q", "--detach", str(tree))
    for rel in FILES:
        file = tree / rel
        then = file.stat().st_mtime_ns - HOUR
        os.utime(file, ns=(then, then))
    git(tree, "update-index", "--refresh")
    return tree


def _ids(tree: Path, rels: list[str] | None = None) -> dict[str, str]:
    files = {str(tree / rel): os.stat(tree / rel) for rel in rels or FILES}
    found = blobs.blob_ids(_git_dir(tree), str(tree), files)
    return {os.path.relpath(file, tree): blob for file, blob in found.items()}


def _hash_object(tree: Path, rel: str) -> str:
    return git(tree, "hash-object", rel).strip()


@pytest.fixture
def tree(tmp_path: Path) -> Path:
    repo = make_repo(tmp_path / "repo", FILES)
    return _settled_worktree(repo, "task")


def test_a_new_worktree_gives_the_blob_id_of_every_tracked_file(tree: Path) -> None:
    ids = _ids(tree)
    assert ids == {rel: _hash_object(tree, rel) for rel in FILES}


def test_a_file_edited_after_checkout_is_not_served(tree: Path) -> None:
    """A same-size edit with its modification time put back still changed the file's change
    time: its old blob id is not served, the untouched files' still are."""
    file = tree / "hooks/ways/w1/w1.md"
    before = file.stat()
    file.write_text(file.read_text().replace("Body 1", "Body X"))
    os.utime(file, ns=(before.st_atime_ns, before.st_mtime_ns))
    assert file.stat().st_size == before.st_size
    ids = _ids(tree)
    assert "hooks/ways/w1/w1.md" not in ids
    assert set(ids) == set(FILES) - {"hooks/ways/w1/w1.md"}


def test_an_edit_right_after_the_checkout_is_not_served(tmp_path: Path) -> None:
    """Files a checkout wrote and edited at once, in the same second as the index: either the
    entry is racily clean or the stat differs, and the old blob id is never served."""
    repo = make_repo(tmp_path / "repo", FILES)
    tree = tmp_path / "task"
    git(repo, "worktree", "add", "-q", "--detach", str(tree))
    for rel in FILES:
        file = tree / rel
        file.write_text(file.read_text().replace("Body", "Edit"))
    ids = _ids(tree)
    assert ids == {}


def test_a_staged_change_is_served_its_new_blob(tree: Path) -> None:
    write(tree, "hooks/ways/w2/w2.md", "---\ndescription: staged\n---\nNew.\n")
    file = tree / "hooks/ways/w2/w2.md"
    then = file.stat().st_mtime_ns - HOUR
    os.utime(file, ns=(then, then))
    git(tree, "add", "hooks/ways/w2/w2.md")
    assert _ids(tree)["hooks/ways/w2/w2.md"] == _hash_object(tree, "hooks/ways/w2/w2.md")


def test_racily_clean_entries_are_not_served(tree: Path) -> None:
    """An entry not older than the index file may hide a change: none is served."""
    index = Path(_git_dir(tree)) / "index"
    then = min((tree / rel).stat().st_mtime_ns for rel in FILES)
    os.utime(index, ns=(then, then))
    assert _ids(tree) == {}


@pytest.mark.parametrize(
    "flag", ["--assume-unchanged", "--skip-worktree"], ids=["assumed", "skipped"]
)
def test_flagged_entries_are_not_served(tree: Path, flag: str) -> None:
    git(tree, "update-index", flag, "hooks/ways/w0/w0.md")
    assert set(_ids(tree)) == set(FILES) - {"hooks/ways/w0/w0.md"}


def test_an_intent_to_add_entry_is_skipped_and_the_others_served(tree: Path) -> None:
    """`git add -N` writes an extended entry (index version 3) with no content yet."""
    new = write(tree, "hooks/ways/new/new.md", "---\ndescription: new\n---\n")
    git(tree, "add", "-N", "hooks/ways/new/new.md")
    assert (Path(_git_dir(tree)) / "index").read_bytes()[4:8] == (3).to_bytes(4, "big")
    ids = _ids(tree, [*FILES, "hooks/ways/new/new.md"])
    assert set(ids) == set(FILES)
    assert new.exists()


@pytest.mark.parametrize(
    "args",
    [["update-index", "--index-version", "4"], ["update-index", "--split-index"]],
    ids=["version 4", "split index"],
)
def test_an_index_it_cannot_prove_from_serves_nothing(tree: Path, args: list[str]) -> None:
    git(tree, *args)
    assert _ids(tree) == {}


def test_a_sparse_index_serves_nothing(tree: Path) -> None:
    git(tree, "sparse-checkout", "set", "--cone", "--sparse-index", "hooks")
    assert b"sdir" in (Path(_git_dir(tree)) / "index").read_bytes()
    assert _ids(tree) == {}


def test_a_damaged_or_missing_index_serves_nothing(tree: Path) -> None:
    index = Path(_git_dir(tree)) / "index"
    data = bytearray(index.read_bytes())
    data[20] ^= 1  # a changed byte, as a trailer of zeros (`index.skipHash`) is: no checksum
    stamp = index.stat().st_mtime_ns
    index.write_bytes(bytes(data))
    os.utime(index, ns=(stamp, stamp))
    assert _ids(tree) == {}
    index.unlink()
    assert _ids(tree) == {}


def test_files_outside_the_worktree_are_not_looked_up(tree: Path, tmp_path: Path) -> None:
    outside = write(tmp_path, "elsewhere/hooks/ways/w0/w0.md", FILES["hooks/ways/w0/w0.md"])
    found = blobs.blob_ids(_git_dir(tree), str(tree), {str(outside): outside.stat()})
    assert found == {}


def test_only_the_files_asked_for_are_served(tree: Path) -> None:
    """Entries sharing the asked files' path prefix (w1, w3 beside w0, w2) are passed over."""
    asked = ["hooks/ways/w0/w0.md", "hooks/ways/w2/w2.md"]
    assert set(_ids(tree, asked)) == set(asked)


def test_an_index_whose_entries_run_past_its_end_serves_nothing(tree: Path) -> None:
    """A checksum that holds does not make the entry count true: entries cut short are not
    read past the end."""
    from gitflow_harness.store.digest import sha1_digest

    index = Path(_git_dir(tree)) / "index"
    stamp = index.stat().st_mtime_ns
    cut = index.read_bytes()[: git_index.HEADER + 70]
    index.write_bytes(cut + sha1_digest(cut))
    os.utime(index, ns=(stamp, stamp))
    assert _ids(tree) == {}
