from __future__ import annotations

import json
import os
from pathlib import Path

from gitflow_harness.learning import cache


def _files(root: Path) -> dict[str, list[int]]:
    return {p.name: cache.stamp(p.stat()) for p in sorted(root.iterdir())}


def test_each_file_is_parsed_once_until_its_stamp_changes(tmp_path: Path) -> None:
    root = tmp_path / "pills"
    root.mkdir()
    (root / "a.md").write_text("one", encoding="utf-8")
    (root / "b.md").write_text("two", encoding="utf-8")
    parsed: list[str] = []

    def parse(name: str) -> str:
        parsed.append(name)
        return (root / name).read_text(encoding="utf-8").upper()

    assert cache.cached(root, "t", "1", _files(root), parse) == {"a.md": "ONE", "b.md": "TWO"}
    assert cache.cached(root, "t", "1", _files(root), parse) == {"a.md": "ONE", "b.md": "TWO"}
    assert parsed == ["a.md", "b.md"]
    (root / "b.md").write_text("three", encoding="utf-8")
    assert cache.cached(root, "t", "1", _files(root), parse)["b.md"] == "THREE"
    assert parsed == ["a.md", "b.md", "b.md"]


def test_a_gone_file_leaves_the_cache_and_another_version_is_ignored(tmp_path: Path) -> None:
    root = tmp_path / "pills"
    root.mkdir()
    (root / "a.md").write_text("one", encoding="utf-8")
    (root / "b.md").write_text("two", encoding="utf-8")
    cache.cached(root, "t", "1", _files(root), lambda name: name)
    (root / "b.md").unlink()
    cache.cached(root, "t", "1", _files(root), lambda name: name)
    stored = json.loads(Path(cache.cache_path(root, "t")).read_text(encoding="utf-8"))
    assert set(stored["entries"]) == {"a.md"}
    assert os.stat(cache.cache_path(root, "t")).st_mode & 0o077 == 0
    again = cache.cached(root, "t", "2", _files(root), lambda name: "re-" + name)
    assert again == {"a.md": "re-a.md"}


def test_a_damaged_cache_is_parsed_over(tmp_path: Path) -> None:
    root = tmp_path / "pills"
    root.mkdir()
    (root / "a.md").write_text("one", encoding="utf-8")
    path = Path(cache.cache_path(root, "t"))
    path.parent.mkdir(parents=True, exist_ok=True)
    for damage in (
        "{not json",
        '{"version": "1", "entries": []}',
        '{"version": "1", "entries": {"a.md": {"stamp": 1}}}',
    ):
        path.write_text(damage, encoding="utf-8")
        assert cache.cached(root, "t", "1", _files(root), lambda name: 7) == {"a.md": 7}


def test_markdown_stamps_lists_md_files_to_a_depth_without_following_folder_links(
    tmp_path: Path,
) -> None:
    root = tmp_path / "pills"
    for rel in ("top.md", "a/one.md", "a/b/two.md", "a/b/c/deep.md", "a/notes.txt"):
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).write_text(rel, encoding="utf-8")
    (root / "a" / "dir.md").mkdir()  # a folder, however named, is no file
    (root / "a" / "link.md").symlink_to(root / "a" / "one.md")  # a link to a file is one
    (root / "a" / "broken.md").symlink_to(root / "gone.md")
    (root / "looped").symlink_to(root / "a", target_is_directory=True)
    found = cache.markdown_stamps(root, depth=2)
    assert sorted(found) == ["a/b/two.md", "a/link.md", "a/one.md", "top.md"]
    assert found["a/link.md"] == cache.stamp((root / "a" / "one.md").stat())
    assert "a/b/c/deep.md" in cache.markdown_stamps(root, depth=3)
    assert cache.markdown_stamps(tmp_path / "missing", depth=2) == {}
