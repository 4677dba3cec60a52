"""SHA-256 for the hook path, without `hashlib`.

`import hashlib` loads OpenSSL: 5 to 30 ms on these machines, on every hook call that names a
session, reads a transcript position or keys a cache. CPython's own SHA-256 module gives the
same digests in well under a millisecond; `hashlib` is the fallback where it is missing.
"""

from __future__ import annotations

import importlib

TYPE_CHECKING = False  # see firing/curves.py: no `typing` import at run time
if TYPE_CHECKING:
    from collections.abc import Callable
    from typing import Any

# The module of CPython's built-in SHA-256: `_sha2` from 3.12, `_sha256` before.
BUILTIN = ("_sha2", "_sha256")


def _constructor() -> Callable[[bytes], Any]:
    for name in BUILTIN:
        try:
            function: Callable[[bytes], Any] = importlib.import_module(name).sha256
        except (ImportError, AttributeError):
            continue
        return function
    import hashlib

    return hashlib.sha256


_SHA256 = _constructor()


def sha256_hex(data: bytes) -> str:
    """Return the SHA-256 of `data` as hex digits."""
    return str(_SHA256(data).hexdigest())
