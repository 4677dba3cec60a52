from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from gitflow_harness.firing import Exponential
from gitflow_harness.ways import sieve
from gitflow_harness.ways.literals import required_literals
from gitflow_harness.ways.match import (
    LONG_TEXT,
    Text,
    commands_lane,
    files_lane,
    files_possible,
    glob_match,
    keyword_in,
    keywords_lane,
    prompt_lane,
    prompt_magnitude,
    prompt_possible,
    roles_lane,
    session_start_lane,
)
from gitflow_harness.ways.model import Lanes, Way


def _way(**lanes: object) -> Way:
    for name in ("prompt", "commands"):
        if lanes.get(name):
            lanes[f"{name}_hints"] = required_literals(str(lanes[name]))
    return Way(
        id="w",
        file="/ways/w/w.md",
        description="d",
        lanes=Lanes(**lanes),  # type: ignore[arg-type]
        curve=Exponential(100),
    )


def test_prompt_regex_is_case_insensitive_and_searches_anywhere() -> None:
    way = _way(prompt=r"\bmerge\b")
    assert prompt_lane(way, "Please MERGE it") == 1
    assert prompt_lane(way, "emerged") == 0
    assert prompt_lane(_way(), "merge") == 0


def test_keywords_match_whole_words_and_phrases_in_any_case() -> None:
    way = _way(keywords=("commit message", "c++", "test"))
    assert keywords_lane(way, "Write a good Commit\n message") == 1
    assert keywords_lane(way, "port it to C++ today") == 1
    assert keywords_lane(way, "the tests pass") == 0
    assert keywords_lane(way, "a test passes") == 1
    assert keywords_lane(way, "commitment") == 0
    assert keywords_lane(_way(), "commit message") == 0


@pytest.mark.parametrize(
    ("glob", "matching", "not_matching"),
    [
        ("*.py", ["a.py", "src/deep/a.py"], ["a.pyc", "a.py/x"]),
        ("src/*.py", ["src/a.py"], ["src/x/a.py", "lib/src/a.py"]),
        ("src/**/*.py", ["src/a.py", "src/x/y/a.py"], ["a.py", "lib/src/a.py"]),
        ("**/test_*.py", ["test_a.py", "x/y/test_a.py"], ["x/a_test.py"]),
        ("docs/", ["docs/a.md", "docs/x/y.md"], ["docsx/a.md", "a/docs/b.md"]),
        ("/README.md", ["README.md"], ["sub/README.md"]),
        ("tests/[!_]*.py", ["tests/a.py"], ["tests/_a.py"]),
        ("file?.txt", ["file1.txt", "d/file2.txt"], ["file10.txt"]),
        ("a[b.txt", ["a[b.txt"], ["ab.txt"]),
        ("gitflow_harness/agent/**", ["gitflow_harness/agent/x/y.py"], ["gitflow_harness/a.py"]),
        ("**", ["a", "a/b/c"], []),
        ("src/**/test_*.py", ["src/test_a.py", "src/x/test_b.py"], ["src/x/b_test.py"]),
        ("[a-c]*.md", ["b.md", "x/a1.md"], ["d.md", "-.md"]),
        ("*.[!p]*", ["a.md"], ["a.py"]),
        ("a*b*c", ["abc", "aXbYc", "abbbc"], ["acb", "ab"]),
    ],
)
def test_file_globs_match_repo_relative_paths(
    glob: str, matching: list[str], not_matching: list[str]
) -> None:
    way = _way(files=(glob,))
    for path in matching:
        assert files_lane(way, [path]) == 1, (glob, path)
    for path in not_matching:
        assert files_lane(way, [path]) == 0, (glob, path)


@pytest.mark.parametrize(
    ("glob", "path"),
    [
        (g, p)
        for g in ("*.py", "src/*", "a?c", "[ab]x", "**/x", "*a*b")
        for p in ("a.py", "src/a.py", "abc", "bx", "x", "q/x", "zazb", "src/x/y.py")
    ],
)
def test_glob_match_agrees_with_fnmatch_on_single_segment_globs(glob: str, path: str) -> None:
    """If a glob has one segment, then matching it against a file name is fnmatch's job."""
    import fnmatch

    if "/" in glob:
        return
    name = path.rsplit("/", 1)[-1]
    assert glob_match(glob, path) == fnmatch.fnmatchcase(name, glob)


def test_files_lane_matches_when_any_path_matches_any_glob() -> None:
    way = _way(files=("*.md", "src/**"))
    assert files_lane(way, ["a.txt", "./src/b.txt"]) == 1
    assert files_lane(way, ["a.txt", "b.txt"]) == 0
    assert files_lane(way, []) == 0


def test_keyword_in_respects_word_edges_and_collapses_spacing() -> None:
    assert keyword_in("ship it", "OK, Ship\t  It!")
    assert not keyword_in("ship it", "ship items")
    assert not keyword_in("it", "bit")
    assert not keyword_in("it", "fix it_")
    assert keyword_in("gfh done", "ran gfh done.")
    assert not keyword_in("   ", "anything")


def test_commands_regex_is_case_sensitive() -> None:
    way = _way(commands=r"\bgit\s+commit\b")
    assert commands_lane(way, "cd x && git  commit -m y") == 1
    assert commands_lane(way, "GIT COMMIT") == 0


def test_the_prompt_magnitude_counts_prompt_and_keywords_apart() -> None:
    way = _way(prompt="deploy", keywords=("deploy",), files=("*.py",), commands="deploy")
    assert prompt_magnitude(way, "deploy now") == 2
    assert prompt_magnitude(_way(keywords=("deploy",)), "deploy now") == 1
    assert prompt_magnitude(way, "nothing") == 0
    assert session_start_lane(_way(session_start=True)) == 1
    assert session_start_lane(_way()) == 0


def test_roles_lane_matches_the_subagent_types_a_way_names() -> None:
    way = Way(
        id="w",
        file="/w.md",
        description="d",
        lanes=Lanes(),
        curve=Exponential(5),
        roles=("reviewer", "tester"),
    )
    assert roles_lane(way, "reviewer") == 1
    assert roles_lane(way, "implementer") == 0
    assert roles_lane(way, "tester") == 1


@pytest.mark.parametrize(
    "glob",
    [
        "src/module1/**/*.py",
        "docs/",
        "/README.md",
        "a//b",
        "./src/*.py",
        "src/a.py",
        "src/[ab]/x",
        "tests/?.py",
        "**/x",
        "*.py",
        "src/**",
    ],
)
def test_a_glob_told_apart_by_its_literal_start_agrees_with_the_full_match(glob: str) -> None:
    """If a path does not start with a glob's literal start, then it is refused uncompiled,
    and the answer is the one the compiled glob gives."""
    from gitflow_harness.ways import match as match_module

    paths = ["src/module1/a/b.py", "src/a.py", "docs/x.md", "docs", "README.md", "a/b", "a//b"]
    paths += ["src/a/x", "tests/1.py", "q/x", "x", "./src/a.py", "src\\a.py", "srcx/a.py"]
    for path in paths:
        match_module._GLOBS.pop(glob, None)
        normal = path.replace("\\", "/").removeprefix("./").split("/")
        full = match_module._match_segments(match_module._compile_glob(glob), 0, normal, 0)
        assert glob_match(glob, path) == full, (glob, path)


@pytest.mark.parametrize("needle", ["topic0417", "the", "zzzz", "tes", "docs folder", "s fol", "x"])
def test_a_long_text_is_searched_through_its_grams_as_plainly(needle: str) -> None:
    """If a text is long, then a needle is told apart by its first and last characters first,
    and the answer is `in`'s."""
    from gitflow_harness.ways.match import LONG_TEXT, contains

    text = ("Please check the docs folder and the tests for topic0417 " * 200)[: LONG_TEXT * 2]
    assert len(text) >= LONG_TEXT
    assert contains(text, needle) == (needle in text)
    assert contains(text[:100], needle) == (needle in text[:100])


# Characters that make word boundaries, spacing and case folding interesting: word characters
# of several kinds, spaces of several kinds, punctuation, and letters whose folding changes.
ALPHABET = "ab_1 \t\n.+-/ßſİıKé"


def _plain_keyword_in(keyword: str, text: str) -> bool:
    """The keyword rule as stated, searched without any prefilter."""
    needle = " ".join(keyword.casefold().split())
    haystack = " ".join(text.casefold().split())
    if not needle:
        return False
    for at in range(len(haystack) - len(needle) + 1):
        if haystack.startswith(needle, at):
            end = at + len(needle)
            before = at == 0 or not (haystack[at - 1].isalnum() or haystack[at - 1] == "_")
            after = end == len(haystack) or not (haystack[end].isalnum() or haystack[end] == "_")
            if before and after:
                return True
    return False


@st.composite
def _text_and_needle(draw: st.DrawFn) -> tuple[str, str]:
    text = draw(st.text(ALPHABET, max_size=40))
    if text and draw(st.booleans()):
        start = draw(st.integers(0, len(text) - 1))
        needle = text[start : start + draw(st.integers(1, 12))]
    else:
        needle = draw(st.text(ALPHABET, min_size=1, max_size=8))
    return text, needle


@settings(max_examples=400, deadline=None)
@given(_text_and_needle())
def test_keywords_match_as_the_rule_says_whatever_the_text(case: tuple[str, str]) -> None:
    text, keyword = case
    assert keyword_in(keyword, text) == _plain_keyword_in(keyword, text), case


@settings(max_examples=200, deadline=None)
@given(_text_and_needle(), st.booleans())
def test_a_needle_is_found_as_in_finds_it_in_a_short_or_long_text(
    case: tuple[str, str], long: bool
) -> None:
    from gitflow_harness.ways.match import LONG_TEXT, contains

    text, needle = case
    if long:
        text = "x" * LONG_TEXT + text  # past the bound: the grams decide first
    assert contains(text, needle) == (needle in text), case


@settings(max_examples=300, deadline=None)
@given(_text_and_needle(), st.booleans())
def test_a_literal_is_held_as_in_finds_it_in_the_folded_text(
    case: tuple[str, str], long: bool
) -> None:
    """Whether the literal is made of word characters or not, in a short or a long text."""
    from gitflow_harness.ways.match import LONG_TEXT, Text, fold

    text, needle = case
    if long:
        text = "x." * LONG_TEXT + text
    literal = fold(needle)
    searched = Text(text)
    assert searched.holds(literal) == (literal in fold(text)), case
    assert searched.holds(literal[::-1]) == (literal[::-1] in fold(text)), case  # sets kept


@settings(max_examples=300, deadline=None)
@given(st.text(alphabet=st.sampled_from("aZ9_ .-\u00e9\u0661\u2163"), max_size=8))
def test_a_needle_is_one_run_exactly_when_its_runs_are_itself(needle: str) -> None:
    from gitflow_harness.ways.match import _one_run, _runs

    assert _one_run(needle) == (_runs(needle) == [needle]), needle


@settings(max_examples=300)
@given(
    st.text(max_size=60)
    | st.text(alphabet=st.characters(max_codepoint=127), max_size=60)
    | st.lists(st.sampled_from(["ab", "c_d", "é", "9", " ", "-", "\t", "\x1f", "ß", "."])).map(
        "".join
    )
)
def test_a_texts_words_are_its_runs_of_word_characters(text: str) -> None:
    """If a text is split into words (by the ASCII fast path or the regex), then they are the
    runs of word characters the `\\w+` regex finds, no more and no fewer, in their order."""
    import re

    from gitflow_harness.ways.match import _runs, _words

    assert _words(text) == set(re.findall(r"\w+", text))
    assert _runs(text) == (re.findall(r"\w+", text) if not text.isalnum() else [text])


@settings(max_examples=300)
@given(
    st.text(max_size=60)
    | st.text(alphabet=st.characters(max_codepoint=127), max_size=60)
    | st.lists(
        st.sampled_from(["Ab", "C_d", "\u017f", "\u0130", " \t ", "-", "\n", "SS", "ß"])
    ).map("".join)
)
def test_a_texts_words_and_folding_are_those_of_its_normalised_text(text: str) -> None:
    """If a text is ASCII, its words are taken from its folded text instead of from its
    normalised one: the same set; any text folds as `translate` then `lower` fold it."""
    from gitflow_harness.ways.match import _FOLD, _words, fold
    from gitflow_harness.ways.sieve import normalise

    searched = Text(text)
    assert searched.words() == _words(normalise(text))
    assert searched.normalised() == normalise(text)
    assert fold(text) == text.translate(_FOLD).lower()


def _cached(way: Way) -> Way:
    """`way` as the index reads it back from its cache payload."""
    from gitflow_harness.ways.index import reparse

    payload = way.to_payload()
    return Way.from_payload(
        payload, id=way.id, file=way.file, has_macro=False, has_postcheck=False, repair=reparse
    )


_PATTERNS = [r"\bmerge\b", r"deploy|ship", r"^\s*fix", r"[a-z]+ing\b", r".", r"release\s+notes"]
_WORDS = ["merge", "Deploy", "ship", "fixing", "release", "notes", "C++", "ß", "x_y-z", "Straße"]


@settings(max_examples=300, deadline=None)
@given(
    st.one_of(st.none(), st.sampled_from(_PATTERNS)),
    st.lists(st.lists(st.sampled_from(_WORDS), min_size=1, max_size=2).map(" ".join), max_size=3),
    st.lists(st.sampled_from([*_WORDS, "merger", "shipped", "other"]), max_size=8),
    st.sampled_from([" ", "  ", "\n", ", ", "-"]),
    st.booleans(),
)
def test_a_way_the_sieve_passes_by_never_matches_the_prompt(
    pattern: str | None, keywords: list[str], said: list[str], sep: str, long: bool
) -> None:
    """If the sieve says a prompt cannot match a way's prompt lanes, then it does not (for a
    way just parsed and for one read back from its cache payload): the sieve only spares the
    matcher the ways it would have rejected."""
    from gitflow_harness.ways.match import prompt_possible

    way = _way(prompt=pattern, keywords=tuple(keywords))
    cached = _cached(way)
    prompt = sep.join(said)
    if long:
        prompt = "x. " * LONG_TEXT + prompt
    text = Text(prompt)
    for each in (way, cached):
        if not prompt_possible(each, text):
            assert prompt_magnitude(each, prompt) == 0, (pattern, keywords, prompt)
    assert cached.sieve() == way.sieve()


def test_the_sieve_passes_by_a_way_whose_literals_and_keywords_are_absent() -> None:
    """If none of the regex's literals and none of the keywords' words are in the prompt, then
    the sieve passes the way by; one of them present, and the matcher is asked."""
    from gitflow_harness.ways.match import prompt_possible

    way = _way(prompt=r"\bdeploy\b", keywords=("release notes",))
    assert not prompt_possible(way, Text("nothing to see"))
    assert prompt_possible(way, Text("we deploy today"))
    assert prompt_possible(way, Text("the notes of the release"))  # words there, not the phrase
    assert prompt_magnitude(way, "the notes of the release") == 0
    assert prompt_possible(_way(prompt=r"."), Text("anything"))  # no literal: the regex decides


_GLOBS = ["src/**/*.py", "*.md", "/docs/", "src/a?/x.py", "tests/[ab]*/t.py", "//odd/*", "src/"]
_PATHS = ["src/a/x.py", "src/ab/x.py", "./src/b.py", "docs\\a.md", "README.md", "tests/a1/t.py"]


@settings(max_examples=300, deadline=None)
@given(
    st.lists(st.sampled_from(_GLOBS), max_size=3),
    st.lists(st.sampled_from([*_PATHS, "other/x.py", "srcx/y.py", "docs"]), min_size=1, max_size=3),
)
def test_a_way_the_sieve_passes_by_never_matches_the_paths(
    globs: list[str], paths: list[str]
) -> None:
    """If the sieve says no path can match a way's `files` globs, then none does (for a way
    just parsed and for one read back from its cache payload)."""
    from gitflow_harness.ways.match import files_possible

    way = _way(files=tuple(globs))
    cached = _cached(way)
    for each in (way, cached):
        if not files_possible(each, paths):
            assert files_lane(each, paths) == 0, (globs, paths)
    assert not files_possible(_way(files=("src/**",)), ["docs/a.md"])
    assert files_possible(_way(files=("*.py",)), ["docs/a.md"])  # a bare name: any path


_SEGMENTS = st.sampled_from(["src", "docs", "lib", "s", "src2", ".github"])
_GLOB = st.one_of(
    st.sampled_from(["*.py", "README*", "docs", "**/*.md", "/top.md"]),
    st.builds(
        lambda a, b, tail: f"{a}/{b}{tail}",
        _SEGMENTS,
        st.sampled_from(["", "x", "x/y", "**"]),
        st.sampled_from(["", "/**", "/*.py", "*"]),
    ),
)
_PATH = st.builds(
    lambda parts: "/".join(parts),
    st.lists(st.sampled_from(["src", "docs", "x", "y", "a.py"]), min_size=1, max_size=4),
)
_WORDS = st.sampled_from(["deploy", "ship", "release", "notes", "merge", "the", "docs"])


@st.composite
def _ways(draw: st.DrawFn) -> list[Way]:
    ways = []
    for i in range(draw(st.integers(0, 8))):
        lanes: dict[str, object] = {}
        if draw(st.booleans()):
            lanes["files"] = tuple(draw(st.lists(_GLOB, max_size=3)))
        if draw(st.booleans()):
            lanes["keywords"] = tuple(draw(st.lists(_WORDS, max_size=2)))
        if draw(st.booleans()):
            lanes["prompt"] = draw(st.sampled_from([r"\bdeploy\b", "ship|release", r"\w+ing"]))
        lanes["session_start"] = draw(st.booleans())
        way = _way(**lanes)
        ways.append(
            Way(
                id=f"w{i}",
                file=way.file,
                description="d",
                lanes=way.lanes,
                curve=way.curve,
                has_postcheck=draw(st.booleans()),
            )
        )
    return ways


@settings(max_examples=300)
@given(
    _ways(),
    st.one_of(st.none(), st.lists(_WORDS, max_size=6).map(" ".join)),
    st.lists(_PATH, max_size=3),
    st.booleans(),
    st.booleans(),
)
def test_the_table_picks_exactly_the_ways_the_sieves_let_through(
    ways: list[Way], prompt: str | None, paths: list[str], start: bool, postcheck: bool
) -> None:
    """If a call asks the table of its ways' sieves, then the places it gets are those of the
    ways `prompt_possible` or `files_possible` lets through, or that have the lane it opens:
    every way the call can match, and no other the full pass would look at."""
    text = Text(prompt) if prompt is not None else None
    placed = [way if i % 3 else None for i, way in enumerate(ways)]  # some files did not load
    found = sieve.candidates(
        sieve.table(placed), text, paths, session_start=start, postcheck=postcheck
    )
    expected = {
        i
        for i, way in enumerate(placed)
        if way is not None
        and (
            (text is not None and prompt_possible(way, text))
            or (bool(paths) and files_possible(way, paths))
            or (start and way.session_start)
            or (postcheck and way.has_postcheck)
        )
    }
    assert found == expected


def test_a_table_of_another_format_answers_every_way() -> None:
    assert (
        sieve.candidates([0, [], {}, [], [], []], None, ["a"], session_start=True, postcheck=True)
        is None
    )
    assert sieve.candidates("damaged", None, [], session_start=False, postcheck=False) is None  # type: ignore[arg-type]
