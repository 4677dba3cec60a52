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


def closing(text: str, start: int) -> tuple[int, int] | None:
    """Return where the line closing a frontmatter starts and where the line after it starts
    (past the text's end when it is the last), the frontmatter's first line starting at
    `start`; None when no line closes it. By offsets: the lines are not split."""
    at = start - 1  # the newline before the line at `start`
    while True:
        # A closing line starts with one of the fences (it may end in spaces and a CR).
        dashes, dots = text.find("\n---", at), text.find("\n...", at)
        if dashes < 0 and dots < 0:
            return None
        at = dots if dashes < 0 or 0 <= dots < dashes else dashes
        end = text.find("\n", at + 1)
        if end < 0:
            end = len(text)
        if text[at + 1 : end].rstrip("\r").rstrip() in CLOSE:
            return at + 1, end + 1
        at = end


def bounds(text: str) -> tuple[int, int, int] | None:
    """Return where a text's (without BOM) frontmatter starts, where its closing line starts
    and where the body after it starts; None when it has no closed frontmatter."""
    first = text.find("\n")
    if first < 0 or not opens(text[:first]):
        return None
    found = closing(text, first + 1)
    return None if found is None else (first + 1, *found)


def split(text: str) -> tuple[str, str] | None:
    """Return `(frontmatter, body)` of `text` (without BOM), or None when it has no closed
    frontmatter. The frontmatter is the text between the fences; the body all after them."""
    found = bounds(text)
    if found is None:
        return None
    start, close, body = found
    return text[start:close], text[body:]


def body(text: str) -> str:
    """Return the markdown after the frontmatter (the whole text when there is none)."""
    parts = split(text)
    return text if parts is None else parts[1]
