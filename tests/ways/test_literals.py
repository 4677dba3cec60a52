from __future__ import annotations

import re

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from gitflow_harness.ways.literals import fold, required_literals

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
