"""SHA-256 and git's blob ids without hashlib: the same digests, and hashlib where CPython's
own module is missing."""

from __future__ import annotations

import hashlib
import importlib.util
import subprocess
from pathlib import Path

import pytest

from gitflow_harness.store import digest


def test_the_digest_is_hashlibs_sha256() -> None:
    for data in (b"", b"claude:abc", bytes(range(256)) * 100):
        assert digest.sha256_hex(data) == hashlib.sha256(data).hexdigest()


def test_the_blob_id_is_the_one_git_gives_the_file(tmp_path: Path) -> None:
    for n, data in enumerate((b"", b"a way\n", bytes(range(256)) * 100)):
        file = tmp_path / f"f{n}"
        file.write_bytes(data)
        git = subprocess.run(
            ["git", "hash-object", str(file)], check=True, capture_output=True, text=True
        )
        assert digest.blob_id(data) == git.stdout.strip()


def test_the_sha1_digest_is_hashlibs() -> None:
    data = bytes(range(256)) * 10
    assert digest.sha1_digest(data) == hashlib.sha1(data).digest()


@pytest.mark.parametrize("algorithm", ["sha256", "sha1"])
def test_without_the_builtin_module_hashlib_is_used(
    monkeypatch: pytest.MonkeyPatch, algorithm: str
) -> None:
    monkeypatch.setitem(digest.BUILTIN, algorithm, ("_no_such_module",))
    assert digest._constructor(algorithm) is getattr(hashlib, algorithm)


def test_the_first_module_tried_is_this_interpreters() -> None:
    """No import that must fail (a search of every `sys.path` directory) before the one that
    loads: the first module named is the one this CPython has."""
    for algorithm, names in digest.BUILTIN.items():
        assert importlib.util.find_spec(names[0]) is not None, (algorithm, names)
