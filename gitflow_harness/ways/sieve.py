"""What a way's cache entry keeps so that a hook call can pass the way by undecoded.

A hook matches every way on every call. Most ways cannot match a given prompt or path, and
telling so needs little of them: the literals one of which every match of the `prompt` regex
holds, the keywords (normalised, with their runs of word characters: a keyword is found as a
word, ignoring case and spacing) and what every path a `files` glob matches starts with. The
index keeps these in each way's payload (`Way.sieve`), and `match.prompt_possible` and
`match.files_possible` read them without decoding the way's lanes. The words of a text, and a
keyword as the prompt is searched for it, are worked out here for the matcher too.
"""

from __future__ import annotations

TYPE_CHECKING = False  # see firing/curves.py: no `typing` import at run time
if TYPE_CHECKING:
    from re import Pattern

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
