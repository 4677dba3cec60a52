"""Matching a way's lanes against one hook call: pure functions returning the magnitude.

The magnitude of a match is the number of lanes that matched; the ActionPotential curve lets a
stronger match through a burst. The hook matches every way on every call, and compiling a regex
costs ~30 µs, so keywords and globs are matched without regexes, and a `prompt` or `commands`
regex is compiled only when the text contains one of the literals every match needs (worked out
when the way was parsed; see `literals.py`), from the code an earlier call kept (`regexes.py`):
nothing here imports `re`. The prompt and the command are the same for every
way of a call: what tells their needles apart is worked out once per call (`Text`).
"""

from __future__ import annotations

from gitflow_harness.ways.model import Lanes, Way
from gitflow_harness.ways.regexes import compiled
from gitflow_harness.ways.sieve import is_run as _one_run
from gitflow_harness.ways.sieve import literal_prefix, path_of
from gitflow_harness.ways.sieve import normalise as _normalise
from gitflow_harness.ways.sieve import prompt_possible as _prompt_possible
from gitflow_harness.ways.sieve import runs as _runs
from gitflow_harness.ways.sieve import words as _words

TYPE_CHECKING = False  # see firing/curves.py: no `typing` import at run time
if TYPE_CHECKING:
    from collections.abc import Iterable

_GLOBS: dict[str, tuple[tuple[object, ...], ...]] = {}
_GRAMS: dict[str, set[str]] = {}
_TEXTS: dict[str, Text] = {}
GRAM = 4  # a long text's substrings of this length, in a set: most needles miss one of them
LONG_TEXT = 4096  # shorter texts are searched directly
IGNORECASE = 2  # `re.IGNORECASE`, without `re`
# Characters outside ASCII that match an ASCII letter under re.IGNORECASE but that str.lower()
# does not map to it (the Kelvin sign K does lower() to k already).
_FOLD = str.maketrans({"\u017f": "s", "\u0131": "i", "\u0130": "i"})


def _grams(text: str) -> set[str]:
    return {text[i : i + GRAM] for i in range(len(text) - GRAM + 1)}


def _might_hold(grams: set[str], needle: str) -> bool:
    """False when a needle's first or last gram is not among a text's: it is not in it."""
    return needle[:GRAM] in grams and needle[-GRAM:] in grams


def contains(text: str, needle: str) -> bool:
    """`needle in text`; for a long text, a needle whose first or last characters appear
    nowhere in it is told apart by the set of its grams."""
    if len(text) >= LONG_TEXT and len(needle) >= GRAM:
        grams = _GRAMS.get(text)
        if grams is None:
            if len(_GRAMS) > 4:
                _GRAMS.clear()
            grams = _GRAMS[text] = _grams(text)
        if not _might_hold(grams, needle):
            return False
    return needle in text


def fold(text: str) -> str:
    """Fold text as the prefilter literals are (`literals.py`): lowercase, ASCII look-alikes."""
    if text.isascii():
        # No look-alike to map: a 20 KB prompt folds in 119,000 instructions, not 406,000.
        return text.lower()
    return text.translate(_FOLD).lower()


class Text:
    """A prompt or command as every way's lanes search it, worked out once per hook call.

    Folded for the literals a regex needs (as `fold` folds them), and, when first asked,
    normalised for the keywords, the set of its normalised words — a keyword found as a word
    has each of its runs of word characters among them — and for a long text the grams of its
    folded words: a literal of word characters lies inside one word. An ASCII text's folded
    and normalised words are the same set (`casefold` is `lower` there, and spacing does not
    change what splits into words): it is made once, from the folded text, and the text is
    normalised only for a keyword all of whose runs are among them (for a 20 KB prompt, 2.8M
    instructions to make the set, 1.7M to normalise).
    """

    __slots__ = ("_grams", "_normalised", "_words", "folded", "text")

    def __init__(self, text: str) -> None:
        self.text = text
        self.folded = fold(text)
        self._normalised: str | None = None
        self._words: set[str] | None = None
        self._grams: set[str] | None = None

    def holds(self, literal: str) -> bool:
        """True when a (folded) literal is in the folded text."""
        return self.holds_any((literal,))

    def holds_any(self, literals: Iterable[str]) -> bool:
        """True when one of the (folded) literals is in the folded text: for a long text, a
        literal of word characters whose first or last gram is not among those of the text's
        words is not, as `contains` tells any other."""
        folded = self.folded
        if len(folded) < LONG_TEXT:
            return any(literal in folded for literal in literals)
        grams = self._grams
        for literal in literals:
            if len(literal) < GRAM:
                if literal in folded:
                    return True
            elif not (literal.isalnum() or _one_run(literal)):  # most are words: no call
                if contains(folded, literal):
                    return True
            else:
                if grams is None:
                    folded_words = self.words() if self.text.isascii() else _words(folded)
                    grams = self._grams = {g for word in folded_words for g in _grams(word)}
                if literal[:GRAM] in grams and literal[-GRAM:] in grams and literal in folded:
                    return True
        return False

    def regex(self, pattern: str | None, hints: tuple[str, ...] | None, flags: int) -> int:
        """1 when `pattern` is found, after the literals one of which every match holds."""
        if not pattern:
            return 0
        if hints is not None and not self.holds_any(hints):
            return 0
        return 1 if compiled(pattern, flags).search(self.text) else 0

    def keyword(self, keyword: str) -> bool:
        """True when `keyword` appears ignoring case and spacing, not inside a word."""
        needle = _normalise(keyword)
        if not needle:
            return False
        words = self.words()
        for run in _runs(needle):
            if run not in words:
                return False
        return _as_word(needle, self.normalised())

    def normalised(self) -> str:
        """The text casefolded, its whitespace runs one space each (`sieve.normalise`)."""
        normalised = self._normalised
        if normalised is None:
            normalised = self._normalised = _normalise(self.text)
        return normalised

    def words(self) -> set[str]:
        """The set of the normalised text's words (a keyword's runs are each among them)."""
        words = self._words
        if words is None:
            text = self.text
            words = self._words = _words(self.folded if text.isascii() else self.normalised())
        return words


def text_of(text: str | Text) -> Text:
    """Return a text as the lanes search it (the same for the same string, a few kept)."""
    if type(text) is Text:
        return text
    assert isinstance(text, str)
    found = _TEXTS.get(text)
    if found is None:
        if len(_TEXTS) > 4:
            _TEXTS.clear()
        found = _TEXTS[text] = Text(text)
    return found


# -- keywords ------------------------------------------------------------------------------


def _is_word(ch: str) -> bool:
    return ch.isalnum() or ch == "_"


def keyword_in(keyword: str, text: str) -> bool:
    """True when `keyword` appears in `text` ignoring case and spacing, not inside a word."""
    return text_of(text).keyword(keyword)


def _as_word(needle: str, haystack: str) -> bool:
    """True when `needle` is in `haystack` with no word character just before or after it."""
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
    path = path_of(path)
    segments = _GLOBS.get(glob)
    if segments is None:
        # A hook call matches a few paths against every way's globs, each compiled anew in
        # each process: most are told apart by their literal start, uncompiled.
        if not path.startswith(literal_prefix(glob)):
            return False
        segments = _GLOBS[glob] = _compile_glob(glob)
    return _match_segments(segments, 0, path.split("/"), 0)


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


def prompt_lane(way: Way, prompt: str | Text) -> int:
    """Return 1 when the way's `prompt` regex matches the prompt (case-insensitive), else 0."""
    return _prompt_regex(text_of(prompt), way.lanes)


def _prompt_regex(text: Text, lanes: Lanes) -> int:
    return text.regex(lanes.prompt, lanes.prompt_hints, IGNORECASE)


def keywords_lane(way: Way, prompt: str | Text) -> int:
    """Return 1 when any of the way's keywords appears in the prompt as a word, else 0."""
    return _any_keyword(text_of(prompt), way.lanes.keywords)


def _any_keyword(text: Text, keywords: tuple[str, ...]) -> int:
    if keywords:
        keyword = text.keyword
        for each in keywords:
            if keyword(each):
                return 1
    return 0


def files_possible(way: Way, paths: Iterable[str]) -> bool:
    """False when no path starts with what some `files` glob of the way needs every match to
    start with (`sieve.literal_prefix`; a bare name needs nothing): then no glob matches any of
    them. It reads the way's sieve, never its lanes; True is no match yet: `files_lane`
    decides."""
    prefixes = way.sieve()[2]
    if prefixes:
        for path in paths:
            path = path_of(path)
            for prefix in prefixes:
                if path.startswith(prefix):
                    return True
    return False


def files_lane(way: Way, paths: Iterable[str]) -> int:
    """Return 1 when any repo-relative path matches any of the way's globs, else 0."""
    globs = way.lanes.files
    if globs:
        for path in paths:
            for glob in globs:
                if glob_match(glob, path):
                    return 1
    return 0


def commands_lane(way: Way, command: str | Text) -> int:
    """Return 1 when the way's `commands` regex is found in the shell command, else 0."""
    lanes = way.lanes
    return text_of(command).regex(lanes.commands, lanes.commands_hints, 0)


def session_start_lane(way: Way) -> int:
    """Return 1 for a way that asks to fire at session start, else 0."""
    return 1 if way.session_start else 0


def roles_lane(way: Way, role: str) -> int:
    """Return 1 when a subagent of this role (agent type) is one the way names, else 0."""
    return 1 if role in way.roles else 0


def prompt_possible(way: Way, prompt: Text) -> bool:
    """False when neither prompt lane of the way can match: none of the literals its regex
    needs is in the prompt, and no keyword has all its words among the prompt's.

    It reads the sieve the way's cache entry keeps (`Way.sieve`), never its lanes: most
    ways of a prompt are told apart here without being decoded. True is no match yet:
    `prompt_magnitude` decides.
    """
    hints, needles, _ = way.sieve()
    return _prompt_possible(hints, needles, prompt)


def prompt_magnitude(way: Way, prompt: str | Text) -> int:
    """Return how many of the prompt lanes (`prompt`, `keywords`) match a user prompt."""
    text = text_of(prompt)
    lanes = way.lanes  # once: the hook asks this of every way
    return _prompt_regex(text, lanes) + _any_keyword(text, lanes.keywords)
