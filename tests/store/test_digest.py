"""SHA-256 and git's blob ids without hashlib: the same digests, and hashlib where CPython's
own module is missing."""

from __future__ import annotations

import hashlib
import importlib.util
import os
import subprocess
import sys
from pathlib import Path

import pytest

from gitflow_harness.store import digest


def test_the_digest_is_hashlibs_sha256() -> None:
    for data in (b"", b"claude:abc", bytes(range(256)) * 100):
        assert digest.sha256_hex(data) == hashlib.sha256(data).hexdigest()


@pytest.mark.parametrize("seed", ["0", "1", "random"])
def test_a_name_hash_is_the_same_in_every_process(seed: str) -> None:
    """If processes hash strings with different seeds, then a name is still the same in each:
    16 hex digits, told apart by every byte."""
    code = (
        "from gitflow_harness.store.digest import name_hash; "
        "print(name_hash(b'claude:abc'), name_hash(b'claude:abd'), name_hash(b''))"
    )
    env = {**os.environ, "PYTHONHASHSEED": seed}
    run = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True)
    here = [digest.name_hash(b"claude:abc"), digest.name_hash(b"claude:abd"), digest.name_hash(b"")]
    assert run.stdout.split() == here
    assert len(set(here)) == 3
    assert all(len(name) == 16 and int(name, 16) >= 0 for name in here)


def test_a_name_hash_without_64_bit_hashes_is_sha256s(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(digest, "_WIDE", False)
    assert digest.name_hash(b"claude:abc") == hashlib.sha256(b"claude:abc").hexdigest()[:16]


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
