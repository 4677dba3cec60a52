"""The fence scan shared by the document parser and the hook path."""

from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from gitflow_harness.store import frontmatter
from gitflow_harness.store.documents import DocumentError, parse_document


@pytest.mark.parametrize(
    ("text", "parts"),
    [
        ("---\na: 1\n---\nbody\n", ("a: 1\n", "body\n")),
        ("---\r\na: 1\r\n---\r\nbody\r\n", ("a: 1\r\n", "body\r\n")),
        ("---\na: 1\n...\nbody with --- inside\n---\n", ("a: 1\n", "body with --- inside\n---\n")),
        ("---\na: 1\n---", ("a: 1\n", "")),
        ("---  \na: 1\n---  \n\nbody\n", ("a: 1\n", "\nbody\n")),
        ("no frontmatter\n", None),
        ("---\nnever closed\n", None),
    ],
)
def test_split_finds_the_fences(text: str, parts: tuple[str, str] | None) -> None:
    assert frontmatter.split(text) == parts


@given(
    st.lists(
        st.sampled_from(["---", "---  ", "...", "a: 1", "", "body", "--- x", "\r"]), max_size=8
    ).map("\n".join)
)
def test_the_body_is_what_the_document_parser_finds(text: str) -> None:
    try:
        parsed = parse_document(text, Path("x.md")).body
    except DocumentError:
        return  # no frontmatter, or YAML that does not parse: the parser refuses the file
    assert frontmatter.body(text) == parsed


def test_without_a_frontmatter_the_body_is_the_whole_text() -> None:
    assert frontmatter.body("# Title\n") == "# Title\n"
