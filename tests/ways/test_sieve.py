"""The sieve's words and runs are `\\w+`'s, with or without the regex."""

from __future__ import annotations

import re

from hypothesis import example, given
from hypothesis import strategies as st

from gitflow_harness.ways import sieve

WORD = re.compile(r"\w+")
TEXT = st.text(alphabet=st.sampled_from("ab_Z09 -+.\t\n/ßéK\u212a\u0661"), max_size=24)


@given(TEXT)
@example("pre-commit")
@example("c++")
@example("x_y-z")
@example("")
@example("Straße über")
def test_runs_are_the_runs_of_word_characters(needle: str) -> None:
    assert sieve.runs(needle) == WORD.findall(needle)


@given(TEXT)
@example("")
@example("_")
@example("a b")
@example("ß")
@example("x_y")
def test_one_run_is_a_whole_match_of_word_characters(needle: str) -> None:
    assert sieve.is_run(needle) == (WORD.fullmatch(needle) is not None)


@given(TEXT)
def test_words_are_the_set_of_runs(text: str) -> None:
    assert sieve.words(text) == set(WORD.findall(text))
