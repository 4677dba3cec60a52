"""What a way's cache entry keeps so that a hook call can pass the way by undecoded.

A hook matches every way on every call. Most ways cannot match a given prompt or path, and
telling so needs little of them: the literals one of which every match of the `prompt` regex
holds, the keywords (normalised, with their runs of word characters: a keyword is found as a
word, ignoring case and spacing) and what every path a `files` glob matches starts with. The
index keeps these in each way's payload (`Way.sieve`), and `match.prompt_possible` and
`match.files_possible` read them without decoding the way's lanes. The words of a text, and a
keyword as the prompt is searched for it, are worked out here for the matcher too.

The worktree's index cache keeps the sieves of all its ways together too (`table`): a call
whose ways are all as cached asks the table which ways its prompt, paths or lane can reach
(`candidates`), and only those are built and matched. For a path that is a lookup by
its first segment, not a pass over every way.
"""

from __future__ import annotations

TYPE_CHECKING = False  # see firing/curves.py: no `typing` import at run time
if TYPE_CHECKING:
    from collections.abc import Sequence
    from re import Pattern
    from typing import Any

    from gitflow_harness.ways.match import Text
    from gitflow_harness.ways.model import Way

# A sieve's first part (`Way.sieve`): the way has no `prompt` regex, or one that no literal
# prefilters (else the list of its literals).
NEVER, ALWAYS = 0, 1
_NORMALISED: dict[str, str] = {}
# The ASCII characters that are no word characters, each to a space: an ASCII text's words are
# then what `str.split` finds, three times faster than the regex on a long prompt, and no hook
# call that matches only ASCII text imports `re` (`regexes.py`).
_NOT_WORD = str.maketrans({c: " " for c in range(128) if not (chr(c).isalnum() or c == 95)})
_WORD: Pattern[str] | None = None


def word() -> Pattern[str]:
    """A run of word characters (`\\w+`: alphanumeric or `_`), for a text beyond ASCII."""
    global _WORD
    if _WORD is None:
        import re

        _WORD = re.compile(r"\w+")
    return _WORD


def words(text: str) -> set[str]:
    """The set of a text's runs of word characters (`word().findall`)."""
    if text.isascii():
        return set(text.translate(_NOT_WORD).split())
    return set(word().findall(text))


def runs(needle: str) -> list[str]:
    """The runs of word characters of a (normalised or folded) needle, in order: itself for a
    plain word, as most are (`isalnum` is `\\w` but for `_`)."""
    if needle.isalnum():
        return [needle]
    if needle.isascii():
        return needle.translate(_NOT_WORD).split()
    return word().findall(needle)


def is_run(needle: str) -> bool:
    """True when a needle is one run of word characters (as `runs` would return it alone)."""
    if needle.isalnum():
        return True
    if needle.isascii():
        return bool(needle) and " " not in needle.translate(_NOT_WORD)
    return word().fullmatch(needle) is not None


def normalise(text: str) -> str:
    """Casefold and collapse whitespace runs to one space."""
    found = _NORMALISED.get(text)
    if found is None:
        if len(_NORMALISED) > 4096:
            _NORMALISED.clear()
        found = _NORMALISED[text] = " ".join(text.casefold().split())
    return found


def needles(keywords: tuple[str, ...]) -> list[list[str]]:
    """`[normalised keyword, *its runs]` for each keyword that normalises to something (one
    that does not can never match)."""
    return [[found, *runs(found)] for k in keywords if (found := normalise(k))]


def literal_prefix(glob: str) -> str:
    """Return what every path a glob matches starts with: the glob up to its first wildcard,
    for a glob anchored at the root (one with a `/`); "" for a bare name or when unsure."""
    body = glob.lstrip("/")
    if "/" not in body and not glob.startswith("/"):
        return ""  # a bare name matches at any depth
    cut = len(body)
    for wildcard in "*?[":
        at = body.find(wildcard)
        if 0 <= at < cut:
            cut = at
    prefix = body[:cut]
    return "" if "//" in prefix else prefix  # an empty segment is skipped: unsure


def path_of(path: str) -> str:
    """A repo-relative path as globs are matched against it: `/`-separated, no leading `./`."""
    return path.replace("\\", "/").removeprefix("./")


TABLE_FORMAT = 1


def table(ways: Sequence[Way | None]) -> list[Any]:
    """The sieves of `ways` (None: a way file that did not load) by their place in it:
    `[format, prompt, by_segment, loose, session_start, postcheck]`. `prompt` lists
    `(place, literals, needles)` of the ways a prompt may reach; `by_segment` maps the first
    segment of a `files` prefix that has one to its `(prefix, place)` pairs, and `loose` holds
    the rest (a prefix with no `/`, which any first segment may start with);
    `session_start` and `postcheck` are the places of the ways with one."""
    prompt: list[tuple[int, Any, Any]] = []
    by_segment: dict[str, list[tuple[str, int]]] = {}
    loose: list[tuple[str, int]] = []
    session_start: list[int] = []
    postcheck: list[int] = []
    for place, way in enumerate(ways):
        if way is None:
            continue
        literals, keywords, prefixes = way.sieve()
        if literals != NEVER or keywords:
            prompt.append((place, literals, keywords))
        for prefix in prefixes:
            segment, slash, _ = prefix.partition("/")
            if slash:
                by_segment.setdefault(segment, []).append((prefix, place))
            else:
                loose.append((prefix, place))
        if way.session_start:
            session_start.append(place)
        if way.has_postcheck:
            postcheck.append(place)
    return [TABLE_FORMAT, prompt, by_segment, loose, session_start, postcheck]


def prompt_possible(hints: Any, needles: list[list[str]], prompt: Text) -> bool:
    """False when no literal of `hints` (NEVER: none; ALWAYS: a regex no literal prefilters)
    is in the prompt and no needle has all its runs among its words (`match.prompt_possible`).
    """
    if hints != NEVER:
        if type(hints) is not list:
            return True  # a regex without a prefilter: only running it can tell
        if prompt.holds_any(hints):
            return True
    if needles:
        words = prompt.words()
        for needle in needles:
            if words.issuperset(needle[1:]):  # every run of a needle, `[normalised, *runs]`
                return True
    return False


def candidates(
    table: list[Any],
    prompt: Text | None,
    paths: Sequence[str],
    *,
    session_start: bool,
    postcheck: bool,
) -> set[int] | None:
    """The places, in a table of sieves (`sieve.table`), of the ways a call may match: those
    `prompt_possible` or `files_possible` let through, and those with the session-start or
    postcheck lane when the call opens it; None when the table is not one this reads. A way
    left out cannot match the call on those lanes (a call with another lane asks every way)."""
    if type(table) is not list or len(table) != 6 or table[0] != TABLE_FORMAT:
        return None
    _, prompts, by_segment, loose, starts, postchecks = table
    found: set[int] = set()
    if prompt is not None:
        for place, hints, needles in prompts:
            if prompt_possible(hints, needles, prompt):
                found.add(place)
    for path in paths:
        path = path_of(path)
        for prefix, place in (*by_segment.get(path.partition("/")[0], ()), *loose):
            if path.startswith(prefix):
                found.add(place)
    if session_start:
        found.update(starts)
    if postcheck:
        found.update(postchecks)
    return found
