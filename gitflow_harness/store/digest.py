"""SHA-256 and git's blob ids for the hook path, without `hashlib`.

`import hashlib` loads OpenSSL: 5 to 30 ms on these machines. CPython's own SHA-256 and SHA-1
modules give the same digests in well under a millisecond; `hashlib` is the fallback where one
is missing. Where a hash only names a file (a session's directory, a cache, one the file's
content is checked against), `home.name_hash` names it with no shared library at all: each of
those modules is one to load, 0.2 ms and half a million instructions, on every hook call.
"""

from __future__ import annotations

import sys

TYPE_CHECKING = False  # see firing/curves.py: no `typing` import at run time
if TYPE_CHECKING:
    from collections.abc import Callable
    from typing import Any

# The modules of CPython's built-in digests: SHA-256 in `_sha2` from 3.12, `_sha256` before.
# This interpreter's first: an import that fails searches every directory of `sys.path`, and
# costs as much as the one that loads (430,000 instructions, a fifth of a millisecond).
_SHA256 = ("_sha2", "_sha256") if sys.version_info >= (3, 12) else ("_sha256", "_sha2")
BUILTIN = {"sha256": _SHA256, "sha1": ("_sha1",)}


def _loaded(algorithm: str) -> Callable[[bytes], Any]:
    """The digest's constructor, looked up on first use: each built-in module is a shared
    library to load (a few tenths of a millisecond), and most calls need one of the two."""
    function = _LOADED.get(algorithm)
    if function is None:
        function = _LOADED[algorithm] = _constructor(algorithm)
    return function


_LOADED: dict[str, Callable[[bytes], Any]] = {}


def _constructor(algorithm: str) -> Callable[[bytes], Any]:
    for name in BUILTIN[algorithm]:
        try:
            # `__import__`, not `importlib.import_module`: a top-level module's name gives the
            # module itself, and `importlib` is 2M instructions to import where the interpreter
            # has not loaded it (an installed gfh: no editable-install finder loads it).
            function: Callable[[bytes], Any] = getattr(__import__(name), algorithm)
        except (ImportError, AttributeError):
            continue
        return function
    import hashlib

    fallback: Callable[[bytes], Any] = getattr(hashlib, algorithm)
    return fallback


def sha256_hex(data: bytes) -> str:
    """Return the SHA-256 of `data` as hex digits."""
    return str(_loaded("sha256")(data).hexdigest())


def sha1_digest(data: bytes) -> bytes:
    """Return the SHA-1 of `data` (git's object ids, and its index file's checksum)."""
    return bytes(_loaded("sha1")(data).digest())


def blob_id(data: bytes) -> str:
    """Return the id git gives a file of these bytes: the SHA-1 of `blob <size>\\0` and them."""
    return blob_digest(data).hex()


def blob_digest(data: bytes) -> bytes:
    """Return `blob_id` as the 20 bytes a tree object holds."""
    return sha1_digest(b"blob %d\0" % len(data) + data)
