"""The modules of a one-call command, set out from one file instead of imported one by one.

A hook call imports 20 to 50 of gfh's modules, `gfh status` 47, and the import system costs
each about 250,000 instructions besides its code: the finders' search of the package's
directory, the module's spec and lock, the bytecode file's stat, read and check. For a firing
PostToolUse's 38 that is a quarter of an installed interpreter's whole start (CPython freezes the
modules of its own start for the same reason). So the process of such a command (`main.py`)
first sets out, from one file, a module for each one its earlier runs imported: a module with
what an import gives it (its spec and loader, `__file__`, `__path__`, its package's attribute)
whose code runs the first time anything looks into it, as `importlib.util.LazyLoader` has it.
(Not at the look every import statement takes at its `__spec__`, where the import system would
swallow an error of the code.) A module's code runs where it is first used, the modules it
imports with it, and a module nothing uses costs its setting out only.

The file is a cache in the state dir (`preload/`), one per command (`hook-claude-PostToolUse`,
`status`) and install (the package's directory, the interpreter's cache tag and optimization
level are in its name; the bytecode's magic number and the package's directory in it). It holds
each module's bytecode and its source file's mtime and size: a table first, then the modules'
code, each unmarshalled where it lies in the one buffer the file is read into (a copy of each,
as a tuple of bytes would make, touches as many new pages again). It is used whole or not at all:
when one source file changed, the file is another interpreter's, or it cannot be read, the
command imports as it would have. A module the file lacks (the first way that fired, the first
cold load) is imported as usual, and the file is written again with it once the command's
answer is out. Only a file this user owns and no one else can write to is read.
"""

from __future__ import annotations

import _thread
import marshal
import os
import sys

from gitflow_harness.home import name_hash, state_home

TYPE_CHECKING = False  # not `typing`'s: every hook call imports this
if TYPE_CHECKING:
    from collections.abc import Sequence
    from typing import Any

    # name, a package, source file, its mtime (ns) and size, the module's code (marshalled)
    Entry = tuple[str, bool, str, int, int, bytes | memoryview]

VERSION = 2  # 2: the table, then the code of each module
HEADER = 8  # the table's length, little-endian, before it
PACKAGE = __name__.rpartition(".")[0]
PACKAGE_DIR = os.path.dirname(os.path.abspath(__file__))
DIRECTORY = "preload"
UNWRITTEN_DAYS = 30  # a file no call wrote for this long is removed when another is written
NOFOLLOW = getattr(os, "O_NOFOLLOW", 0)  # a link in its place is no file
_SAFE = frozenset("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_-")

# The import system's own modules, loaded at every interpreter start: no import for them.
_bootstrap: Any = sys.modules["_frozen_importlib"]
_external: Any = sys.modules["_frozen_importlib_external"]
Module: Any = type(sys)

_path: str | None = None  # the file of the command started; None: none
_entries: tuple[Entry, ...] = ()  # the file's, all set out
_before: frozenset[str] = frozenset()  # the modules loaded when the command started
_unrun: dict[str, bytes | memoryview] = {}  # the code of the modules set out whose code has not run
_lock = _thread.RLock()  # over `_locks`
_locks: dict[str, Any] = {}  # a lock per module whose code runs
_running: set[str] = set()  # the modules whose code is running


def start(command: Sequence[str]) -> None:
    """Set out the modules earlier runs of `command` (the arguments that name it: `hook claude
    PostToolUse`) imported. Nothing happens for a command whose name no file could have, or
    where the interpreter has no cache tag."""
    global _path, _entries, _before
    name = "-".join(command)
    tag = sys.implementation.cache_tag
    if _path is not None or not name or not _SAFE.issuperset(name) or tag is None:
        return
    optimized = f".opt-{sys.flags.optimize}" if sys.flags.optimize else ""
    short = name_hash(PACKAGE_DIR.encode("utf-8", "surrogateescape"))[:8]
    _path = os.path.join(state_home(), DIRECTORY, f"{name}-{short}.{tag}{optimized}.marshal")
    _before = frozenset(sys.modules)
    entries = _read(_path)
    if entries is not None and _current(entries):
        _set_out(entries)
        _entries = entries


def finish() -> None:
    """Write the file again when the command imported modules of gfh it lacks. A cache: a
    write that fails is passed by (the next run imports them, and tries again)."""
    global _path, _entries
    path, _path = _path, None
    entries, _entries = _entries, ()
    if path is None:
        return
    known = _before.union(name for name, *_ in entries)
    new = []
    for name, module in list(sys.modules.items()):
        if name in known or not name.startswith(PACKAGE + "."):
            continue
        entry = _entry(name, module)
        if entry is not None:
            new.append(entry)
    if not new:
        return
    try:
        _write(path, pack((*entries, *new)))
    except (OSError, ValueError):
        pass


def pack(entries: Sequence[Entry]) -> bytes:
    """The file's bytes for `entries`: the table's length, the table (each entry with its
    code's length in place of the code), then the code of each, in the table's order."""
    table = tuple((*entry[:5], len(entry[5])) for entry in entries)
    head = marshal.dumps((VERSION, _external.MAGIC_NUMBER, PACKAGE_DIR, table))
    return b"".join((len(head).to_bytes(HEADER, "little"), head, *(e[5] for e in entries)))


def unpack(data: bytes) -> tuple[object, object, object, tuple[Entry, ...]]:
    """The version, magic number, package directory and entries of a file's bytes, each
    entry's code a view into `data`. Raises ValueError (or EOFError, TypeError) when `data`
    is not such a file."""
    view = memoryview(data)
    end = HEADER + int.from_bytes(view[:HEADER], "little")
    version, magic, package_dir, table = marshal.loads(view[HEADER:end])
    entries = []
    for name, package, origin, mtime_ns, size, length in table:
        start, end = end, end + length
        entries.append((name, package, origin, mtime_ns, size, view[start:end]))
    if end != len(view):
        raise ValueError("preload: the code does not fill the file")
    return version, magic, package_dir, tuple(entries)


def _read(path: str) -> tuple[Entry, ...] | None:
    """The entries of the file at `path`, when it is this user's alone and of this package
    and interpreter; else None."""
    try:
        fd = os.open(path, os.O_RDONLY | NOFOLLOW)
    except OSError:
        return None
    try:
        st = os.fstat(fd)
        if st.st_uid != os.geteuid() or st.st_mode & 0o022:
            return None
        with os.fdopen(fd, "rb", buffering=0) as file:
            fd = -1
            data = file.read()
        version, magic, package_dir, entries = unpack(data)
    except (OSError, EOFError, ValueError, TypeError):
        return None
    finally:
        if fd >= 0:
            os.close(fd)
    if (version, magic, package_dir) != (VERSION, _external.MAGIC_NUMBER, PACKAGE_DIR):
        return None
    return entries if isinstance(entries, tuple) else None


def _current(entries: tuple[Entry, ...]) -> bool:
    """Whether every module's source file is the one its code was read from, and none of the
    modules is loaded yet."""
    modules = sys.modules
    try:
        for name, _package, origin, mtime_ns, size, _code in entries:
            st = os.stat(origin)
            if st.st_mtime_ns != mtime_ns or st.st_size != size or name in modules:
                return False
    except (OSError, TypeError, ValueError):
        return False
    return True


def _set_out(entries: tuple[Entry, ...]) -> None:
    """Put a module of each entry in `sys.modules`, and each in its package's namespace."""
    modules = sys.modules
    for name, package, origin, _mtime, _size, code in entries:
        loader = _external.SourceFileLoader(name, origin)
        spec = _bootstrap.ModuleSpec(name, loader, origin=origin, is_package=package)
        spec.has_location = True
        module = _Unrun(name)
        module.__spec__ = spec
        module.__loader__ = loader
        module.__file__ = origin
        if package:
            module.__path__ = spec.submodule_search_locations = [os.path.dirname(origin)]
            module.__package__ = name
        else:
            module.__package__ = name.rpartition(".")[0]
        _unrun[name] = code
        modules[name] = module
    for name, *_ in entries:
        parent, _, child = name.rpartition(".")
        if parent in modules:  # as an import sets it; not a look into the package
            Module.__setattr__(modules[parent], child, modules[name])


class _Unrun(Module):  # type: ignore[misc]
    """A module set out whose code has not run: the first look into it runs it. Not the
    import system's at its `__spec__`, which every import statement takes and which would
    swallow an error of the code: the code runs where the module is first used, and an error
    is raised there."""

    def __getattribute__(self, attribute: str) -> Any:
        if attribute != "__spec__":
            _run(self)
        return Module.__getattribute__(self, attribute)


def _run(module: Any) -> None:
    """Run the code of `module` from the file, once, under a lock of its own (as the import
    system locks a module while it loads). If it fails, the source's code runs instead, as an
    import would have run it; if that fails too, the module leaves `sys.modules`, as a failed
    import's does, and the error is raised."""
    name = Module.__getattribute__(module, "__name__")
    with _lock:
        lock = _locks.get(name)
        if lock is None:
            lock = _locks[name] = _thread.RLock()
    with lock:
        # Ran by another thread meanwhile, or running in this one (a look into itself).
        if type(module) is not _Unrun or name in _running:
            return
        _running.add(name)
        namespace = Module.__getattribute__(module, "__dict__")
        set_out = dict(namespace)
        try:
            exec(marshal.loads(_unrun.pop(name)), namespace)
        except Exception:
            namespace.clear()
            namespace.update(set_out)
            try:
                exec(namespace["__loader__"].get_code(name), namespace)
            except BaseException:
                sys.modules.pop(name, None)
                raise
        finally:
            _running.discard(name)
            module.__class__ = Module  # other threads look into it without a lock from now


def _entry(name: str, module: Any) -> Entry | None:
    """The entry of a module imported from its source (or bytecode cache) by the path
    finder: its source's mtime and size are read before its code, so that an edit between
    the two leaves the entry stale, never wrong. None for any other."""
    spec: Any = getattr(module, "__spec__", None)
    loader: Any = getattr(spec, "loader", None)
    if type(loader) is not _external.SourceFileLoader or type(module) is not Module:
        return None
    try:
        st = os.stat(loader.path)
        code = loader.get_code(name)
    except (OSError, ImportError, SyntaxError):
        return None
    package = spec.submodule_search_locations is not None
    return (name, package, loader.path, st.st_mtime_ns, st.st_size, marshal.dumps(code))


def _write(path: str, data: bytes) -> None:
    """Replace the file at `path` with `data` (owner-only, in an owner-only directory below
    the state root), and remove its neighbours no run wrote for `UNWRITTEN_DAYS`."""
    import time

    from gitflow_harness.errors import GfhError
    from gitflow_harness.store.fsutil import PRIVATE_FILE, atomic_write
    from gitflow_harness.store.state import remove_unwritten, user_dir

    try:
        directory = user_dir(DIRECTORY)
    except GfhError:  # no usable state dir: nothing to keep
        return
    atomic_write(os.path.join(directory, os.path.basename(path)), data, mode=PRIVATE_FILE,
                 sync=False)  # fmt: skip
    before = time.time() - UNWRITTEN_DAYS * 86400
    remove_unwritten(DIRECTORY, lambda name: name.endswith(".marshal"), before)
