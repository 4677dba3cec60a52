"""The plain-regex reader gives what `re`'s parser gives, as far as the prefilter looks."""

from __future__ import annotations

import re
import warnings

import pytest
from hypothesis import event, example, given
from hypothesis import strategies as st

from gitflow_harness.ways import literals, plainregex

C = re._constants  # type: ignore[attr-defined]
PARSER = re._parser  # type: ignore[attr-defined]


def _plain(pattern: str) -> tuple[str, ...] | bool | None:
    """The literals the reader gives, or False when it does not read `pattern`."""
    tree = plainregex.parse(pattern, C, PARSER.CATEGORIES)
    return False if tree is None else literals._literals(tree, C)


def _agree(pattern: str) -> bool:
    """Assert that a pattern the reader reads compiles, without a warning, with and without
    IGNORECASE, and has the literals the parser's tree gives; return whether it read it."""
    found = _plain(pattern)
    if found is False:
        return False
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        re.compile(pattern)
        re.compile(pattern, re.IGNORECASE)
    assert found == literals._parsed_literals(pattern, 0, C, PARSER)
    return True


READ = [
    r"\btopic0001\b|\brelease0001\b",
    r"\bmake\s+target1\b",
    r"\bgit\s+(commit|merge|rebase|reset|cherry-pick|push)\b",
    r"-X\s*importtime",
    r"colou?r",
    r"ab|ac",  # a common prefix moved out: `a`
    r"a|b|c",  # single characters: a class, no literal
    r"x(a|b)",
    r"(?:foo|bar)baz",
    r"x{2,3}y+z*?",
    r"a{3}b{1,}",
    r"[a]bc[^d]",  # one-character classes are literals
    r"[a-z0-9_]+\.md$",
    r"^\s*\d+\W",
    r"\bgfh\s+(done|accept)\b|\bgit\s+push\b",
    r"Straße|Kelvin",
    r"a\.b\-c\\d",
    r"[\.\-]x",
    r"\d\d|\d\s",
    r"(ab)+|(ab)+",
    r"a|",
    r"(a|)b",
    r"\bx\b|\by\b|\bz\b",
]
LEFT = [
    r"(?i)a",
    r"(?=a)b",
    r"(?<=a)b",
    r"(?P<n>a)",
    r"(a)\1",
    r"\n",
    r"\x41",
    r"a{,3}",
    r"a{3,1}",
    r"a{x}",
    r"a{}",
    r"a**",
    r"a*+",
    r"*a",
    r"\b+",
    r"a)",
    r"(a",
    r"()",
    r"[",
    r"[]a]",
    r"[a-]",
    r"[z-a]",
    r"[[a]",
    r"[a&&b]",
    r"[ab]x|[ab]y",  # classes the parser may find equal
    r"a{99999999}",
    r"\q",
    "\u00b2",
]


@pytest.mark.parametrize("pattern", READ)
def test_plain_patterns_are_read_as_the_parser_reads_them(pattern: str) -> None:
    assert _agree(pattern)


@pytest.mark.parametrize("pattern", LEFT)
def test_anything_else_is_left_to_the_parser(pattern: str) -> None:
    assert _plain(pattern) is False


_ATOMS = ["a", "b", "ab", "x", "é", " ", "-", "\\b", "\\s", "\\d", "\\.", ".", "^", "$", "[a]"]
_ATOMS += ["[ab]", "[a-c]", "[^a]", "[\\d]", "\\B", "\\W", "'", "#"]
_ODD = ["[", "]", "\\", "\\1", "{", "(?i)", "[z-a]", "{,2}", "**", "{3,1}", "*+"]
_QUANTS = ["", "", "", "", "*", "+", "?", "*?", "{2}", "{1,3}", "{2,}"]


@st.composite
def _pattern(draw: st.DrawFn, depth: int = 0) -> str:
    branches = []
    for _ in range(draw(st.integers(1, 3))):
        parts = []
        for _ in range(draw(st.integers(0, 4))):
            if depth < 2 and draw(st.integers(0, 5)) == 0:
                opener = draw(st.sampled_from(["(", "(?:", "(", "(?:", "(?="]))
                atom = opener + draw(_pattern(depth + 1)) + ")"
            else:
                odd = draw(st.integers(0, 15)) == 0
                atom = draw(st.sampled_from(_ODD if odd else _ATOMS))
            parts.append(atom + draw(st.sampled_from(_QUANTS)))
        branches.append("".join(parts))
    return "|".join(branches)


@given(_pattern())
@example(r"\ba\b|\bb\b")
def test_the_plain_reader_and_the_parser_agree(pattern: str) -> None:
    """If the reader reads a pattern, then it compiles and has the parser's literals."""
    event("read plainly" if _agree(pattern) else "left to the parser")


_FLAT_ATOMS = ["a", "b", "ab", "topic12", "Make", "x-y", " ", "#", "'", "\\b", "\\B", "\\A"]
_FLAT_ATOMS += ["\\Z", "\\s", "\\S", "\\d", "\\D", "\\w", "\\W", ".", "^", "$", "\\s+", "\\d*"]
_FLAT_ATOMS += [".*", ".+?", "\\w?", "\\s*?"]
_FLAT_ODD = ["\\.", "a?", "b+", "(a)", "[a]", "{2}", "é", "\\", "\\b+", "**", "\\s+*", "\\q", "\\|"]


@st.composite
def _flat_pattern(draw: st.DrawFn) -> str:
    branches = []
    for _ in range(draw(st.integers(1, 4))):
        parts = []
        for _ in range(draw(st.integers(0, 5))):
            odd = draw(st.integers(0, 12)) == 0
            parts.append(draw(st.sampled_from(_FLAT_ODD if odd else _FLAT_ATOMS)))
        branches.append("".join(parts))
    return "|".join(branches)


@given(_flat_pattern())
@example(r"\btopic0003\b|\brelease0003\b")
@example(r"\bmake\s+target3\b")
@example(r"\bab|\bac")
@example(r"\ba|\bb")
@example(r"\s|a")
@example(r"a|")
@example("")
def test_the_flat_prefilter_gives_the_readers_literals(pattern: str) -> None:
    """If the token-based prefilter reads a pattern, then the plain reader reads it too and
    their literals are the same (and so the parser's)."""
    flat = literals._flat_literals(pattern)
    if flat is literals._UNSURE:
        event("left to the plain reader")
        return
    event("read flat")
    assert _plain(pattern) == flat
    assert _agree(pattern)


@pytest.mark.parametrize("pattern", READ)
def test_the_flat_prefilter_agrees_on_the_plain_patterns(pattern: str) -> None:
    flat = literals._flat_literals(pattern)
    assert flat is literals._UNSURE or flat == _plain(pattern)


def test_the_benchmark_ways_regexes_are_flat() -> None:
    for pattern in (r"\btopic0001\b|\brelease0001\b", r"\bmake\s+target1\b", r"deploy|ship"):
        assert literals._flat_literals(pattern) == _plain(pattern) != ()
