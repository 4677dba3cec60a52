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
# two non-characters (each of which YAML treats specially or refuses). None of them is
# printable (`str.isprintable`): the pattern, costly to compile, is searched only in a text
# that is not all printable but for its newlines.
UNSAFE = "[\x00-\x09\x0b-\x1f\x7f-\x9f\u2028\u2029\ud800-\udfff\ufeff\ufffe\uffff]"
_UNSAFE: list[re.Pattern[str]] = []  # compiled on first use
_KEY = re.compile(r"([A-Za-z_][A-Za-z0-9_-]*):(?= |$)")
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
    if not text.replace("\n", " ").isprintable() and _unsafe(text):
        return None
    try:
        return _flat(text) or _Reader(text).read()
    except _Refused:
        return None


def _unsafe(text: str) -> bool:
    """True when `text` holds a character of `UNSAFE`."""
    if not _UNSAFE:
        _UNSAFE.append(re.compile(UNSAFE))
    return _UNSAFE[0].search(text) is not None


def _flat(text: str) -> tuple[dict[str, Any], list[Entry]] | None:
    """Read the commonest frontmatter in one pass, as `_Reader` reads it: `key: value` lines at
    the margin, and keys whose value is a block of `key: value` or `- item` lines all indented
    alike, with blank lines between, each value one `_inline` reads. None when it is anything
    else (a comment, a space more, a nested block): `_Reader` reads it then."""
    data: dict[str, Any] = {}
    entries: list[Entry] = []
    lines = text.split("\n")
    if lines.pop():
        return None  # not a frontmatter's text, which ends with a newline
    at = 0  # where the line starts in the text
    # The top-level key whose block is read (None between blocks), its line, where it and its
    # colon's end are; the block's indentation (0 before its first line), its items or
    # mapping, where it starts and ends.
    key: str | None = None
    key_line = key_at = colon = width = start = end = 0
    items: list[Any] = []
    mapping: dict[str, Any] = {}
    sequence = False
    key_match = _KEY.match
    try:
        for i, line in enumerate(lines):
            if not line:
                at += 1
                continue
            head = line[0]
            if head == " ":
                if key is None:
                    return None  # a value going on over several lines, or an error
                indent = len(line) - len(line.lstrip(" "))
                if not width:
                    width, start = indent, at + indent
                    sequence = line.startswith("-", indent)
                    items, mapping = [], {}
                elif indent != width:
                    return None
                if sequence:
                    offset = width + 2
                    if not line.startswith("- ", width) or line[offset : offset + 1] in ("", " "):
                        return None
                    items.append(_value(line, offset)[0])
                else:
                    match = key_match(line, width)
                    if match is None:
                        return None
                    offset = match.end() + 1
                    if line[offset : offset + 1] in ("", " ", "#"):
                        return None  # a nested block, a null, a comment or a space more
                    mapping[_key(match.group(1))] = _value(line, offset)[0]
                end = at + len(line) + 1
            else:
                if key is not None:
                    value = items if sequence else mapping
                    _close(data, entries, key, key_line, key_at, colon, width, value, start, end)
                    key = None
                match = key_match(line)
                if match is None:
                    return None
                name = _key(match.group(1))
                colon = match.end()
                if colon == len(line):
                    key, key_line, key_at, width = name, i, at, 0
                else:
                    offset = colon + 1
                    if line[offset : offset + 1] in ("", " ", "#"):
                        return None  # a null, a comment or a space more
                    data[name], length = _value(line, offset)
                    entries.append((name, i, at, at + offset, at + offset + length))
            at += len(line) + 1
    except _Refused:
        return None
    if key is not None:
        value = items if sequence else mapping
        _close(data, entries, key, key_line, key_at, colon, width, value, start, end)
    return (data, entries) if entries else None


def _close(
    data: dict[str, Any],
    entries: list[Entry],
    key: str,
    line: int,
    at: int,
    colon: int,
    width: int,
    value: object,
    start: int,
    end: int,
) -> None:
    """Put a key whose value was a block (or nothing: a null) into `data` and `entries`."""
    if width:
        data[key] = value
        entries.append((key, line, at, start, end))
    else:
        data[key] = None
        entries.append((key, line, at, at + colon, at + colon))


def _value(line: str, at: int) -> tuple[Any, int]:
    """`_inline` of a value that ends its line (no comment after it), the plain scalars, the
    quoted ones and the flow lists and mappings of such scalars read in fewer steps."""
    head = line[at]
    if head == "'" or head == '"':
        end = line.find(head, at + 1)
        if end == len(line) - 1 and (head == "'" or "\\" not in line):
            return line[at + 1 : end], end + 1 - at
    elif head == "[" or head == "{":
        if line[-1] == ("]" if head == "[" else "}"):
            found = _flat_flow(line[at + 1 : -1], head == "[")
            if found is not None:
                return found, len(line) - at
    elif line[-1] != " " and line.find(" #", at) < 0:
        text = line[at:]
        if ": " in text or text[-1] == ":":
            raise _Refused
        return _plain(text), len(text)
    return _inline(line, at, 0)


def _flat_flow(inner: str, is_list: bool) -> list[Any] | dict[str, Any] | None:
    """The flow list (or mapping) of plain or quoted scalars within its brackets, `inner`, as
    `_flow` reads it; None when it holds anything else."""
    if "[" in inner or "]" in inner or "{" in inner or "}" in inner or "#" in inner:
        return None
    items: list[Any] = []
    mapping: dict[str, Any] = {}
    if not inner.strip(" "):
        return items if is_list else mapping
    for n, part in enumerate(inner.split(",")):
        if n and not part.startswith(" "):
            return None  # `a,b`: left to YAML
        if is_list:
            value = _flat_item(part.strip(" "))
            if value is _UNSURE:
                return None
            items.append(value)
        else:
            match = _KEY.match(part.lstrip(" "))
            text = part.lstrip(" ")
            if match is None or not text.startswith(" ", match.end()):
                return None
            value = _flat_item(text[match.end() :].strip(" "))
            if value is _UNSURE:
                return None
            mapping[_key(match.group(1))] = value
    return items if is_list else mapping


_UNSURE = object()


def _flat_item(text: str) -> Any:
    """A plain or quoted scalar, the whole of one item of a flow collection, or `_UNSURE`."""
    if not text:
        return _UNSURE  # an empty item, or a trailing comma
    head = text[0]
    if head == "'" or head == '"':
        if len(text) < 2 or text[-1] != head or head in text[1:-1]:
            return _UNSURE
        if head == '"' and "\\" in text:
            return _UNSURE
        return text[1:-1]
    if ":" in text:
        return _UNSURE
    return _plain(text)


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
    if head in _NUMBER_START and text.isascii():
        # `-?(?:0|[1-9][0-9]*)` (an integer) or `-?[0-9]+\.[0-9]+` (a float), spelt out.
        digits = text[1:] if head == "-" else text
        if digits.isdigit():
            if digits[0] != "0" or digits == "0":
                return int(text)
        else:
            whole, dot, fraction = digits.partition(".")
            if dot and whole.isdigit() and fraction.isdigit():
                return float(text)
    raise _Refused
