"""The regexes a hook call runs, built from the code `re` compiled them to on an earlier call.

A `prompt` or `commands` regex runs only when the text holds a literal every match needs
(`match.py`), and then it must be compiled. `import re` alone (its parser, its compiler, and
`enum` under them) costs 25M instructions: two thirds of an installed interpreter's start, for
a call that may run one regex. `re` turns a pattern into a list of integers and hands it to
`_sre`, the interpreter's C engine, which builds the pattern object from it. This module keeps
that code in the state dir, a small file per pattern and flags, and builds the pattern with
`_sre` alone; a pattern with no file yet is compiled with `re`, and its file written for the
next calls (`save`, once the call's ways are matched). A call reads the files of the patterns
it runs, and no others.

The code is `_sre`'s own format: a file is named by the interpreter that wrote it (its cache
tag and `_sre.MAGIC`) and holds that interpreter's exact version, its pattern and its flags;
code that does not build (`_sre` checks it) is compiled again with `re`, and a file that is
damaged, or another's, is no file. The files live beside the ways index caches
(`ways-index/`), whose pruning removes them when unwritten for a month.
"""

from __future__ import annotations

import _sre  # type: ignore[import-not-found]  # the C engine under `re`, no stub
import marshal
import os
import sys

TYPE_CHECKING = False  # see firing/curves.py: no `typing` import at run time
if TYPE_CHECKING:
    from re import Pattern

    Key = tuple[str, int]
    # `_sre.compile`'s arguments after the pattern: flags, code, groups, groupindex, indexgroup
    Code = tuple[int, list[int], int, dict[str, int], tuple[str | None, ...]]

VERSION = 1
PREFIX = f"regex-{sys.implementation.cache_tag}-{_sre.MAGIC}-"
_WRITER = (VERSION, sys.hexversion, _sre.MAGIC, _sre.CODESIZE)
_BUILT: dict[Key, Pattern[str]] = {}
_new: dict[Key, Code] = {}
# The state dir's `ways-index` (None: unusable), looked up once for the state home it is in.
_directory: dict[str | None, str | None] = {}


def compiled(pattern: str, flags: int = 0) -> Pattern[str]:
    """Return `pattern` compiled with `flags` as `re.compile` compiles it, from the code an
    earlier call kept where there is some."""
    key = (pattern, int(flags))
    found = _BUILT.get(key)
    if found is None:
        found = _BUILT[key] = _build(key)
    return found


def save() -> None:
    """Keep the code of the patterns this process compiled with `re`, for the next calls. A
    cache: a write that fails is passed by (a later call compiles the pattern again)."""
    global _new
    new, _new = _new, {}
    for key, code in new.items():
        path = cache_file(key)
        if path is None:
            return
        from gitflow_harness.store.fsutil import write_private

        try:
            write_private(path, marshal.dumps((_WRITER, *key, code)), sync=False)
        except OSError:
            pass


def cache_file(key: Key) -> str | None:
    """The file of a pattern and its flags, or None when there is no usable state dir."""
    home = os.environ.get("GFH_STATE_HOME")
    if home not in _directory:
        from gitflow_harness.errors import GfhError
        from gitflow_harness.store.state import user_dir

        try:
            _directory[home] = user_dir("ways-index")
        except (OSError, GfhError):
            _directory[home] = None
    directory = _directory[home]
    if directory is None:
        return None
    from gitflow_harness.home import name_hash

    digest = name_hash(b"%d\0" % key[1] + key[0].encode("utf-8", "surrogatepass"))
    return os.path.join(directory, f"{PREFIX}{digest}.marshal")


def _build(key: Key) -> Pattern[str]:
    code = _read(key)
    if code is not None:
        try:
            built: Pattern[str] = _sre.compile(key[0], *code)
            return built
        except Exception:  # code `_sre` refuses: compiled again below
            pass
    built, code = _compile(*key)
    if code is not None:
        _new[key] = code
    return built


def _compile(pattern: str, flags: int) -> tuple[Pattern[str], Code | None]:
    """Compile as `re.compile` does (`re._compiler.compile`), keeping the code it builds; where
    this interpreter's `re` is not laid out so, `re.compile`, and no code."""
    import re

    try:
        from re import _compiler, _parser  # type: ignore[attr-defined]

        parsed = _parser.parse(pattern, flags)
        state = parsed.state
        groupindex = dict(state.groupdict)
        indexgroup: list[str | None] = [None] * state.groups
        for name, number in groupindex.items():
            indexgroup[number] = name
        code: Code = (
            int(flags | state.flags),
            list(map(int, _compiler._code(parsed, flags))),  # plain ints: opcodes are not
            state.groups - 1,
            groupindex,
            tuple(indexgroup),
        )
        built: Pattern[str] = _sre.compile(pattern, *code)
    except Exception:  # a bad pattern raises its `re.error` here
        return re.compile(pattern, flags), None
    return built, code


def _read(key: Key) -> Code | None:
    path = cache_file(key)
    if path is None:
        return None
    try:
        from gitflow_harness.store.fsutil import read_bytes

        writer, pattern, flags, code = marshal.loads(read_bytes(path))
    except (OSError, EOFError, ValueError, TypeError):
        return None
    if writer != _WRITER or pattern != key[0] or flags != key[1]:
        return None  # another interpreter's, or another pattern's of the same digest
    kept: Code = code
    return kept
