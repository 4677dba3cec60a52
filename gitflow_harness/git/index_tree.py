"""The tree identity computed in this process, where it provably equals git's.

`tree.tree_identity` runs `git add -A` into a copy of the index and `git write-tree`: two
processes that each read the index and every file's metadata, about 13M instructions for a
tree of 1,000 files, on the first `gfh status` after every edit. Here the same tree is built
from the index and the changes `git status` listed just before: an entry whose file is
unchanged keeps the blob the index holds, a changed or untracked file is hashed as git hashes a
blob (`blob <size>\\0` and its bytes; a symlink's target), its mode taken from the file, and the
trees are written in git's order (a directory sorts as its name and `/`). Only the ids are
computed: no object is written, and none is read.

It answers None, and the caller asks git, wherever git could write something else:
- what changes the bytes git hashes: any gitattributes (a `.gitattributes` file in the index
  or beside a hashed path, the repository's `info/attributes`, the global or the system one,
  `core.attributesFile`), `core.autocrlf` or `core.eol` set (filters only act through
  attributes), `core.fileMode` or `core.symlinks` off, `core.ignoreCase` or
  `core.precomposeUnicode` on, an included config file, a hash other than SHA-1;
- an index this module cannot read whole (`store.git_index`: not version 2 or 3, split,
  sparse, damaged), or one with an entry that is unmerged, intent-to-add, skip-worktree or
  assumed unchanged, or a submodule;
- a change that is a directory (a nested repository), a conflict, a file that is neither a
  regular file nor a symlink, or one gone since `git status` listed it.

Whether config and attributes are plain is asked of git once per repository (`plain`) and
kept while the files they can come from and git's environment stay the same; the index's
folders, read once per index (`index_trees`), are kept under its checksum. With them, the
first `gfh status` after an edit of a tree of 1,000 files costs about 5M instructions here
instead of git's 13M and two process starts.
"""

from __future__ import annotations

import marshal
import os
import stat

from gitflow_harness import jsonio
from gitflow_harness.git.core import Repo, run, split_z
from gitflow_harness.git.tree import _read_regular
from gitflow_harness.store import git_index
from gitflow_harness.store.digest import blob_digest, sha1_digest, sha256_hex
from gitflow_harness.store.fsutil import read_bytes

TYPE_CHECKING = False  # see firing/curves.py: no `typing` import at run time
if TYPE_CHECKING:
    from collections.abc import Iterable, Sequence
    from typing import Final

    from gitflow_harness.git.tree import Change

PLAIN: Final = ("gitflow-harness", "tree-plain.json")
TREES: Final = ("gitflow-harness", "index-trees.marshal")
ATTRIBUTES: Final = b".gitattributes"
SYMLINK, FILE, EXECUTABLE = 0o120000, 0o100644, 0o100755
# Reading an index's entries costs this process about 14k instructions each (once per index:
# they are kept), git's two processes far less per file: past this many, git is asked.
MAX_ENTRIES: Final = 10_000
# An entry's mode as the index holds it (32 bits) -> as a tree writes it; any other (a
# submodule's, 160000) is left to git.
MODES: Final = {
    (FILE).to_bytes(4, "big"): b"100644 ",
    (EXECUTABLE).to_bytes(4, "big"): b"100755 ",
    (SYMLINK).to_bytes(4, "big"): b"120000 ",
}
NOT_PLAIN_FLAGS: Final = git_index.ASSUME_VALID | git_index.EXTENDED | git_index.STAGE
# What else in the environment moves the files git reads its config and attributes from.
ENVIRONMENT: Final = (
    "GIT_DIR",
    "GIT_COMMON_DIR",
    "GIT_WORK_TREE",
    "GIT_EXEC_PATH",
    "HOME",
    "XDG_CONFIG_HOME",
    "PATH",
)
TRUE: Final = ("true", "yes", "on", "1")
FALSE: Final = ("false", "no", "off", "0")
# Config whose value decides whether `git add` hashes a file's bytes as they are: key -> the
# values under which it does (None: any value, set at all, makes this module step aside).
CONFIG: Final[dict[str, tuple[str, ...] | None]] = {
    "core.autocrlf": FALSE,
    "core.eol": None,
    "core.attributesfile": None,
    "core.filemode": TRUE,
    "core.symlinks": TRUE,
    "core.ignorecase": FALSE,
    "core.precomposeunicode": FALSE,
    "extensions.objectformat": ("sha1",),
    "extensions.worktreeconfig": FALSE,  # each worktree's own config file besides
}


def tree_identity(repo: Repo, changes: Sequence[Change], *, settled_before: int) -> str | None:
    """Return the tree `git add -A` then `git write-tree` would give in a copy of the index,
    given the `changes` `git status` listed just now; None when git must be asked (see the
    module's docstring). `settled_before`: files touched since may not be remembered as
    plain (a coarse clock)."""
    if "GIT_INDEX_FILE" in os.environ:  # `git status` read another index (a commit's hook)
        return None
    edits: list[tuple[bytes, str]] = []
    for change in changes:
        if change.path.endswith("/") or change.conflicted:
            return None
        worktree = "?" if change.untracked else change.xy[1:]
        if worktree not in ("?", ".", "M", "T", "D"):
            return None
        if worktree != ".":
            edits.append((os.fsencode(change.path), worktree))
    if not plain(repo, settled_before=settled_before):
        return None
    snapshot = index_trees(repo)
    if snapshot is None:
        return None
    folders, root = snapshot
    top = os.fsencode(repo.worktree())
    touched: dict[bytes, dict[bytes, bytes]] = {}
    hashed: list[bytes] = []
    for path, worktree in edits:
        folder, _, name = path.rpartition(b"/")
        lines = _touch(touched, folders, folder)
        if worktree == "D":
            lines.pop(name, None)
            continue
        blob = _blob(os.path.join(top, path))
        if blob is None:
            return None
        lines[name] = b"%o %s\0%s" % (blob[0], name, blob[1])
        hashed.append(path)
    if _attributes_beside(top, hashed):
        return None
    return _rebuild(touched) if touched else root.hex()


def _touch(
    touched: dict[bytes, dict[bytes, bytes]], folders: dict[bytes, dict[bytes, bytes]], at: bytes
) -> dict[bytes, bytes]:
    """Return the entries of the folder `at` to change (a copy of the index's, {} for a new
    folder), and mark every folder above it changed too."""
    lines = touched.get(at)
    if lines is None:
        lines = touched[at] = dict(folders.get(at, {}))
        if at:
            _touch(touched, folders, at.rpartition(b"/")[0])
    return lines


def _rebuild(touched: dict[bytes, dict[bytes, bytes]]) -> str | None:
    """Return the root tree's id once the `touched` folders are written again, deepest first,
    each into its parent's entry (an emptied folder leaves it); None when a name is both a
    file and a folder."""
    for folder in sorted(touched, key=_deepest_first):
        lines = touched[folder]
        if folder:
            parent, _, name = folder.rpartition(b"/")
            above = touched[parent]
            if not lines:
                above.pop(name + b"/", None)
                continue
            if name in above:
                return None
            above[name + b"/"] = b"40000 %s\0%s" % (name, _tree_id(lines))
        else:
            return _tree_id(lines).hex()
    raise AssertionError("the root is always touched")  # pragma: no cover - `_touch` does


def _tree_id(lines: dict[bytes, bytes]) -> bytes:
    """The id of the tree object of these entries (sort key -> entry), in git's order: by
    name, a folder's compared as if it ended in `/` (its key does)."""
    body = b"".join([lines[key] for key in sorted(lines)])
    return sha1_digest(b"tree %d\0" % len(body) + body)


def _blob(path: bytes) -> tuple[int, bytes] | None:
    """Return the mode and id `git add` gives the file at `path`; None for anything but a
    regular file or a symlink, or a file that cannot be read."""
    try:
        st = os.lstat(path)
        if stat.S_ISLNK(st.st_mode):
            content, mode = os.readlink(path), SYMLINK
        elif stat.S_ISREG(st.st_mode):
            read = _read_regular(path)  # never through a symlink, nor blocked by a FIFO
            if read is None:
                return None
            content, mode = read, EXECUTABLE if st.st_mode & stat.S_IXUSR else FILE
        else:
            return None
    except OSError:
        return None
    return mode, blob_digest(content)


def _attributes_beside(top: bytes, paths: Iterable[bytes]) -> bool:
    """True when a `.gitattributes` file is in the working tree's folder of any of `paths`
    or above it: git reads them from the files, tracked or not."""
    folders = {b""}
    for path in paths:
        cut = path.rfind(b"/")
        while cut > 0:
            folder = path[:cut]
            if folder in folders:
                break
            folders.add(folder)
            cut = folder.rfind(b"/")
    return any(os.path.lexists(os.path.join(top, folder, ATTRIBUTES)) for folder in folders)


# -- the index's trees, kept by the index's checksum --


def index_trees(repo: Repo) -> tuple[dict[bytes, dict[bytes, bytes]], bytes] | None:
    """Return the index's folders (folder -> sort key -> tree entry, `_tree_id`'s order; the
    root is b"") and the root's tree id; None when the index holds what this module leaves
    to git (see the module's docstring).

    Reading every entry of a large index in Python costs more than git's two processes: the
    result is kept beside it under the index's own checksum (its last 20 bytes), which
    changes with every byte of it, and an edit changes none (only `git add`, a commit, a
    checkout or git's refreshing of stat data rewrite the index).
    """
    index = os.path.join(repo.git_dir, "index")
    kept = os.path.join(repo.git_dir, *TREES)
    checksum = _checksum(index)
    if checksum is None:
        return None
    try:
        known = marshal.loads(read_bytes(kept))
        if isinstance(known, tuple) and len(known) == 2 and known[0] == checksum:
            snapshot = known[1]
            if snapshot is None or (
                isinstance(snapshot, tuple)
                and len(snapshot) == 2
                and isinstance(snapshot[0], dict)
                and isinstance(snapshot[1], bytes)
            ):
                return snapshot
    except (OSError, ValueError, EOFError, TypeError):
        pass
    data, _ = git_index.read(index)
    snapshot = _read_trees(data) if data is not None else None
    if data is not None:
        from gitflow_harness.store.fsutil import write_private

        try:
            write_private(kept, marshal.dumps((data[-git_index.HASH :], snapshot)), sync=False)
        except OSError:
            pass
    return snapshot


def _checksum(index: str) -> bytes | None:
    """The last 20 bytes of the index file (its SHA-1, where `git_index.read` finds it right)."""
    try:
        with open(index, "rb") as file:
            file.seek(-git_index.HASH, os.SEEK_END)
            return file.read()
    except OSError:
        return None


def _read_trees(data: bytes) -> tuple[dict[bytes, dict[bytes, bytes]], bytes] | None:
    """`index_trees` from the index's bytes, as `git_index.read` gave them."""
    if int.from_bytes(data[8:12], "big") > MAX_ENTRIES:
        return None
    listed = git_index.entries(data)
    if listed is None:
        return None
    folders: dict[bytes, dict[bytes, bytes]] = {b"": {}}
    kind = MODES.get
    for at, flags, path in listed:
        prefix = kind(data[at + git_index.MODE : at + git_index.MODE + 4])
        folder, _, name = path.rpartition(b"/")
        if flags & NOT_PLAIN_FLAGS or prefix is None or name == ATTRIBUTES:
            return None
        lines = folders.get(folder)
        if lines is None:
            lines = folders[folder] = {}
        lines[name] = prefix + name + b"\0" + data[at + git_index.ID : at + git_index.ID + 20]
    # Every folder above a folder holds it, written deepest first.
    for folder in sorted(folders, key=lambda f: -f.count(b"/")):
        while folder and folder.rpartition(b"/")[0] not in folders:
            parent = folder.rpartition(b"/")[0]
            folders[parent] = {}
            folder = parent
    for folder in sorted(folders, key=_deepest_first):
        tree = _tree_id(folders[folder])
        if not folder:
            return folders, tree
        parent, _, name = folder.rpartition(b"/")
        if name in folders[parent]:
            return None
        folders[parent][name + b"/"] = b"40000 %s\0%s" % (name, tree)
    raise AssertionError("the root is always there")  # pragma: no cover


def _deepest_first(folder: bytes) -> int:
    """Sort key of folders: the deepest first, the root (b"") last."""
    return -folder.count(b"/") if folder else 1


# -- what git reads besides the index and the files --


def plain(repo: Repo, *, settled_before: int) -> bool:
    """True when no config or attributes file makes `git add` hash a file other than as its
    bytes (see `CONFIG`), nor an include or a system config this module cannot find.

    Asked of git (`git config --list`, and the system config's path, beside which the system
    attributes are) and kept in the common dir, for every worktree, with the stamps of the
    files it can come from and git's environment: while those are the same, so is the answer.
    """
    path = os.path.join(repo.common_dir, *PLAIN)
    try:
        known = jsonio.loads(read_bytes(path))
        paths, key, answer = known["paths"], known["key"], known["plain"]
    except (OSError, ValueError, TypeError, KeyError):
        paths, key, answer = None, None, False
    listed = isinstance(paths, list) and all(isinstance(p, str) for p in paths)
    if listed and isinstance(answer, bool) and _key(paths)[0] == key:
        return answer
    paths, answer = _ask(repo)
    key, newest = _key(paths)
    if newest < settled_before:
        from gitflow_harness.store.fsutil import write_private

        document = {"paths": paths, "key": key, "plain": answer}
        try:
            write_private(path, jsonio.dumps(document, ensure_ascii=False))
        except OSError:
            pass
    return answer


def _key(paths: list[str]) -> tuple[str, int]:
    """Return the key of `paths`' stamps and of git's environment, and the newest stamp."""
    parts: list[object] = [
        sorted(
            (name, value)
            for name, value in os.environ.items()
            if name.startswith(("GIT_CONFIG", "GIT_ATTR")) or name in ENVIRONMENT
        )
    ]
    newest = 0
    for name in paths:
        try:
            st = os.stat(name)
        except FileNotFoundError:
            parts.append(None)
            continue
        except OSError:
            parts.append(False)
            continue
        parts.append([st.st_size, st.st_mtime_ns, st.st_ctime_ns, st.st_ino, st.st_dev])
        newest = max(newest, st.st_mtime_ns, st.st_ctime_ns)
    text = jsonio.dumps(parts, ensure_ascii=False)
    return sha256_hex(text.encode("utf-8", "surrogateescape")), newest


def _ask(repo: Repo) -> tuple[list[str], bool]:
    """Return the config and attribute files git can read here (those of every worktree: a
    worktree's own config is read only with `extensions.worktreeConfig`, which is not plain),
    and whether what it reads is plain."""
    top = repo.worktree()
    home = os.path.expanduser("~")
    config_home = os.environ.get("XDG_CONFIG_HOME") or os.path.join(home, ".config")
    paths = [
        os.path.join(repo.common_dir, "config"),
        os.environ.get("GIT_CONFIG_GLOBAL") or os.path.join(home, ".gitconfig"),
        os.path.join(config_home, "git", "config"),
    ]
    attributes = [
        os.path.join(repo.common_dir, "info", "attributes"),  # every worktree's (git's `info/`)
        os.path.join(config_home, "git", "attributes"),
    ]
    listing = run(["config", "-z", "--list"], cwd=top, check=False)
    # The system config's path, as `git config --system --edit` hands it to its editor: the
    # system attributes are beside it (both in git's sysconfdir). Not when the environment
    # moved the system config: its attributes are then where no question tells.
    system = run(["config", "--system", "--edit"], cwd=top, env={"GIT_EDITOR": "echo"}, check=False)
    found = system.stdout.strip()
    answer = (
        listing.returncode == 0
        and system.returncode == 0
        and os.path.isabs(found)
        and "GIT_CONFIG_SYSTEM" not in os.environ
        and "GIT_ATTR_SOURCE" not in os.environ  # attributes from a tree (git 2.40)
    )
    if answer:
        paths.append(found)
        attributes.append(os.path.join(os.path.dirname(found), "gitattributes"))
    values: dict[str, str] = {}
    for entry in split_z(listing.stdout):
        key, _, value = entry.partition("\n")
        if key.startswith(("include.", "includeif.")):
            answer = False
        values[key] = value.lower()
    for key, allowed in CONFIG.items():
        if key in values and (allowed is None or values[key] not in allowed):
            answer = False
    if any(os.path.lexists(file) for file in attributes):
        answer = False
    return sorted(set(paths + attributes)), answer
