"""Helpers for the ways tests: write way files into a ways root."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

EXP = "curve: {type: Exponential, half_life: 30000}\n"


def write_way(root: Path, way_id: str, frontmatter: str, body: str = "Body text.\n") -> Path:
    """Write `<root>/<way_id>/<name>.md` with the given frontmatter lines and body."""
    directory = root / way_id
    directory.mkdir(parents=True, exist_ok=True)
    path = directory / f"{directory.name}.md"
    path.write_text(f"---\n{frontmatter}---\n{body}", encoding="utf-8")
    return path


def settle(*paths: Path) -> None:
    """Date files an hour back, so the index treats them as settled rather than racy."""
    for path in paths:
        stat = path.stat()
        os.utime(path, ns=(stat.st_atime_ns, stat.st_mtime_ns - 3600 * 10**9))


def settle_tree(root: Path) -> None:
    """Settle every file and directory under `root`, and `root` itself."""
    for dirpath, _, filenames in os.walk(root):
        settle(*(Path(dirpath) / name for name in filenames))
    for dirpath, _, _ in os.walk(root, topdown=False):
        settle(Path(dirpath))


@pytest.fixture
def ways_root(tmp_path: Path) -> Path:
    root = tmp_path / "ways"
    root.mkdir()
    return root
