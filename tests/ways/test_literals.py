from __future__ import annotations

import re
from collections.abc import Callable

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from gitflow_harness.ways.literals import checked_literals, required_literals
from gitflow_harness.ways.match import fold

PATTERNS = [
    r"\bgit\s+(commit|push)\b",
    r"\bgfh\s+(done|accept)\b|\bgit\s+push\b",
    r"(?i)Deploy(ment)?s?",
    r"x{2,3}y+z*",
    r"colou?r",
    r"(?:foo|bar)baz",
    r"Straße|Kelvin",
    r"-X\s*importtime",
    r"(?x) a  b  c # spaced",
    r"[ab]cd(?=e)",
    r"(?P<w>ab)(?P=w)",
]


@pytest.mark.parametrize(
    ("pattern", "literals"),
    [
        (r"\bgit\s+(commit|push)\b", ("commit", "push")),
        (r"\bgfh\s+(done|accept)\b|\bgit\s+push\b", ("accept", "done", "push")),
        (r"colou?r", ("colo",)),
        (r"Ünïcode", ("code",)),
        (r".*", None),
        (r"commit|.*", None),
        (r"a?b?", None),
        (r"(", None),
    ],
)
def test_required_literals(pattern: str, literals: tuple[str, ...] | None) -> None:
    assert required_literals(pattern) == literals


@settings(
    max_examples=60, suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much]
)
@given(st.data())
def test_every_match_contains_a_required_literal(data: st.DataObject) -> None:
    """If a regex matches a text, then the text holds one of the literals: the prefilter never
    hides a real match, under IGNORECASE too."""
    pattern = data.draw(st.sampled_from(PATTERNS))
    text = data.draw(st.from_regex(re.compile(pattern), fullmatch=False))
    literals = required_literals(pattern)
    assert literals is not None
    assert any(lit in fold(text) for lit in literals)
    swapped = text.swapcase()
    if re.search(pattern, swapped, re.IGNORECASE):
        assert any(lit in fold(swapped) for lit in literals)


@pytest.mark.parametrize("text", ["ſuper", "KEY", "İNDEX", "ınfo"])
def test_fold_maps_non_ascii_case_equivalents_of_ascii_letters(text: str) -> None:
    pattern = {"ſuper": "super", "KEY": "key", "İNDEX": "index", "ınfo": "info"}[text]
    assert re.search(pattern, text, re.IGNORECASE)
    assert pattern in fold(text)


BAD = [
    "(unclosed",
    "a[b",
    "a)b",
    "*a",
    "a**",
    "\\",
    "(?P<1>x)",
    "(?P=missing)",
    "a{3,1}",
    "[z-a]",
    "(?<=a+)b",  # the compiler's, not the parser's: a look-behind's width must be fixed
    "(?<!a|bc)d",
    "a(?(1)b|c)",
    "x(?:(?<=a*)y)+",
    "((((((((((" * 6 + "(?<=a?)" + "))))))))))" * 6,  # nested past the walk
]


def _error(call: Callable[[], object]) -> tuple[str, int | None]:
    with pytest.raises(re.error) as info:
        call()
    return info.value.msg, info.value.pos


@pytest.mark.parametrize("pattern", BAD)
@pytest.mark.parametrize("flags", [0, re.IGNORECASE])
def test_a_regex_that_does_not_compile_is_refused_as_re_compile_refuses_it(
    pattern: str, flags: int
) -> None:
    """If `re.compile` refuses a pattern, then checking it raises the same error, at the same
    position, the compiler's own errors (a look-behind's width) included."""
    checked_literals.cache_clear()
    assert _error(lambda: checked_literals(pattern, flags)) == _error(
        lambda: re.compile(pattern, flags)
    )


@pytest.mark.parametrize("pattern", [*PATTERNS, r"(?<=ab)c", r"(?<!x)yz", r"(a)(?(1)b|c)", "x" * 3])
def test_a_regex_that_compiles_is_checked_once_with_its_literals(pattern: str) -> None:
    """If a pattern compiles, then checking it (with or without IGNORECASE) passes and gives the
    literals of `required_literals`."""
    re.compile(pattern)
    assert checked_literals(pattern, re.IGNORECASE) == required_literals(pattern)
    assert checked_literals(pattern) == required_literals(pattern)


def test_a_look_behind_of_a_fixed_width_is_compiled_and_keeps_its_literals() -> None:
    assert checked_literals(r"(?<=ab)cde") == ("cde",)
    assert required_literals(r"(?<=a+)cde") is None  # it does not compile
