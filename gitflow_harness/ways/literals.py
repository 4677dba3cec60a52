"""Literal prefilters for the regex lanes, worked out once when a way file is parsed.

Compiling 500 regexes costs ~15 ms, more than a hook call can spend. So for each `prompt` and
`commands` regex the index stores a set of lowercase ASCII strings at least one of which every
match contains; the hook compiles a regex only when the text (folded by `match.fold`) contains
one of them. The analysis reads the parse tree of Python's `re` (a private module): when
anything about it is unexpected, there is no prefilter and the regex is simply always compiled,
which is never wrong, only slower.
"""

from __future__ import annotations

import functools
import re

from gitflow_harness.ways import plainregex

TYPE_CHECKING = False  # no `typing` import at run time (see records.py)
if TYPE_CHECKING:
    from typing import Any


def required_literals(pattern: str) -> tuple[str, ...] | None:
    """Return strings one of which every match of `pattern` contains (folded), or None."""
    try:
        return checked_literals(pattern)
    except Exception:  # it does not compile: no prefilter
        return None


@functools.lru_cache(maxsize=4096)
def checked_literals(pattern: str, flags: int = 0) -> tuple[str, ...] | None:
    """Check that `pattern` compiles with `flags`, raising what `re.compile` raises, and return
    its prefilter (as `required_literals`), from one parse of it.

    A plain pattern (`plainregex`) is read without `re`'s parser and always compiles. Else the
    parser raises every error `re.compile` does but those of a look-behind, which the compiler
    finds: a pattern with a look-behind (or nested deeper than the walk looks) is compiled as
    well. When the private modules are not there or the parse tree is not of a known shape, it
    is compiled, with no prefilter."""
    private = _private()
    if private is None:
        re.compile(pattern, flags)
        return None
    flat = _flat_literals(pattern)
    if flat is not _UNSURE:
        return flat  # type: ignore[return-value]  # not `_UNSURE`: literals, or None
    c, parser = private
    try:
        tree = plainregex.parse(pattern, c, parser.CATEGORIES)
    except Exception:  # the private constants changed: the parser reads it
        tree = None
    if tree is None:
        return _parsed_literals(pattern, int(flags), c, parser)
    return _literals(tree, c)


_UNSURE = object()


def _flat_literals(pattern: str) -> object:
    """The literals of a flat pattern, from its tokens: alternatives of runs of literal
    characters (`plainregex`'s), `\\b`-like and `\\s`-like escapes, `.`, `^` and `$`, those
    but the anchors perhaps repeated (`*`, `+`, `?`); as `plainregex` and `_literals` give
    them, in fewer steps. `_UNSURE` for any other pattern, or alternatives that begin with the
    same character (the parser moves it out): `plainregex` reads those."""
    branches = []
    for branch in pattern.split("|"):
        tokens = _flat_tokens(branch)
        if tokens is None:
            return _UNSURE
        branches.append(tokens)
    if len(branches) == 1:
        best = _flat_best(branches[0])
        return (best.lower(),) if best else None
    # As the parser does: the first items all the alternatives share are moved out (here
    # zero-width or category marks only, which hold no literal).
    k = 0
    first_branch = branches[0]
    while all(len(b) > k for b in branches):
        first = first_branch[k]
        if type(first) is str:
            if all(type(b[k]) is str and b[k][0] == first[0] for b in branches):
                return _UNSURE
            break
        if first[0] == "repeat" or any(b[k] != first for b in branches):
            break
        k += 1
    bests = []
    single = True  # every alternative one literal character or category: a class
    for tokens in branches:
        rest = tokens[k:]
        single = single and len(rest) == 1 and _flat_in_set(rest[0])
        best = _flat_best(rest)
        if not best:
            return None  # an alternative that holds no literal
        bests.append(best.lower())
    return None if single else tuple(sorted(set(bests)))


def _flat_tokens(branch: str) -> list[Any] | None:
    """A flat alternative's tokens: each run of literal characters (a string), each mark as
    `(kind, character)` (kind "at", "in" or "any"), each repeated mark as `("repeat", mark)`;
    None for anything else."""
    tokens: list[Any] = []
    run = plainregex.RUN.match
    i, n = 0, len(branch)
    while i < n:
        found = run(branch, i)
        if found is not None:
            tokens.append(found.group())
            i = found.end()
            if i < n and branch[i] in "*+?{":
                return None  # a repeated literal: the reader's
            continue
        char = branch[i]
        i += 1
        if char == "\\":
            escape = branch[i : i + 1]
            i += 1
            if escape and escape in plainregex.AT_ESCAPE:
                tokens.append(("at", escape))
            elif escape and escape in plainregex.CATEGORY:
                tokens.append(("in", escape))
            else:
                return None  # a literal escaped, or another escape: the reader's
        elif char == "^" or char == "$":
            tokens.append(("at", char))
        elif char == ".":
            tokens.append(("any", char))
        elif (
            char in "*+?" and tokens and type(tokens[-1]) is tuple and tokens[-1][0] in _REPEATABLE
        ):
            if branch.startswith("?", i):
                i += 1  # lazy: the same literals
            if i < n and branch[i] in "*+?{":
                return None  # a repeat repeated: an error the parser words
            tokens[-1] = ("repeat", tokens[-1])
        else:
            return None
    return tokens


_REPEATABLE = ("in", "any")


def _flat_in_set(token: Any) -> bool:
    """`plainregex._in_set` of a token that is one item: a literal character or a category."""
    return (type(token) is str and len(token) == 1) or token[0] == "in"


def _flat_best(tokens: list[Any]) -> str:
    """`_must` of an alternative's tokens: its first longest run ("" for none); a mark, or a
    repeated mark, holds no literal."""
    best = ""
    for token in tokens:
        if type(token) is str and len(token) > len(best):
            best = token
    return best


@functools.cache
def _private() -> tuple[Any, Any] | None:
    """`re`'s private constants and parser, or None when they are not there."""
    from gitflow_harness import import_module  # not `importlib`'s (and `warnings`)

    try:
        return import_module("re._constants"), import_module("re._parser")
    except ImportError:
        return None


def _parsed_literals(pattern: str, flags: int, c: Any, parser: Any) -> tuple[str, ...] | None:
    """`checked_literals` by `re`'s parser."""
    tree = parser.parse(pattern, flags)
    try:
        compile_too = _compiler_checks(tree, c)
        found = _literals(tree, c)
    except Exception:  # the private parse tree changed shape: no prefilter, never wrong
        compile_too, found = True, None
    if compile_too:
        re.compile(pattern, flags)
    return found


def _literals(tree: Any, c: Any) -> tuple[str, ...] | None:
    found = _must(list(tree), c)
    return tuple(sorted(found)) if found else None


MAX_WALK = 50  # nesting the walk below looks into; a deeper pattern is compiled


def _compiler_checks(tree: Any, c: Any) -> bool:
    """True when the compiler may refuse what the parser accepted: a look-behind anywhere in
    the tree (its width must be fixed), or nesting past `MAX_WALK`."""
    subpattern = type(tree)
    stack = [(tree, 0)]
    while stack:
        node, depth = stack.pop()
        if depth > MAX_WALK:
            return True
        for op, av in node:
            if op in (c.ASSERT, c.ASSERT_NOT) and av[0] < 0:
                return True
            for part in av if isinstance(av, tuple | list) else (av,):
                if isinstance(part, subpattern):
                    stack.append((part, depth + 1))
                elif isinstance(part, list):
                    stack.extend((p, depth + 1) for p in part if isinstance(p, subpattern))
    return False


def _must(items: list[Any], c: Any) -> frozenset[str] | None:
    best: frozenset[str] | None = None
    run: list[int] = []  # the ASCII literals since the last item that is not one
    literal = c.LITERAL
    for op, av in items:
        if op is literal and av < 128:
            run.append(av)
            continue
        if run:
            best = _better(best, frozenset({bytes(run).decode("ascii").lower()}))
            run = []
        candidate = None
        if op is c.SUBPATTERN:
            candidate = _must(list(av[-1]), c)
        elif op is c.ATOMIC_GROUP:
            candidate = _must(list(av), c)
        elif op is c.BRANCH:
            branches = [_must(list(b), c) for b in av[1]]
            if all(branches):
                candidate = frozenset().union(*branches)  # type: ignore[arg-type]
        elif op in (c.MAX_REPEAT, c.MIN_REPEAT, c.POSSESSIVE_REPEAT):
            low, _, sub = av
            if low >= 1:
                candidate = _must(list(sub), c)
        # Anything else (classes, `.`, anchors, lookarounds, back-references) requires no
        # literal of its own; it only ends the current run.
        best = _better(best, candidate)
    if run:
        best = _better(best, frozenset({bytes(run).decode("ascii").lower()}))
    return best


def _better(best: frozenset[str] | None, candidate: frozenset[str] | None) -> frozenset[str] | None:
    """The better of the best so far and a candidate (an empty literal is never one)."""
    if not candidate or "" in candidate:
        return best
    if best is None or _score(candidate) > _score(best):
        return candidate
    return best


def _score(candidate: frozenset[str]) -> tuple[int, int]:
    """Prefer the alternative whose shortest literal is longest, then the fewest literals."""
    return (min(len(s) for s in candidate), -len(candidate))
