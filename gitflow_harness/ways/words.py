"""The words of a text, and a keyword as the prompt is searched for it.

A keyword matches a prompt ignoring case and spacing, not inside a word (`match.Text`). What
that search needs of a keyword, its normalised form and its runs of word characters, is worked
out here, for the matcher and for the sieve a way's cache entry keeps (`Way.prompt_sieve`).
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
