"""Insert members into a JSON document as text, keeping every other byte of it.

A host's settings file is the user's: re-dumping it would reflow their layout. This finds the
span of every object and array, and inserts a new member after a container's last member (or
into an empty one), indented like its siblings — or inline, in a container written on one line.
"""

from __future__ import annotations

import json
from typing import Any

_WS = " \t\r\n"


class Node:
    """The span of one JSON value: `text[start:end]`, and for containers their members."""

    __slots__ = ("end", "kind", "members", "start")

    def __init__(self, kind: str, start: int) -> None:
        self.kind = kind  # "object" | "array" | "scalar"
        self.start = start
        self.end = start
        # object: [(key, node)]; array: [(None, node)]
        self.members: list[tuple[str | None, Node]] = []

    def get(self, key: str) -> Node | None:
        for name, node in self.members:
            if name == key:
                return node
        return None


def parse(text: str) -> Node:
    """Return the span tree of a valid JSON document."""
    node, end = _value(text, _skip(text, 0))
    if _skip(text, end) != len(text):
        raise ValueError("trailing data after the JSON value")
    return node


def _skip(text: str, i: int) -> int:
    while i < len(text) and text[i] in _WS:
        i += 1
    return i


def _value(text: str, i: int) -> tuple[Node, int]:
    char = text[i]
    if char == "{":
        return _container(text, i, "object", "}")
    if char == "[":
        return _container(text, i, "array", "]")
    node = Node("scalar", i)
    if char == '"':
        node.end = _string_end(text, i)
    else:
        j = i
        while j < len(text) and text[j] not in _WS + ",]}":
            j += 1
        node.end = j
    return node, node.end


def _container(text: str, i: int, kind: str, closer: str) -> tuple[Node, int]:
    node = Node(kind, i)
    j = _skip(text, i + 1)
    while text[j] != closer:
        key = None
        if kind == "object":
            key_end = _string_end(text, j)
            key = json.loads(text[j:key_end])
            j = _skip(text, key_end)
            j = _skip(text, j + 1)  # the colon
        child, j = _value(text, j)
        node.members.append((key, child))
        j = _skip(text, j)
        if text[j] == ",":
            j = _skip(text, j + 1)
    node.end = j + 1
    return node, node.end


def _string_end(text: str, i: int) -> int:
    j = i + 1
    while text[j] != '"':
        j += 2 if text[j] == "\\" else 1
    return j + 1


class Editor:
    """Collects insertions into one document and applies them together."""

    def __init__(self, text: str) -> None:
        self.text = text
        self.unit = _indent_unit(text)
        self._inserts: dict[int, list[str]] = {}
        self._cuts: dict[int, int] = {}  # insertion point -> end of the text it replaces

    def add_member(self, container: Node, key: str | None, value: Any) -> None:
        """Append `"key": value` to an object (key None: `value` to an array)."""
        text = self.text
        closer = container.end - 1
        inline = "\n" not in text[container.start : container.end]
        rendered_key = "" if key is None else json.dumps(key, ensure_ascii=False) + ": "
        if container.members:
            last = container.members[-1][1]
            if inline:
                piece = ", " + rendered_key + _render(value, None, "")
            else:
                indent = _line_indent(text, last.start)
                piece = ",\n" + indent + rendered_key + _render(value, self.unit, indent)
            self._insert(last.end, piece)
        else:
            outer = _line_indent(text, container.start)
            if inline:
                piece = rendered_key + _render(value, None, "")
            else:
                indent = outer + self.unit
                piece = "\n" + indent + rendered_key + _render(value, self.unit, indent)
                # Empty but spread over lines: drop what stands between the brackets.
                self._replace(container.start + 1, closer, piece + "\n" + outer)
                return
            self._insert(closer, piece)

    def _insert(self, at: int, piece: str) -> None:
        self._inserts.setdefault(at, []).append(piece)

    def _replace(self, start: int, end: int, piece: str) -> None:
        self._inserts.setdefault(start, []).append(piece)
        self._cuts[start] = end

    def result(self) -> str:
        """Return the edited text."""
        cuts = self._cuts
        out = []
        last = 0
        for at in sorted(self._inserts):
            out.append(self.text[last:at])
            out.extend(self._inserts[at])
            last = cuts.get(at, at)
        out.append(self.text[last:])
        return "".join(out)


def add_missing(text: str, before: Any, after: Any) -> str | None:
    """Return `text` with what `after` adds to `before` (new keys, appended items) inserted.

    `after` may only add: keys to objects, items at the end of arrays. None when the result
    would not parse back to exactly `after` (the caller then writes the document afresh).
    """
    try:
        root = parse(text)
    except (ValueError, IndexError):
        return None
    editor = Editor(text)
    _walk(editor, root, before, after)
    result = editor.result()
    try:
        same = json.loads(result) == after
    except ValueError:
        same = False
    return result if same else None


def _walk(editor: Editor, node: Node, before: Any, after: Any) -> None:
    if node.kind == "object" and isinstance(before, dict) and isinstance(after, dict):
        for key, value in after.items():
            child = node.get(key)
            if key not in before or child is None:
                editor.add_member(node, key, value)
            else:
                _walk(editor, child, before[key], value)
    elif node.kind == "array" and isinstance(before, list) and isinstance(after, list):
        for (_, child), old, new in zip(node.members, before, after, strict=False):
            _walk(editor, child, old, new)
        for extra in after[len(before) :]:
            editor.add_member(node, None, extra)


def _render(value: Any, unit: str | None, indent: str) -> str:
    if unit is None:
        return json.dumps(value, ensure_ascii=False)
    text = json.dumps(value, indent=unit, ensure_ascii=False)
    return text.replace("\n", "\n" + indent)


def _line_indent(text: str, pos: int) -> str:
    start = text.rfind("\n", 0, pos) + 1
    line = text[start:pos]
    return line[: len(line) - len(line.lstrip(" \t"))]


def _indent_unit(text: str) -> str:
    for line in text.splitlines():
        stripped = line.lstrip(" \t")
        if stripped and len(stripped) < len(line) and stripped[0] in '"{[':
            return line[: len(line) - len(stripped)]
    return "  "
