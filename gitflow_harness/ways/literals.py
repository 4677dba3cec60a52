"""Literal prefilters for the regex lanes, worked out once when a way file is parsed.

Compiling 500 regexes costs ~15 ms, more than a hook call can spend. So for each `prompt` and
`commands` regex the index stores a set of lowercase ASCII strings at least one of which every
match contains; the hook compiles a regex only when the text (folded by `fold`) contains one of
them. The analysis reads the parse tree of Python's `re` (a private module): when anything about
it is unexpected, there is no prefilter and the regex is simply always compiled, which is never
wrong, only slower.
"""

from __future__ import annotations

from typing import Any

# Characters outside ASCII that match an ASCII letter under re.IGNORECASE but that str.lower()
# does not map to it (the Kelvin sign K does lower() to k already).
_FOLD = str.maketrans({"\u017f": "s", "\u0131": "i", "\u0130": "i"})


def fold(text: str) -> str:
    """Fold text the way the prefilter literals are folded (lowercase, ASCII look-alikes)."""
    return text.translate(_FOLD).lower()


def required_literals(pattern: str) -> tuple[str, ...] | None:
    """Return strings one of which every match of `pattern` contains (folded), or None."""
    try:
        import importlib

        c = importlib.import_module("re._constants")
        parser = importlib.import_module("re._parser")
        tree = parser.parse(pattern, 0)
        found = _must(list(tree), c)
    except Exception:  # the private parse tree changed shape: no prefilter, never wrong
        return None
    if not found:
        return None
    return tuple(sorted(found))


def _must(items: list[Any], c: Any) -> frozenset[str] | None:
    best: frozenset[str] | None = None
    run: list[str] = []

    def consider(candidate: frozenset[str] | None) -> None:
        nonlocal best
        if not candidate or any(not s for s in candidate):
            return
        if best is None or _score(candidate) > _score(best):
            best = candidate

    def flush() -> None:
        if run:
            consider(frozenset({"".join(run)}))
            run.clear()

    for op, av in items:
        if op is c.LITERAL and av < 128:
            run.append(chr(av).lower())
            continue
        flush()
        if op is c.SUBPATTERN:
            consider(_must(list(av[-1]), c))
        elif op is c.ATOMIC_GROUP:
            consider(_must(list(av), c))
        elif op is c.BRANCH:
            branches = [_must(list(b), c) for b in av[1]]
            if all(branches):
                consider(frozenset().union(*branches))  # type: ignore[arg-type]
        elif op in (c.MAX_REPEAT, c.MIN_REPEAT, c.POSSESSIVE_REPEAT):
            low, _, sub = av
            if low >= 1:
                consider(_must(list(sub), c))
        # Anything else (classes, `.`, anchors, lookarounds, back-references) requires no
        # literal of its own; it only ends the current run.
    flush()
    return best


def _score(candidate: frozenset[str]) -> tuple[int, int]:
    """Prefer the alternative whose shortest literal is longest, then the fewest literals."""
    return (min(len(s) for s in candidate), -len(candidate))
