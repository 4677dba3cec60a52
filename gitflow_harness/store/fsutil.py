"""Owner-only directories and files, atomic replacement and exclusive creation.

Paths are taken as `str` or `Path` and worked on with `os.path`: the hook path writes through
this module and imports no `pathlib` (it would bring `re` and `enum` with it).
"""

from __future__ import annotations

import os
import stat

from gitflow_harness.errors import GfhError

TYPE_CHECKING = False  # no `typing` import at run time (see records.py)
if TYPE_CHECKING:
    from typing import TypeAlias

    StrPath: TypeAlias = "str | os.PathLike[str]"  # what `os` functions take for a path

PRIVATE_DIR = 0o700
PRIVATE_FILE = 0o600
NOFOLLOW = getattr(os, "O_NOFOLLOW", 0)  # 0 where there is none (Windows): no symlinks to follow
CLOEXEC = getattr(os, "O_CLOEXEC", 0)
BINARY = getattr(os, "O_BINARY", 0)  # no newline translation where there is one (Windows)


class UnsafePathError(OSError):
    """A place gfh writes private data that is not what it must be: a symlink where a
    directory or file should be, or a directory others can write to."""


def ensure_private_dir(path: StrPath, *, root: StrPath | None = None) -> None:
    """Create `path` (and parents) as 0700 directories.

    `path` itself, and with `root` every directory below `root` down to it, must be a real
    directory: a symlink planted there is refused (`UnsafePathError`), never followed. What
    lies above (the user's home, `/tmp`) is taken as it is.
    """
    here = os.path.normpath(path)
    top = None if root is None else os.path.normpath(root)
    parent = _parent(here)
    inside = top is not None and _within(here, top)
    try:
        st: os.stat_result | None = os.lstat(here)
    except FileNotFoundError:
        st = None
    if st is not None:
        _require_directory(here, st)
        if inside and parent != top:
            ensure_private_dir(parent, root=top)
        return
    if inside and parent != top:
        ensure_private_dir(parent, root=top)
    elif not os.path.isdir(parent):
        _make_dirs(parent)
    try:
        os.mkdir(here, PRIVATE_DIR)
    except FileExistsError:
        _require_directory(here, os.lstat(here))
        return
    # mkdir's mode is filtered by the umask; say exactly what we mean, on the directory we
    # made (opened without following a link swapped in since).
    fd = os.open(here, os.O_RDONLY | getattr(os, "O_DIRECTORY", 0) | NOFOLLOW | CLOEXEC)
    try:
        os.fchmod(fd, PRIVATE_DIR)
    finally:
        os.close(fd)


def _parent(path: str) -> str:
    """The directory `path` is in, as `Path.parent` gives it (`.` for a bare name)."""
    return os.path.dirname(path) or os.curdir


def _within(path: str, root: str) -> bool:
    """True when `root` is one of the directories above `path` (both normalised)."""
    return path != root and path.startswith(root if root.endswith(os.sep) else root + os.sep)


def _make_dirs(path: str) -> None:
    """Create `path` and its missing parents as 0700 directories (existing ones as they are)."""
    if os.path.isdir(path):
        return
    parent = _parent(path)
    if not os.path.exists(parent):
        _make_dirs(parent)
    try:
        os.mkdir(path, PRIVATE_DIR)
    except FileExistsError:
        return
    os.chmod(path, PRIVATE_DIR)


def _require_directory(path: str, st: os.stat_result) -> None:
    if stat.S_ISLNK(st.st_mode):
        raise UnsafePathError(
            f"{path} is a symlink; gfh writes there only to a real directory: remove the link"
        )
    if not stat.S_ISDIR(st.st_mode):
        raise FileExistsError(f"{path} is not a directory")


def open_private_append(path: StrPath) -> int:
    """Open `path` for appending (and reading), creating it 0600 whatever the umask; return the fd.

    A symlink in its place is refused, never followed (`O_NOFOLLOW`), and so is anything that
    is not a regular file; the permissions are fixed on the descriptor, not the path."""
    flags = os.O_RDWR | os.O_APPEND | os.O_CREAT | NOFOLLOW | os.O_NONBLOCK | CLOEXEC
    try:
        fd = os.open(path, flags, PRIVATE_FILE)
    except OSError as exc:
        import errno  # on the way to an error only (`eventwrite._full`)

        if exc.errno == errno.ELOOP:
            raise UnsafePathError(
                f"{path} is a symlink; gfh appends only to a real file: remove the link"
            ) from None
        raise
    try:
        st = os.fstat(fd)
        if not stat.S_ISREG(st.st_mode):
            raise UnsafePathError(f"{path} is not a regular file: move it aside")
        if st.st_mode & 0o077:
            os.fchmod(fd, PRIVATE_FILE)
    except BaseException:
        os.close(fd)
        raise
    return fd


def require_private_root(path: StrPath) -> None:
    """Refuse a directory others may write to (group or world write bit): a state root whose
    entries another user could replace. Nothing is refused while it does not exist."""
    try:
        st = os.stat(path)
    except FileNotFoundError:
        return
    if st.st_mode & 0o022:
        raise UnsafePathError(
            f"{path} is writable by others (mode {stat.S_IMODE(st.st_mode):04o}); gfh keeps "
            f"private state there: `chmod go-w {path}`, or point $GFH_STATE_HOME elsewhere"
        )


class TooLarge(OSError):
    """A file past the size its reader accepts."""


def read_bytes(path: StrPath) -> bytes:
    """`Path.read_bytes` of a `str` or `Path`, for the modules that import no `pathlib`."""
    with open(path, "rb") as file:
        return file.read()


def read_bounded(path: StrPath, limit: int) -> bytes:
    """Return the bytes of `path`, or raise TooLarge when it holds more than `limit`."""
    data, _ = read_within(os.fspath(path), limit)
    if data is None:
        raise TooLarge(f"{path}: larger than {limit} bytes")
    return data


def read_within(path: str, limit: int) -> tuple[bytes | None, os.stat_result]:
    """Return the bytes of `path` (None when it holds more than `limit`) and its `fstat`;
    raise OSError when it cannot be read.

    Read by the size `fstat` gives, then to the end: asking for `limit` bytes at once would
    allocate a buffer of that size (and map and unmap it) for every file read."""
    fd = os.open(path, os.O_RDONLY | BINARY)
    try:
        st = os.fstat(fd)
        want = min(st.st_size, limit) + 1
        parts: list[bytes] = []
        total = 0
        while chunk := os.read(fd, want):
            parts.append(chunk)
            total += len(chunk)
            if total > limit:
                return None, st
            want = min(want, limit + 1 - total)
    finally:
        os.close(fd)
    return b"".join(parts), st


def atomic_write(
    path: StrPath, data: bytes | str, *, mode: int | None = None, sync: bool = True
) -> None:
    """Replace `path` with `data` atomically: a reader sees the old file or the new one.

    The new file keeps the old file's permission bits unless `mode` is given. `sync=False`
    skips flushing it to the disk first, for a cache: after a crash it may read as damaged,
    and is rebuilt.
    """
    payload = data.encode("utf-8") if isinstance(data, str) else data
    if mode is None:
        try:
            mode = os.stat(path).st_mode & 0o7777
        except FileNotFoundError:
            mode = 0o666 & ~_umask()
    tmp = _write_temp(path, payload, mode, sync=sync)
    try:
        os.replace(tmp, path)
    except BaseException:
        _unlink_quietly(tmp)
        raise


def create_exclusive(path: StrPath, data: bytes | str, *, mode: int | None = None) -> None:
    """Create `path` with `data`, failing clearly if it exists; never a half-written file.

    The content is written to a temporary file first and then hard-linked into place, so the
    name appears only with its whole content, and `link` refuses an existing name atomically.
    """
    payload = data.encode("utf-8") if isinstance(data, str) else data
    mode = 0o666 & ~_umask() if mode is None else mode
    tmp = _write_temp(path, payload, mode)
    try:
        os.link(tmp, path)
    except FileExistsError:
        raise FileExistsGfhError(path) from None
    except OSError:
        # Filesystems without hard links: fall back to O_EXCL (still never overwrites).
        _create_excl_direct(path, payload, mode)
    finally:
        _unlink_quietly(tmp)


TEMP_ATTEMPTS = 100


def _write_temp(path: StrPath, payload: bytes, mode: int, *, sync: bool = True) -> str:
    """Write `payload` to a temporary file beside `path` with `mode`, synced unless told not
    to; return its name."""
    fd, tmp = create_temp(path)
    try:
        with os.fdopen(fd, "wb") as fh:
            os.fchmod(fh.fileno(), mode)
            fh.write(payload)
            fh.flush()
            if sync:
                os.fsync(fh.fileno())
    except BaseException:
        _unlink_quietly(tmp)
        raise
    return tmp


def create_temp(path: StrPath) -> tuple[int, str]:
    """Create a new owner-only file beside `path` with a random name, as `tempfile.mkstemp`
    does: importing `tempfile` (and `random`, `hashlib`) costs a hook call several ms."""
    flags = os.O_RDWR | os.O_CREAT | os.O_EXCL | NOFOLLOW | CLOEXEC
    directory, name = os.path.split(os.fspath(path))
    for _ in range(TEMP_ATTEMPTS):
        tmp = os.path.join(directory, f".{name}.{os.urandom(6).hex()}.tmp")
        try:
            return os.open(tmp, flags, 0o600), tmp
        except FileExistsError:
            continue
    import errno

    raise FileExistsError(errno.EEXIST, "no usable temporary name", directory or os.curdir)


class FileExistsGfhError(GfhError):
    """An exclusive create found the name taken."""

    def __init__(self, path: StrPath) -> None:
        super().__init__(f"{path}: already exists; refusing to overwrite it")
        self.path = path


def _create_excl_direct(path: StrPath, payload: bytes, mode: int) -> None:
    try:
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, mode)
    except FileExistsError:
        raise FileExistsGfhError(path) from None
    with os.fdopen(fd, "wb") as fh:
        fh.write(payload)


def write_private(path: StrPath, data: bytes | str, *, sync: bool = True) -> None:
    """Atomically write an owner-only (0600) file, creating its 0700 directory."""
    ensure_private_dir(_parent(os.path.normpath(path)))
    atomic_write(path, data, mode=PRIVATE_FILE, sync=sync)


def _umask() -> int:
    # os.umask can only be read by setting it; put it straight back.
    current = os.umask(0o022)
    os.umask(current)
    return current


def _unlink_quietly(path: str) -> None:
    try:
        os.unlink(path)
    except FileNotFoundError:
        pass
