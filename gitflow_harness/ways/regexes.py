"""The regexes a hook call runs, built from the code `re` compiled them to on an earlier call.

A `prompt` or `commands` regex runs only when the text holds a literal every match needs
(`match.py`), and then it must be compiled. `import re` alone (its parser, its compiler, and
`enum` under them) costs 25M instructions: two thirds of an installed interpreter's start, for
a call that may run one regex. `re` turns a pattern into a list of integers and hands it to
`_sre`, the interpreter's C engine, which builds the pattern object from it. This module keeps
that code, by pattern and flags, in a cache file of the state dir, and builds the pattern with
`_sre` alone; a pattern it has no code for is compiled with `re`, and its code kept for the
next call (`save`, once the call's ways are matched).

The code is `_sre`'s own format: the file is named by the interpreter (its cache tag and
`_sre.MAGIC`) and holds the exact version that wrote it, and code that does not build (`_sre`
checks it) is compiled again with `re`. An unreadable or damaged file is an empty cache.
"""

from __future__ import annotations

import _sre  # type: ignore[import-not-found]  # the C engine under `re`, no stub
import marshal
import os
import sys

TYPE_CHECKING = False  # see firing/curves.py: no `typing` import at run time
if TYPE_CHECKING:
    from re import Pattern
    from typing import Any

    Key = tuple[str, int]
    # `_sre.compile`'s arguments after the pattern: flags, code, groups, groupindex, indexgroup
    Code = tuple[int, list[int], int, dict[str, int], tuple[str | None, ...]]

VERSION = 1
LIMIT = 4096  # patterns kept; past it the file starts again from the call's own
_BUILT: dict[Key, Pattern[str]] = {}
_known: dict[Key, Code] | None = None
_new: dict[Key, Code] = {}
_WRITER = (VERSION, sys.hexversion, _sre.MAGIC, _sre.CODESIZE)


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
    cache: a write that fails is passed by (the next call compiles them again)."""
    global _new
    if not _new:
        return
    new, _new = _new, {}
    path = cache_file()
    if path is None:
        return
    kept = _read(path)
    if len(kept) + len(new) > LIMIT:
        kept = {}
    kept.update(new)
    from gitflow_harness.store.fsutil import write_private

    try:
        write_private(path, marshal.dumps((_WRITER, kept)), sync=False)
    except OSError:
        pass


def cache_file() -> str | None:
    """The cache of this interpreter's code, or None when there is no usable state dir."""
    from gitflow_harness.errors import GfhError
    from gitflow_harness.store.state import user_dir

    try:
        directory = user_dir("ways-index")
    except (OSError, GfhError):
        return None
    return os.path.join(directory, f"regexes-{sys.implementation.cache_tag}-{_sre.MAGIC}.marshal")


def _build(key: Key) -> Pattern[str]:
    global _known
    if _known is None:
        path = cache_file()
        _known = _read(path) if path is not None else {}
    code = _known.get(key)
    if code is not None:
        try:
            built: Pattern[str] = _sre.compile(key[0], *code)
            return built
        except Exception:  # code `_sre` refuses: compiled again below
            pass
    built, code = _compile(*key)
    if code is not None:
        _new[key] = _known[key] = code
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


def _read(path: str) -> dict[Key, Code]:
    try:
        with open(path, "rb") as file:
            writer, kept = marshal.loads(file.read())
    except (OSError, EOFError, ValueError, TypeError):
        return {}
    if writer != _WRITER or type(kept) is not dict:
        return {}
    found: dict[Any, Any] = kept
    return found
