"""Where a markdown file's frontmatter ends: the fence scan alone, without YAML.

One definition for the document parser (`documents`) and for the hook path, which reads a way's
body on every fire and must not import YAML to find it. A frontmatter opens with a first line
`---` and closes at the next line `---` or `...` (trailing spaces and a CR allowed on both).
"""

from __future__ import annotations

OPEN = "---"
CLOSE = ("---", "...")
# Ways, pills and requests are a page of prose, not data. Here, not in `documents`: the ways
# index reads a file up to it before hashing it, without importing YAML.
MAX_DOCUMENT_BYTES = 512 * 1024


def opens(line: str) -> bool:
    """True when `line` (a file's first line) opens a frontmatter."""
    return line.rstrip("\r").rstrip() == OPEN


def closing(lines: list[str]) -> int | None:
    """Return the index of the line closing the frontmatter `lines[0]` opens, or None."""
    for i in range(1, len(lines)):
        if lines[i].rstrip("\r").rstrip() in CLOSE:
            return i
    return None


def split(text: str) -> tuple[str, str] | None:
    """Return `(frontmatter, body)` of `text` (without BOM), or None when it has no closed
    frontmatter. The frontmatter is the text between the fences; the body all after them."""
    lines = text.split("\n")
    if not opens(lines[0]):
        return None
    close = closing(lines)
    if close is None:
        return None
    start = len(lines[0]) + 1
    end = sum(len(line) + 1 for line in lines[:close])
    return text[start:end], text[end + len(lines[close]) + 1 :]


def body(text: str) -> str:
    """Return the markdown after the frontmatter (the whole text when there is none)."""
    parts = split(text)
    return text if parts is None else parts[1]
