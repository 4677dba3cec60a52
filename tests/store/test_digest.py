"""SHA-256 without hashlib: the same digests, and hashlib where CPython's own module is missing."""

from __future__ import annotations

import hashlib

import pytest

from gitflow_harness.store import digest


def test_the_digest_is_hashlibs_sha256() -> None:
    for data in (b"", b"claude:abc", bytes(range(256)) * 100):
        assert digest.sha256_hex(data) == hashlib.sha256(data).hexdigest()


def test_without_the_builtin_module_hashlib_is_used(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(digest, "BUILTIN", ("_no_such_module",))
    assert digest._constructor() is hashlib.sha256
