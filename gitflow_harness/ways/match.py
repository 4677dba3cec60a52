"""Matching a way's lanes against one hook call: pure functions returning the magnitude.

The magnitude of a match is the number of lanes that matched; the ActionPotential curve lets a
stronger match through a burst. The hook matches every way on every call, and compiling a regex
costs ~30 µs, so keywords and globs are matched without regexes, and a `prompt` or `commands`
regex is compiled only when the text contains one of the literals every match needs (worked out
when the way was parsed; see `literals.py`). The prompt is the same for every way of a call:
what tells its needles apart is worked out once per text — the set of its words, which rules
out a keyword with a word the prompt lacks, and for a long prompt the grams of its words, which
rule out most literals without a search of the whole text.
"""

from __future__ import annotations

import re

from gitflow_harness.ways.model import Way

TYPE_CHECKING = False  # see firing/curves.py: no `typing` import at run time
if TYPE_CHECKING:
    from collections.abc import Callable, Iterable

_COMPILED: dict[tuple[str, int], re.Pattern[str]] = {}
_FOLDED: dict[str, str] = {}
_NORMALISED: dict[str, str] = {}
_GLOBS: dict[str, tuple[tuple[object, ...], ...]] = {}
_GRAMS: dict[str, set[str]] = {}
_WORDS: dict[str, set[str]] = {}
_WORD_GRAMS: dict[str, set[str]] = {}
_RUNS: dict[str, list[str]] = {}
GRAM = 4  # a long text's substrings of this length, in a set: most needles miss one of them
LONG_TEXT = 4096  # shorter texts are searched directly
_FOLD = str.maketrans({"\u017f": "s", "\u0131": "i", "\u0130": "i"})  # as literals.fold
# A run of word characters, as `_is_word` tells them (`\w`: alphanumeric or `_`).
_WORD = re.compile(r"\w+")


def compiled(pattern: str, flags: int = 0) -> re.Pattern[str]:
    """Return `pattern` compiled with `flags`, from the process-wide cache."""
    key = (pattern, flags)
    found = _COMPILED.get(key)
    if found is None:
        found = _COMPILED[key] = re.compile(pattern, flags)
    return found


def _folded(text: str) -> str:
    found = _FOLDED.get(text)
    if found is None:
        if len(_FOLDED) > 64:
            _FOLDED.clear()
        found = _FOLDED[text] = text.translate(_FOLD).lower()
    return found


def _cached(cache: dict[str, set[str]], text: str, make: Callable[[str], set[str]]) -> set[str]:
    """Return what `make` gives for a text, worked out once per text: a hook call searches
    the same prompt for every way's needles. A few texts are kept."""
    found = cache.get(text)
    if found is None:
        if len(cache) > 4:
            cache.clear()
        found = cache[text] = make(text)
    return found


def _grams(text: str) -> set[str]:
    return {text[i : i + GRAM] for i in range(len(text) - GRAM + 1)}


def _words(text: str) -> set[str]:
    return set(_WORD.findall(text))


def _word_grams(text: str) -> set[str]:
    """The grams of the text's words: a needle of word characters only lies inside one word,
    so its first and last grams are among them (fewer than the text's, a repeated word
    counting once)."""
    return {g for word in _cached(_WORDS, text, _words) for g in _grams(word)}


def _runs(needle: str) -> list[str]:
    found = _RUNS.get(needle)
    if found is None:
        if len(_RUNS) > 4096:
            _RUNS.clear()
        found = _RUNS[needle] = _WORD.findall(needle)
    return found


def contains(text: str, needle: str) -> bool:
    """`needle in text`; for a long text (a pasted prompt, every way's literals searched in it),
    a needle whose first or last characters appear nowhere in it is told apart by a set: of
    the grams of the text's words for a needle of word characters, else of the text's."""
    if len(text) >= LONG_TEXT and len(needle) >= GRAM:
        whole_words = _runs(needle) == [needle]
        grams = _cached(
            _WORD_GRAMS if whole_words else _GRAMS, text, _word_grams if whole_words else _grams
        )
        if needle[:GRAM] not in grams or needle[-GRAM:] not in grams:
            return False
    return needle in text


def _regex_lane(pattern: str | None, hints: tuple[str, ...] | None, text: str, flags: int) -> int:
    if not pattern:
        return 0
    if hints is not None:
        folded = _folded(text)
        if not any(contains(folded, h) for h in hints):
            return 0
    return 1 if compiled(pattern, flags).search(text) else 0


# -- keywords ------------------------------------------------------------------------------


def _normalise(text: str) -> str:
    """Casefold and collapse whitespace runs to one space."""
    found = _NORMALISED.get(text)
    if found is None:
        if len(_NORMALISED) > 4096:
            _NORMALISED.clear()
        found = _NORMALISED[text] = " ".join(text.casefold().split())
    return found


def _is_word(ch: str) -> bool:
    return ch.isalnum() or ch == "_"


def keyword_in(keyword: str, text: str) -> bool:
    """True when `keyword` appears in `text` ignoring case and spacing, not inside a word.

    Every run of word characters in a keyword found so is a whole word of the text: a keyword
    with a word the text does not have is told apart by the set of the text's words.
    """
    needle = _normalise(keyword)
    if not needle:
        return False
    haystack = _normalise(text)
    words = _cached(_WORDS, haystack, _words)
    for run in _runs(needle):
        if run not in words:
            return False
    at = haystack.find(needle)
    while at >= 0:
        end = at + len(needle)
        before_ok = at == 0 or not _is_word(haystack[at - 1])
        after_ok = end == len(haystack) or not _is_word(haystack[end])
        if before_ok and after_ok:
            return True
        at = haystack.find(needle, at + 1)
    return False


# -- globs ---------------------------------------------------------------------------------

_STAR = "*"
_ONE = "?"


def _parse_segment(segment: str) -> tuple[object, ...]:
    """Turn one glob segment into tokens: characters, `*`, `?`, or (negated, ranges) classes."""
    tokens: list[object] = []
    i, n = 0, len(segment)
    while i < n:
        ch = segment[i]
        if ch == "*":
            if not tokens or tokens[-1] is not _STAR:
                tokens.append(_STAR)
            i += 1
        elif ch == "?":
            tokens.append(_ONE)
            i += 1
        elif ch == "[":
            j = i + 1
            negated = j < n and segment[j] == "!"
            if negated:
                j += 1
            close = segment.find("]", j + 1 if j < n and segment[j] == "]" else j)
            if close < 0:
                tokens.append("[")
                i += 1
                continue
            body = segment[j:close]
            ranges: list[tuple[str, str]] = []
            k = 0
            while k < len(body):
                if k + 2 < len(body) and body[k + 1] == "-":
                    ranges.append((body[k], body[k + 2]))
                    k += 3
                else:
                    ranges.append((body[k], body[k]))
                    k += 1
            tokens.append((negated, tuple(ranges)))
            i = close + 1
        else:
            tokens.append(ch)
            i += 1
    return tuple(tokens)


def _one(token: object, ch: str) -> bool:
    if token is _ONE:
        return True
    if isinstance(token, str):
        return token == ch
    assert isinstance(token, tuple)
    negated: bool = token[0]
    ranges: tuple[tuple[str, str], ...] = token[1]
    inside = any(low <= ch <= high for low, high in ranges)
    return inside != negated


def _segment_match(tokens: tuple[object, ...], name: str) -> bool:
    """Wildcard match of one path segment (linear, with one backtrack point for `*`)."""
    t = s = 0
    star_t = star_s = -1
    while s < len(name):
        if t < len(tokens) and tokens[t] is _STAR:
            star_t, star_s = t, s
            t += 1
        elif t < len(tokens) and _one(tokens[t], name[s]):
            t += 1
            s += 1
        elif star_t >= 0:
            t = star_t + 1
            star_s += 1
            s = star_s
        else:
            return False
    while t < len(tokens) and tokens[t] is _STAR:
        t += 1
    return t == len(tokens)


def _compile_glob(glob: str) -> tuple[tuple[object, ...], ...]:
    body = glob.lstrip("/")
    if not glob.startswith("/") and "/" not in body:
        body = "**/" + body  # a bare name matches at any depth
    if body.endswith("/"):
        body += "**"
    segments: list[tuple[object, ...]] = []
    for part in body.split("/"):
        if part == "**":
            if not segments or segments[-1] != ("**",):
                segments.append(("**",))
        elif part:
            segments.append(_parse_segment(part))
    return tuple(segments)


def glob_match(glob: str, path: str) -> bool:
    """True when a files glob matches a repo-relative `/`-separated path.

    `*` and `?` stay within one path segment and `[...]` is a character class (`[!...]`
    negated); a `**` segment matches any number of directories, none included. A glob without
    a `/` matches a file name at any depth (`*.py`); a leading `/` anchors it at the root; a
    trailing `/` matches everything below a directory.
    """
    path = path.replace("\\", "/").removeprefix("./")
    segments = _GLOBS.get(glob)
    if segments is None:
        # A hook call matches a few paths against every way's globs, each compiled anew in
        # each process: most are told apart by their literal start, uncompiled.
        if not path.startswith(literal_prefix(glob)):
            return False
        segments = _GLOBS[glob] = _compile_glob(glob)
    return _match_segments(segments, 0, path.split("/"), 0)


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


def _match_segments(
    segments: tuple[tuple[object, ...], ...], i: int, parts: list[str], j: int
) -> bool:
    while i < len(segments):
        segment = segments[i]
        if segment == ("**",):
            if i + 1 == len(segments):
                return j < len(parts)  # `dir/**` needs something below dir
            return any(_match_segments(segments, i + 1, parts, k) for k in range(j, len(parts)))
        if j >= len(parts) or not _segment_match(segment, parts[j]):
            return False
        i += 1
        j += 1
    return j == len(parts)


# -- lanes ---------------------------------------------------------------------------------


def prompt_lane(way: Way, prompt: str) -> int:
    """Return 1 when the way's `prompt` regex matches the prompt (case-insensitive), else 0."""
    lanes = way.lanes
    return _regex_lane(lanes.prompt, lanes.prompt_hints, prompt, re.IGNORECASE)


def keywords_lane(way: Way, prompt: str) -> int:
    """Return 1 when any of the way's keywords appears in the prompt as a word, else 0."""
    return 1 if any(keyword_in(k, prompt) for k in way.lanes.keywords) else 0


def files_lane(way: Way, paths: Iterable[str]) -> int:
    """Return 1 when any repo-relative path matches any of the way's globs, else 0."""
    globs = way.lanes.files
    if not globs:
        return 0
    return 1 if any(glob_match(g, p) for p in paths for g in globs) else 0


def commands_lane(way: Way, command: str) -> int:
    """Return 1 when the way's `commands` regex is found in the shell command, else 0."""
    lanes = way.lanes
    return _regex_lane(lanes.commands, lanes.commands_hints, command, 0)


def session_start_lane(way: Way) -> int:
    """Return 1 for a way that asks to fire at session start, else 0."""
    return 1 if way.lanes.session_start else 0


def roles_lane(way: Way, role: str) -> int:
    """Return 1 when a subagent of this role (agent type) is one the way names, else 0."""
    return 1 if role in way.roles else 0


def prompt_magnitude(way: Way, prompt: str) -> int:
    """Return how many of the prompt lanes (`prompt`, `keywords`) match a user prompt."""
    return prompt_lane(way, prompt) + keywords_lane(way, prompt)
