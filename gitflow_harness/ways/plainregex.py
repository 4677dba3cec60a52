"""The plain regexes of the lanes, read without Python's (pure-Python) regex parser.

Nearly every `prompt` and `commands` regex is words, `\\b`, `\\s+`, groups and alternatives.
Parsing 1000 of them with `re`'s parser costs more than a hook call may spend, so `parse`
reads exactly such patterns into the tree that parser gives, as far as `literals` looks at it
(an atom that is not a literal is kept only for what the parser compares it with). Each
pattern it reads compiles, so it needs no further check; anything else (other escapes, a
flag, a look-around, a back-reference, a class beyond letters, digits and ranges of them, a
quantifier or brace it is not sure of) makes it return None, and the parser reads it.
`tests/ways/test_plainregex.py` checks both agree on every pattern this reads.
"""

from __future__ import annotations

import re

TYPE_CHECKING = False  # no `typing` import at run time (see records.py)
if TYPE_CHECKING:
    from typing import Any

    Item = tuple[Any, Any]

_WORD = frozenset("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789")
# Characters that stand for themselves outside a class (no meaning to the parser, no warning).
_LITERAL = _WORD | frozenset(" _-/'\",:;=<>@!%&~`#")
# Characters that stand for themselves inside a class (no range, nested set or warning).
_IN_CLASS = _WORD | frozenset(" _./:,'\"+*?(){}$#@!%=<>;")
_PUNCTUATION = frozenset("!\"#$%&'()*+,-./:;<=>?@[\\]^_`{|}~ ")
CATEGORY = frozenset("dDsSwW")
AT_ESCAPE = frozenset("bBAZ")
# A run of characters that stand for themselves (also `literals`' flat patterns' tokens).
RUN = re.compile("[" + re.escape("".join(sorted(_LITERAL))) + "]+")
MAX_COUNT = 65535
MAX_NESTING = 20


class _Refused(Exception):
    """Not a pattern this module reads: the parser reads it."""


def parse(pattern: str, c: Any, categories: Any) -> list[Item] | None:
    """Return the parse tree of `pattern` (in `re._parser`'s shape, `c` its constants and
    `categories` its escapes' table) when it is plain, else None."""
    try:
        reader = _Reader(pattern, c, categories)
        tree = reader.alternation(0)
        if reader.i != len(pattern):
            raise _Refused  # an unbalanced `)`
    except _Refused:
        return None
    return tree


class _Class:
    """A character class of several items: never equal to another (the parser's may be)."""

    __slots__ = ()


class _Reader:
    def __init__(self, pattern: str, c: Any, categories: Any) -> None:
        self.p = pattern
        self.i = 0
        self.c = c
        self.categories = categories
        self.groups = 0

    def alternation(self, depth: int) -> list[Item]:
        if depth > MAX_NESTING:
            raise _Refused
        branches = [self.sequence(depth)]
        while self.p.startswith("|", self.i):
            self.i += 1
            branches.append(self.sequence(depth))
        if len(branches) == 1:
            return branches[0]
        return self.branch(branches)

    def branch(self, branches: list[list[Item]]) -> list[Item]:
        """The parser's alternation: common first items moved out, single characters made a
        class, else a BRANCH."""
        c = self.c
        out: list[Item] = []
        while all(branches):
            if any(type(b[0][1]) is _Class for b in branches):
                raise _Refused  # the parser compares classes by their items, not kept here
            first = branches[0][0]
            if first[0] in (c.SUBPATTERN, c.MAX_REPEAT, c.MIN_REPEAT):
                break  # each holds a subpattern of its own: never equal to another
            if any(b[0] != first for b in branches[1:]):
                break
            out.append(first)
            for b in branches:
                del b[0]
        if all(len(b) == 1 and _in_set(b[0], c) for b in branches):
            out.append((c.IN, _Class()))
        else:
            out.append((c.BRANCH, (None, branches)))
        return out

    def sequence(self, depth: int) -> list[Item]:
        items: list[Item] = []
        p = self.p
        literal = self.c.LITERAL
        while self.i < len(p) and p[self.i] not in "|)":
            if p[self.i] in "*+?{":
                self.repeat(items)
                continue
            run = RUN.match(p, self.i)
            if run is None:
                items.append(self.atom(depth))
                continue
            # A run of literal characters, each an item (a quantifier after it repeats the last).
            items.extend([(literal, ord(char)) for char in run.group()])
            self.i = run.end()
        # As the parser does last: a group that neither captures nor sets flags is spliced in.
        out: list[Item] = []
        for item in items:
            if item[0] is self.c.SUBPATTERN and item[1][0] is None:
                out.extend(item[1][3])
            else:
                out.append(item)
        return out

    def repeat(self, items: list[Item]) -> None:
        c, p = self.c, self.p
        head = p[self.i]
        if head == "{":
            end = p.find("}", self.i)
            low, comma, high = p[self.i + 1 : end].partition(",")
            if end < 0 or not _count(low) or (high and not _count(high)):
                raise _Refused  # a brace that is a literal, or `{,n}`
            lo = int(low)
            hi = int(high) if high else (c.MAXREPEAT if comma else lo)
            if lo > MAX_COUNT or (high and not lo <= hi <= MAX_COUNT):
                raise _Refused
            self.i = end + 1
        else:
            lo, hi = {"*": (0, c.MAXREPEAT), "+": (1, c.MAXREPEAT), "?": (0, 1)}[head]
            self.i += 1
        if not items or items[-1][0] in (c.AT, c.MAX_REPEAT, c.MIN_REPEAT):
            raise _Refused  # nothing to repeat, or a repeat repeated
        op = c.MAX_REPEAT
        if p.startswith("?", self.i):
            op = c.MIN_REPEAT
            self.i += 1
        if self.i < len(p) and p[self.i] in "*+?{":
            raise _Refused
        item = items[-1]
        sub = [item]
        if item[0] is c.SUBPATTERN and item[1][0] is None:
            sub = item[1][3]
        items[-1] = (op, (lo, hi, sub))

    def atom(self, depth: int) -> Item:
        c, p = self.c, self.p
        head = p[self.i]
        self.i += 1  # not a literal of `_LITERAL`: `sequence` reads those
        if head == "(":
            return self.group(depth)
        if head == "[":
            return self.char_class()
        if head == "\\":
            return self.escape()
        if head == ".":
            return (c.ANY, None)
        if head == "^":
            return (c.AT, c.AT_BEGINNING)
        if head == "$":
            return (c.AT, c.AT_END)
        if ord(head) >= 128 and head.isalpha():
            return (c.LITERAL, ord(head))
        raise _Refused

    def group(self, depth: int) -> Item:
        group: int | None = None
        if self.p.startswith("?:", self.i):
            self.i += 2
        elif self.p.startswith("?", self.i):
            raise _Refused  # flags, names, look-arounds, conditionals, comments
        else:
            self.groups += 1
            group = self.groups
        content = self.alternation(depth + 1)
        if not content or not self.p.startswith(")", self.i):
            raise _Refused
        self.i += 1
        return (self.c.SUBPATTERN, (group, 0, 0, content))

    def escape(self) -> Item:
        if self.i == len(self.p):
            raise _Refused
        char = self.p[self.i]
        self.i += 1
        if char in CATEGORY or char in AT_ESCAPE:
            return tuple(self.categories["\\" + char])
        if char in _PUNCTUATION:
            return (self.c.LITERAL, ord(char))
        raise _Refused

    def char_class(self) -> Item:
        c, p = self.c, self.p
        negate = p.startswith("^", self.i)
        self.i += negate
        literals: set[str] = set()
        other = False
        start = self.i
        while True:
            if self.i == len(p):
                raise _Refused
            char = p[self.i]
            if char == "]" and self.i > start:
                self.i += 1
                break
            self.i += 1
            if char == "\\" and self.i < len(p) and p[self.i] in CATEGORY:
                other = True
                self.i += 1
            elif char == "\\" and self.i < len(p) and p[self.i] in _PUNCTUATION:
                literals.add(p[self.i])
                self.i += 1
            elif char in _WORD and p.startswith("-", self.i):
                end = p[self.i + 1 : self.i + 2]
                if end not in _WORD or end < char:
                    raise _Refused
                other = True
                self.i += 2
            elif char in _IN_CLASS:
                literals.add(char)
            else:
                raise _Refused
        if len(literals) == 1 and not other:
            return (c.NOT_LITERAL if negate else c.LITERAL, ord(literals.pop()))
        return (c.IN, _Class()) if not negate else (c.NOT_LITERAL, _Class())


def _count(text: str) -> bool:
    return text.isascii() and text.isdigit() and len(text) <= 5


def _in_set(item: Item, c: Any) -> bool:
    """An item the parser folds into a character set with others: a literal, or a class or
    category that is not negated."""
    op, av = item
    if op is c.LITERAL:
        return True
    return op is c.IN and (type(av) is _Class or av[0][0] is not c.NEGATE)
