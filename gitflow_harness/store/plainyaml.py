"""The plain shapes of a frontmatter, read without YAML.

Nearly every way, pill and request is written the same few ways: `key: value` lines whose
value is a plain or quoted scalar or a one-line `[flow, list]`, and keys whose value is a block
of such `key: value` lines or `- item` lines one level in. Importing PyYAML costs more than
reading 500 such files, so `read` reads exactly these shapes and nothing else: whatever it is
not sure YAML reads the same way (another indicator, an escape, a tag, an anchor, a tab or a CR,
a value over several lines, a scalar YAML 1.1 would read as a date, an octal or a sexagesimal
number) makes it return None, and the YAML loader reads the file as it always did.
`tests/store/test_plainyaml.py` checks that the two agree on every shape this accepts.
"""

from __future__ import annotations

import re

TYPE_CHECKING = False  # no `typing` import at run time (see records.py)
if TYPE_CHECKING:
    from typing import Any

    # (key, 0-based line of the key, index of the key, index where its value starts, where
    # it ends): the offsets a YAML node's marks give, for line surgery.
    Entry = tuple[str, int, int, int, int]

# Characters YAML does not read as they are: the controls (tab and CR among them) but the
# newline, NEL and the C1 controls, line and paragraph separators, surrogates, the BOM and the
# two non-characters (each of which YAML treats specially or refuses).
_UNSAFE = re.compile("[\x00-\x09\x0b-\x1f\x7f-\x9f\u2028\u2029\ud800-\udfff\ufeff\ufffe\uffff]")
_KEY = re.compile(r"([A-Za-z_][A-Za-z0-9_-]*):(?= |$)")
_INT = re.compile(r"-?(?:0|[1-9][0-9]*)")
_FLOAT = re.compile(r"-?[0-9]+\.[0-9]+")
# Plain scalars YAML 1.1 resolves to something other than a string, spelled as PyYAML's
# resolver spells them (any other case is a string).
_WORDS: dict[str, object] = {
    **dict.fromkeys(("yes", "Yes", "YES", "true", "True", "TRUE", "on", "On", "ON"), True),
    **dict.fromkeys(("no", "No", "NO", "false", "False", "FALSE", "off", "Off", "OFF"), False),
    **dict.fromkeys(("null", "Null", "NULL"), None),
}
# First characters of a plain scalar that is always a string (unless one of `_WORDS`): not an
# indicator, and none that starts a number, a date, `~`, `<<` or `=`.
_STRING_START = frozenset(
    "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ_/\\$^();"
    + "".join(chr(c) for c in range(0xC0, 0x250))
)
_NUMBER_START = frozenset("-0123456789")
_FLOW_KEY = re.compile(r"([A-Za-z_][A-Za-z0-9_-]*): ")
_FLOW_PLAIN = re.compile(r"[^,\]}]*")
_SPACES = re.compile(" *")
MAX_KEY = 128
MAX_DEPTH = 20  # YAML's loaders refuse past 100 levels; this reads far fewer


class _Refused(Exception):
    """Not a shape this module reads: the YAML loader reads it."""


def read(text: str) -> tuple[dict[str, Any], list[Entry]] | None:
    """Read a frontmatter (`text` ends with a newline) of the plain shapes; return its mapping
    and every top-level key's offsets (duplicates included, in order), or None."""
    if _UNSAFE.search(text) is not None:
        return None
    try:
        return _Reader(text).read()
    except _Refused:
        return None


class _Reader:
    """Block mappings and sequences by indentation, each value on its key's (or dash's) line
    but for nested blocks."""

    def __init__(self, text: str) -> None:
        self.lines = lines = text.split("\n")
        self.starts: list[int] = []
        at = 0
        for line in lines:
            self.starts.append(at)
            at += len(line) + 1
        # Each line's indentation, and whether it is blank or a comment (read once: every
        # line is looked at several times).
        self.indents = [len(line) - len(line.lstrip(" ")) for line in lines]
        self.skipped = [
            width == len(line) or line[width] == "#"
            for line, width in zip(lines, self.indents, strict=True)
        ]

    def read(self) -> tuple[dict[str, Any], list[Entry]]:
        data: dict[str, Any] = {}
        entries: list[Entry] = []
        i = self.content(0)
        while i < len(self.lines):
            line = self.lines[i]
            match = _KEY.match(line)
            if match is None:
                raise _Refused  # not `key: value` at the margin
            key = _key(match.group(1))
            value, after, start, end = self.value(i, match.end(), 0, 0)
            data[key] = value
            entries.append((key, i, self.starts[i], start, end))
            i = self.content(after)
        if not entries:
            raise _Refused  # an empty frontmatter: YAML reads it as nothing, not a mapping
        return data, entries

    def content(self, i: int) -> int:
        """Return the first line from `i` that is neither blank nor a comment."""
        skipped = self.skipped
        while i < len(skipped) and skipped[i]:
            i += 1
        return i

    def value(self, i: int, col: int, indent: int, depth: int) -> tuple[Any, int, int, int]:
        """Read the value after the colon at `lines[i][col]` of a key indented `indent`; return
        it, the line after it, and the offsets where it starts and ends."""
        line, at = self.lines[i], self.starts[i]
        rest = line[col:]
        if not _empty(rest):
            offset = col + _indent(rest)
            value, length = _inline(line, offset, 0)
            return value, self.after_inline(i + 1, indent), at + offset, at + offset + length
        first = self.content(i + 1)
        if first == len(self.lines) or self.indents[first] <= indent:
            if first < len(self.lines) and self.lines[first].startswith("-", indent):
                raise _Refused  # a sequence at the key's own indentation
            return None, i + 1, at + col, at + col  # null, marked where the colon ends
        return self.block(first, depth + 1)

    def after_inline(self, i: int, indent: int) -> int:
        """Return the next line after a one-line value; refuse a line indented past its key
        (the value goes on over several lines, or is an error)."""
        i = self.content(i)
        if i < len(self.lines) and self.indents[i] > indent:
            raise _Refused
        return i

    def block(self, first: int, depth: int) -> tuple[Any, int, int, int]:
        """Read the block mapping or sequence whose first line is `first`."""
        if depth > MAX_DEPTH:
            raise _Refused
        lines = self.lines
        width = self.indents[first]
        sequence = lines[first].startswith("-", width)
        items: list[Any] = []
        mapping: dict[str, Any] = {}
        i = last = first
        while i < len(lines):
            line = lines[i]
            indent = self.indents[i]
            if indent < width:
                break
            if indent > width:
                raise _Refused  # a value going on over several lines, or an error
            last = i
            if sequence:
                if not line.startswith("- ", width):
                    raise _Refused
                offset = width + 2 + _indent(line[width + 2 :])
                if offset == len(line):
                    raise _Refused  # an empty item, or a block under the dash
                items.append(_inline(line, offset, 0)[0])
                after = self.after_inline(i + 1, width)
            else:
                match = _KEY.match(line, width)
                if match is None:
                    raise _Refused
                key = _key(match.group(1))
                mapping[key], after, _, _ = self.value(i, match.end(), width, depth)
            last = max(last, self.last_content(after))
            i = self.content(after)
        end = self.starts[last] + len(lines[last]) + 1
        return (items if sequence else mapping), i, self.starts[first] + width, end

    def last_content(self, after: int) -> int:
        """Return the last line before `after` that is neither blank nor a comment."""
        i = after - 1
        while self.skipped[i]:
            i -= 1
        return i


def _empty(rest: str) -> bool:
    """Nothing after a key's colon but spaces and perhaps a comment."""
    stripped = rest.lstrip(" ")
    return not stripped or (stripped[0] == "#" and stripped is not rest)


def _key(name: str) -> str:
    if name in _WORDS or len(name) > MAX_KEY:
        raise _Refused  # `on:` is the key True to YAML 1.1; a long key is not a simple key
    return name


def _indent(line: str) -> int:
    return len(line) - len(line.lstrip(" "))


def _inline(line: str, at: int, depth: int) -> tuple[Any, int]:
    """Read the one-line value at `line[at:]` (a scalar or a flow collection), which must end
    the line but for a comment; return it and its length."""
    head = line[at]
    value: Any
    if head in "[{":
        value, end = _flow(line, at, depth)
    elif head in "'\"":
        value, end = _quoted(line, at)
    else:
        cut = line.find(" #", at)
        text = (line if cut < 0 else line[:cut]).rstrip(" ")[at:]
        if ": " in text or text.endswith(":"):
            raise _Refused
        return _plain(text), len(text)
    rest = line[end:]
    stripped = rest.lstrip(" ")
    if stripped and not (stripped[0] == "#" and stripped is not rest):
        raise _Refused  # more after the value than a comment
    return value, end - at


def _quoted(line: str, at: int) -> tuple[str, int]:
    """Read a quoted scalar starting at `line[at]`; return it and the index after it."""
    quote = line[at]
    if quote == '"':
        end = line.find('"', at + 1)
        if end < 0 or "\\" in line[at:end]:
            raise _Refused  # escapes, or a value over several lines
        return line[at + 1 : end], end + 1
    parts: list[str] = []
    j = at + 1
    while True:
        end = line.find("'", j)
        if end < 0:
            raise _Refused
        parts.append(line[j:end])
        if line.startswith("''", end):
            parts.append("'")
            j = end + 2
            continue
        return "".join(parts), end + 1


def _flow(line: str, at: int, depth: int) -> tuple[Any, int]:
    """Read the one-line flow list or mapping opening at `line[at]`; return it and the index
    after its closing bracket."""
    if depth > MAX_DEPTH:
        raise _Refused
    close = "]" if line[at] == "[" else "}"
    items: list[Any] = []
    mapping: dict[str, Any] = {}
    j = _skip(line, at + 1)
    if line.startswith(close, j):
        return (items if close == "]" else mapping), j + 1
    while True:
        if close == "]":
            value, j = _flow_item(line, j, depth)
            items.append(value)
        else:
            match = _FLOW_KEY.match(line, j)
            if match is None:
                raise _Refused
            key = _key(match.group(1))
            mapping[key], j = _flow_item(line, _skip(line, match.end()), depth)
        j = _skip(line, j)
        if line.startswith(close, j):
            return (items if close == "]" else mapping), j + 1
        if not line.startswith(", ", j):
            raise _Refused  # `a,b` and the end of the line: left to YAML
        j = _skip(line, j + 2)
        if j == len(line) or line[j] in "]}":
            raise _Refused  # a trailing comma


def _flow_item(line: str, j: int, depth: int) -> tuple[Any, int]:
    """Read one value inside a flow collection; return it and the index after it."""
    if j == len(line):
        raise _Refused
    head = line[j]
    if head in "[{":
        return _flow(line, j, depth + 1)
    if head in "'\"":
        return _quoted(line, j)
    stop = _FLOW_PLAIN.match(line, j).end()  # type: ignore[union-attr]  # it always matches
    text = line[j:stop].rstrip(" ")
    if not text or any(c in text for c in "[{#:"):
        raise _Refused
    return _plain(text), stop


def _skip(line: str, j: int) -> int:
    """Return the index of the first character from `j` that is not a space."""
    return _SPACES.match(line, j).end()  # type: ignore[union-attr]  # it always matches


def _plain(text: str) -> Any:
    """Resolve a plain scalar as YAML 1.1 does, or refuse it."""
    head = text[0]
    if head in _STRING_START:
        return _WORDS.get(text, text)
    if head in _NUMBER_START:
        if _INT.fullmatch(text):
            return int(text)
        if _FLOAT.fullmatch(text):
            return float(text)
    raise _Refused
