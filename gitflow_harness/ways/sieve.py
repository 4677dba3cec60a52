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

import re

_NORMALISED: dict[str, str] = {}
# A run of word characters (`\w`: alphanumeric or `_`).
WORD = re.compile(r"\w+")
# The ASCII characters that are no word characters, each to a space: an ASCII text's words are
# then what `str.split` finds, three times faster than the regex on a long prompt.
_NOT_WORD = str.maketrans({c: " " for c in range(128) if not (chr(c).isalnum() or c == 95)})


def words(text: str) -> set[str]:
    """The set of a text's runs of word characters (`WORD.findall`)."""
    if text.isascii():
        return set(text.translate(_NOT_WORD).split())
    return set(WORD.findall(text))


def runs(needle: str) -> list[str]:
    """The runs of word characters of a (normalised or folded) needle, in order: itself for a
    plain word, as most are (`isalnum` is `\\w` but for `_`). Short needles keep the regex:
    there, a translate costs more."""
    return [needle] if needle.isalnum() else WORD.findall(needle)


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
