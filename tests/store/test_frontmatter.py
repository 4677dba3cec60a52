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


def _by_lines(text: str) -> tuple[str, str, int] | None:
    """The fence scan line by line, as it was written first: `(frontmatter, body, line of the
    closing fence)`."""
    lines = text.split("\n")
    if not frontmatter.opens(lines[0]):
        return None
    for close in range(1, len(lines)):
        if lines[close].rstrip("\r").rstrip() in frontmatter.CLOSE:
            start = len(lines[0]) + 1
            end = sum(len(line) + 1 for line in lines[:close])
            return text[start:end], text[end + len(lines[close]) + 1 :], close
    return None


_LINES = ["---", "--- ", "---\r", "...", "... \r", "----", "--- x", "-- -", " ---", "a: 1", ""]
_LINES += ["body", "\u2028", "---\u00a0", "..", "x---"]


@given(st.lists(st.sampled_from(_LINES), max_size=8), st.sampled_from(["", "\n"]))
def test_the_fences_are_found_by_offsets_as_line_by_line(lines: list[str], end: str) -> None:
    """The offsets give the frontmatter, the body and the closing line the line-by-line scan
    gives, and the document parser agrees."""
    text = "\n".join(lines) + end
    expected = _by_lines(text)
    assert frontmatter.split(text) == (None if expected is None else expected[:2])
    if expected is None:
        with pytest.raises(DocumentError) as refused:
            parse_document(text, Path("x.md"))
        assert refused.value.problems[0].line == 1
        return
    try:
        doc = parse_document(text, Path("x.md"))
    except DocumentError:
        return  # YAML that does not parse: the fences were found
    assert (doc.body, doc.body_line) == (expected[1], expected[2] + 2)
    assert doc.newline == ("\r\n" if lines[0].endswith("\r") else "\n")
