"""The plain-shape reader agrees with the YAML loaders on everything it accepts."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from hypothesis import event, example, given, settings
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


def _general(fm: str) -> tuple[dict[str, Any], list[tuple[str, int, int, int, int]]] | None:
    try:
        return plainyaml._Reader(fm).read()
    except plainyaml._Refused:
        return None


def _one_pass(fm: str) -> bool:
    """Assert that the one-pass reader gives what the general one gives wherever it reads
    `fm`; return whether it did."""
    try:
        flat = plainyaml._flat(fm)
    except plainyaml._Refused:  # pragma: no cover - it must say None, never raise
        raise AssertionError("the one-pass reader raised") from None
    if flat is None:
        return False
    general = _general(fm)
    assert general is not None
    assert _typed(flat[0]) == _typed(general[0])
    assert flat[1] == general[1]
    return True


_FLAT_SCALARS = [*_PIECES, "'a, b'", "'it''s'", "'x' y", '"a\\"b"', "'", '"', "''", '""']
_FLAT_SCALARS += ["[a,b]", "[a ,  b]", "[ 'x' , \"y\" ]", "[a, ]", "[,]", "[a'b, c]", "['a'b']"]
_FLAT_SCALARS += ["{a: 1, b: 'c, d'}", "{a:  b}", "{a: b: c}", "{a: }", "{on: x}", "{a b: c}"]
_FLAT_SCALARS += ["[[0, 1.0], [5, 0.5]]", "[a] # c", "x # c", "x  ", "[a]  ", "a:b", "b:", "-0"]
_FLAT_SCALARS += ["00", "1.", "1.5.2", "-1.25", "é", "²", "C:", "{a: [b]}", "[a: b]", "[a #b]"]
_FLAT_GOOD = ["a", "b c", "x-y", "0", "12", "-3", "1.5", "true", "'q: #'", '"d"', "[a, b]", "[]"]
_FLAT_GOOD += ["['x, y', 1, 2.0, true]", "{a: b}", "{type: Flat, n: 3}", "{}", "'src/**/*.py'"]
_flat_scalar = st.one_of(*[st.sampled_from(_FLAT_GOOD)] * 3, st.sampled_from(_FLAT_SCALARS))
_flat_space = st.sampled_from([""] * 12 + [" ", "  ", "#"])
_flat_key = st.sampled_from(["a", "b", "key", "x-k", "_k", "k2"] * 4 + ["on", "k" * 130])


@st.composite
def _flat_entry(draw: st.DrawFn) -> str:
    """A top-level key and its value: inline, or a block one level in (its lines alike, a
    few odd ones among them), with blank lines about."""
    key = draw(_flat_key)
    kind = draw(st.sampled_from(["inline", "inline", "mapping", "sequence", "null"]))
    if kind == "inline":
        return f"{key}: {draw(_flat_space)}{draw(_flat_scalar)}\n"
    if kind == "null":
        return f"{key}:{draw(st.sampled_from(['', '', ' ', '  # c']))}\n"
    width = draw(st.sampled_from([1, 2, 2, 4]))
    lines = []
    for _ in range(draw(st.integers(1, 4))):
        indent = " " * (width + draw(st.sampled_from([0] * 12 + [1, -1])))
        if kind == "sequence":
            line = f"{indent}-{draw(st.sampled_from([' '] * 6 + ['  ', '']))}{draw(_flat_scalar)}"
        else:
            line = f"{indent}{draw(_flat_key)}: {draw(_flat_space)}{draw(_flat_scalar)}"
        blank = draw(st.sampled_from(["", "", "", "", "", "\n", "\n\n", "   \n", "# c\n"]))
        lines.append(line + "\n" + blank)
    return f"{key}:\n" + "".join(lines)


@settings(max_examples=500)
@given(st.lists(_flat_entry(), min_size=0, max_size=5), st.sampled_from(["", "", "\n", " \n"]))
@example(
    [
        "description: Guidance number 3\n",
        "when:\n  prompt: '\\bx\\b'\n  keywords: [k3, phrase 3]\n  files: ['src/**', 'b']\n",
        "curve:\n  type: ProgressiveStaircase\n  steps: [[0, 1.0], [15000, 0.5]]\n",
    ],
    "",
)
def test_the_one_pass_reader_reads_as_the_general_one(parts: list[str], tail: str) -> None:
    """If the one-pass reader reads a frontmatter, then the general reader reads it the same:
    the same values, the same keys' lines and offsets; else the general one reads it."""
    fm = "".join(parts) + tail
    one_pass = _one_pass(fm)
    event("read in one pass" if one_pass else "left to the general reader")
    if one_pass:
        _agree(fm)


@pytest.mark.parametrize("fm", ACCEPTED)
def test_the_one_pass_reader_agrees_on_the_accepted_shapes(fm: str) -> None:
    _one_pass(fm)


def test_the_benchmark_ways_are_read_in_one_pass(tmp_path: Path) -> None:
    """The shapes the ways are written in are the ones the one-pass reader reads."""
    from bench.bench_ways import write_ways

    write_ways(tmp_path, 8)
    for file in sorted(tmp_path.rglob("*.md")):
        fm = file.read_text(encoding="utf-8").split("---\n", 2)[1]
        assert _one_pass(fm), file


@given(st.text(alphabet="-0123456789.e_+ab", max_size=8))
@example("-0")
@example("1.")
@example("007")
def test_numbers_are_read_as_the_yaml_patterns_say(text: str) -> None:
    """`_plain`'s integers and floats are those of `-?(?:0|[1-9][0-9]*)`, `-?[0-9]+\\.[0-9]+`."""
    import re

    if not text or text[0] not in "-0123456789":
        return
    try:
        value: Any = plainyaml._plain(text)
    except plainyaml._Refused:
        value = None
    if re.fullmatch(r"-?(?:0|[1-9][0-9]*)", text):
        assert _typed(value) == ("int", int(text))
    elif re.fullmatch(r"-?[0-9]+\.[0-9]+", text):
        assert _typed(value) == ("float", float(text))
    else:
        assert value is None


@given(st.text(max_size=12))
@example("a\u00a0b\n")
@example("a\tb\n")
@example("\u2028")
def test_the_unsafe_characters_are_found_whether_printable_or_not(text: str) -> None:
    """A text all printable but for its newlines holds no unsafe character; the others are
    searched."""
    import re

    unsafe = re.search(plainyaml.UNSAFE, text) is not None
    if text.replace("\n", " ").isprintable():
        assert not unsafe
    assert plainyaml._unsafe(text) is unsafe
