"""Refs read from git's ref files, for the few refs a command asks about on every call.

A `git for-each-ref` costs a process (~5 ms) for what the files backend keeps in plain files: a
loose ref is `refs/…` in the common dir holding one object name, else the ref is a line of
`packed-refs` (`<name> <ref>`, a peeled `^<name>` line after an annotated tag's). A loose ref
shadows a packed one. Anything these files may not tell as git would is git's to answer: a
repository located by `$GIT_DIR` or `$GIT_COMMON_DIR`, another ref storage (`reftable`), a
symbolic branch, a ref that is a symbolic link, a ref name git would refuse, a file that is not
one object name, a file that cannot be read.
"""

from __future__ import annotations

import os

from gitflow_harness.git.core import _cwd

# Not `typing.TYPE_CHECKING`: importing typing costs ~2 ms per hook call (mypy reads the name).
TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Sequence

    from gitflow_harness.git.core import Repo

# Set, they may place the repository's refs elsewhere than the common dir git discovery found.
_PLACES = ("GIT_DIR", "GIT_COMMON_DIR")
_HEX = frozenset("0123456789abcdef")
_NAME_LENGTHS = (40, 64)  # SHA-1, SHA-256
# What a ref name never holds (`git check-ref-format`): such a name is git's to judge.
_REFUSED = (" ", "~", "^", ":", "?", "*", "[", "\\", "\x7f", "..", "@{", "//", "/.")


class _Ask(Exception):
    """The files cannot tell this ref as git would: ask git."""


def refs_from_files(repo: Repo, names: Sequence[str]) -> dict[str, tuple[str, str]] | None:
    """{ref: (symref target or "", object name)} of those of `names` that exist, read as
    `git for-each-ref --format=%(refname)%00%(symref)%00%(objectname)` prints them; None when
    only git can tell. A symbolic ref is followed one step, and only under `refs/remotes/`
    (a remote's HEAD); one whose target does not exist is left out, as git leaves it."""
    if any(os.environ.get(name) for name in _PLACES):
        return None
    common = repo.common_dir
    try:
        if not os.path.isdir(_cwd(repo)) or _other_storage(common):
            return None  # git fails there, or reads another storage: as it always did
        packed = _Packed(common)
        found: dict[str, tuple[str, str]] = {}
        for name in names:
            value = _value(common, packed, name)
            ref = _followed(common, packed, name, value) if value else None
            if ref is not None:
                found[name] = ref
    except (_Ask, OSError, UnicodeError):
        return None
    return found


def _other_storage(common: str) -> bool:
    """True when the refs may not be in files: a `reftable` dir, or a ref storage set in the
    repository's configuration (`extensions.refStorage`)."""
    if os.path.exists(os.path.join(common, "reftable")):
        return True
    with open(os.path.join(common, "config"), "rb") as config:
        return b"refstorage" in config.read().lower()


def _followed(common: str, packed: _Packed, name: str, value: str) -> tuple[str, str] | None:
    """(symref target or "", object name) of ref `name` holding `value`: a symbolic ref is
    followed, None when its target does not exist."""
    if not value.startswith("ref: "):
        return "", value
    target = value.removeprefix("ref: ").strip()
    if not name.startswith("refs/remotes/"):
        raise _Ask
    sha = _value(common, packed, target)
    if sha is not None and sha.startswith("ref: "):
        raise _Ask  # a chain of symbolic refs
    return None if sha is None else (target, sha)


def _value(common: str, packed: _Packed, name: str) -> str | None:
    """The object name (or `ref: TARGET`) ref `name` holds, None when it does not exist."""
    if not _plain_name(name):
        raise _Ask
    path = os.path.join(common, name)
    if os.path.islink(path):
        raise _Ask  # how git once stored a symbolic ref: it still reads some of them so
    try:
        with open(path, "rb") as loose:
            text = loose.read().decode("utf-8", errors="strict").strip()
    except (FileNotFoundError, NotADirectoryError, IsADirectoryError):
        return packed.get(name)
    if text.startswith("ref: ") or _object_name(text):
        return text
    raise _Ask  # not a ref file git wrote


def _plain_name(name: str) -> bool:
    """True when `name` is a ref name git would read as a path under the common dir."""
    return (
        name.startswith("refs/")
        and not name.endswith(("/", ".", ".lock"))
        and not any(part in name for part in _REFUSED)
        and all(ord(c) >= 32 for c in name)
    )


def _object_name(text: str) -> bool:
    return len(text) in _NAME_LENGTHS and _HEX.issuperset(text)


class _Packed:
    """`packed-refs`, read when a ref is not loose, at most once."""

    __slots__ = ("_common", "_data")

    def __init__(self, common: str) -> None:
        self._common = common
        self._data: bytes | None = None

    def get(self, name: str) -> str | None:
        """The object name `packed-refs` gives ref `name`, None when it has none."""
        if self._data is None:
            try:
                with open(os.path.join(self._common, "packed-refs"), "rb") as packed:
                    data = packed.read()
            except FileNotFoundError:
                data = b""
            if data and not data.endswith(b"\n"):
                raise _Ask  # git refuses an unterminated last line
            self._data = data
        data = self._data
        # Ref names hold no space: ` REF\n` ends the one line of that ref, if there is one.
        end = data.find(b" " + name.encode() + b"\n")
        if end < 0:
            return None
        start = data.rfind(b"\n", 0, end) + 1
        text = data[start:end].decode("ascii", errors="strict")
        if not _object_name(text):
            raise _Ask
        return text
