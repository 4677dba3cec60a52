"""The plain-shape reader agrees with the YAML loaders on everything it accepts."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from hypothesis import event, example, given
from hypothesis import strategies as st

from gitflow_harness.store import documents as docs
from gitflow_harness.store import plainyaml


def _typed(value: Any) -> Any:
    """`value` with every scalar's type beside it (`True == 1 == 1.0` to Python, not to YAML)."""
    if isinstance(value, dict):
        return {k: _typed(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_typed(v) for v in value]
    return (type(value).__name__, value)


def _spans(fm: str, entries: list[tuple[str, int, int, int, int]]) -> list[docs.Span]:
    return [docs._span(fm, 4, k, s, e, line + 2) for _, line, k, s, e in entries]


def _agree(fm: str) -> bool:
    """Assert that `fm` reads the same both ways when the plain reader takes it; return whether
    it did."""
    plain = plainyaml.read(fm)
    if plain is None:
        return False
    loaded = docs._parse_yaml_loaded(fm, "x.md", 2)
    assert loaded is not None
    assert _typed(plain[0]) == _typed(loaded[0])
    assert [e[:2] for e in plain[1]] == [e[:2] for e in loaded[1]]
    assert _spans(fm, plain[1]) == _spans(fm, loaded[1])
    return True


ACCEPTED = [
    "description: Guidance number 3 for the benchmark\n",
    "a: plain words, with [brackets] and {braces}\nb: C# and 100% ok\n",
    "a: 'quoted: with # and '' inside'\nb: \"double # quoted\"  # and a comment\n",
    "a: [one, two words, 'three, four', \"five\"]\nb: []\nc: [ x ]\n",
    "n: 0\nm: -12\nf: 2.0\ng: -0.5\nt: true\nu: Off\nw: null\n",
    "when:\n  prompt: '\\btopic\\b'\n  keywords: [a, b]\n  session_start: yes\n",
    "curve:\n  type: Flat\n\n  # between\n  half_life: 500  # trailing\n\n# after\nx: 1\n",
    "scope:\n  - agent\n  - subagent  # note\nroles:\n    - 'a b'\n",
    "empty:\nnext: value\n",
    "empty:   # nothing here\n",
    "x-starter: false\nunicode: é and ünïcödé ✓\n",
    "a: yes please\nb: Yes\nc: yES\nd: nope\n",
    "a: b\n  # an indented comment\nc: d\n",
    "a: b\nb: c\na: again\n",
    "m:\n  k: 1\n  k: 2\n",
    "curve: {type: Exponential, half_life: 30000}\nb: {}\n",
    "steps: [[0, 1.0], [15000, 0.5], [ ], {a: [b, {c: 'd'}]}]\n",
    "a:\n  b:\n    c: d\n    e:\n      - f\n  g: [h]\ni: j\n",
    "a:\n  - [b, c]\n  - {d: e}\n",
]

REFUSED = [
    "",
    "\n",
    "# only a comment\n",
    "a: 010\n",  # octal to YAML 1.1
    "a: 1_000\n",
    "a: 2026-01-02\n",
    "a: 1:30\n",
    "a: .5\n",
    "a: .inf\n",
    "a: ~\n",
    "a: &x 1\nb: *x\n",
    "a: !!str 1\n",
    "a: |\n  text\n",
    "a: >\n  text\n",
    "a: one\n  two\n",
    "a: 'one\n  two'\n",
    'a: "esc\\n"\n',
    "a: [b,c]\n",
    "a: {b:c}\n",
    "a: {b: }\n",
    "a: {b: c,}\n",
    "a: {b: c, on: d}\n",
    "a: {b c: d}\n",
    "a: [" + "[" * 30 + "]" * 30 + "]\n",
    "a:\n  b:\n  - c\n",
    "a:\n    b: c\n  d: e\n",
    "a: [b, ]\n",
    "a: [b: c]\n",
    "a: [b\n",
    "a: b: c\n",
    "a: b:\n",
    "a:\n- b\n",
    "a:\n  - b\n  c: d\n",
    "a:\n  b: c\n d: e\n",
    "a:\n  -\n",
    "a:\n  - - b\n",
    "on: x\n",
    "a\tb: c\n",
    "a: b\r\n",
    "a: 'b'c\n",
    "a: 'b'#c\n",
    "? a\n: b\n",
    "a : b\n",
    "  a: b\n",
    "<<: {a: b}\n",
    "a: =\n",
    "a: -\n",
    "a: -x\n",
    "k" * 200 + ": v\n",
    "a: b\x85c\n",
    "a: 'unclosed\n",
    "a:\n  - \n",
    "a: {b: \n",
    "a:\n  b:\n      c: d\n    e: f\n",
    "".join(" " * i + f"k{i}:\n" for i in range(24)) + " " * 24 + "x: y\n",
]


@pytest.mark.parametrize("fm", ACCEPTED)
def test_the_plain_shapes_are_read_as_yaml_reads_them(fm: str) -> None:
    assert _agree(fm)


@pytest.mark.parametrize("fm", REFUSED)
def test_what_yaml_reads_otherwise_or_refuses_is_left_to_it(fm: str) -> None:
    assert plainyaml.read(fm) is None


def test_the_benchmark_ways_and_this_projects_own_are_plain() -> None:
    """If a way is written as ways are, then loading it reads no YAML (the reason for this)."""
    root = Path(__file__).resolve().parents[2] / "hooks" / "ways"
    files = sorted(root.rglob("*.md"))
    read = [f for f in files if f.name == f.parent.name + ".md"]
    assert read
    for file in read:
        text = file.read_text(encoding="utf-8")
        fm = text.split("---\n", 2)[1]
        assert _agree(fm), file


_WORDS = ["a", "b c", "yes", "No", "null", "on", "x-y", "C#", "é", "0", "7", "-3", "010", "1.5"]
_PIECES = [*_WORDS, "'q''t'", "'a: b'", '"d"', "[]", "[a, b]", "['x, y', 1, 2.0, true]"]
_PIECES += ["{}", "{a: b}", "{a: [1, 'x'], b: {c: d}}", "[[0, 1.0], [5, 0.5]]", "{a:b}"]
_PIECES += ["a #c", "a#c", "1_0", "2026-01-02", ".5", "~", "*x", "&x y", "[a,b]", "a: b", "-"]
_scalar = st.sampled_from(_PIECES)
_key = st.sampled_from(["a", "b", "key", "x-k", "on", "_k", "k2"])
_comment = st.sampled_from(["", "  # c", " #c"])
_noise = st.sampled_from(["", "\n", "# c\n", "  # c\n", "   \n", "      # deep\n"])


@st.composite
def _value(draw: st.DrawFn, indent: int) -> str:
    """The text after `key:` of a key indented `indent`: inline, a block one level in, or
    nothing."""
    kind = draw(st.sampled_from(["inline", "block", "null"] if indent < 6 else ["inline"]))
    if kind == "inline":
        return f" {draw(_scalar)}{draw(_comment)}\n"
    if kind == "null":
        return f"{draw(_comment)}\n"
    width = " " * (indent + draw(st.sampled_from([1, 2, 4])))
    count = draw(st.integers(1, 3))
    if draw(st.booleans()):
        body = "".join(
            f"{width}- {draw(_scalar)}{draw(_comment)}\n{draw(_noise)}" for _ in range(count)
        )
    else:
        body = "".join(
            f"{width}{draw(_key)}:{draw(_value(len(width)))}{draw(_noise)}" for _ in range(count)
        )
    return f"{draw(_comment)}\n{draw(_noise)}{body}"


_entry = st.tuples(_key, st.deferred(lambda: _value(0))).map(lambda t: f"{t[0]}:{t[1]}")


@given(st.lists(st.tuples(_entry, _noise), min_size=1, max_size=6))
@example([("when:\n  files: ['*.py', b]\n  prompt: 'x'\n", "\n"), ("n: 1\n", "")])
def test_the_plain_reader_and_the_yaml_loader_agree(parts: list[tuple[str, str]]) -> None:
    fm = "".join(entry + noise for entry, noise in parts)
    try:
        event("read plainly" if _agree(fm) else "left to YAML")
    except docs.DocumentError:
        # YAML refuses it (a duplicate is not one: YAML reads those): the reader must have too.
        assert plainyaml.read(fm) is None
