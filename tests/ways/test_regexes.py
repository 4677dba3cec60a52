"""Regexes built from kept code behave as `re.compile`'s, and a hook call needs no `re` for them."""

from __future__ import annotations

import marshal
import os
import re
import subprocess
import sys
import warnings
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from gitflow_harness.ways import regexes
from tests.helpers import unmeasured_env
from tests.ways.test_plainregex import LEFT, READ

# Some patterns are ones `re` warns of (a possible nested set): both compile them alike.
pytestmark = pytest.mark.filterwarnings("ignore::FutureWarning")

TEXTS = [
    "",
    "please git commit -m 'x' and git push origin main",
    "make target1 now; colour and color; Straße KELVIN \u212a",
    "abcabc xx yyy zzz 12 34 a.b-c\\d -X importtime",
    "x" * 50 + " topic0001 release0001",
]


def _compiles(pattern: str, flags: int = 0) -> bool:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", FutureWarning)
        try:
            re.compile(pattern, flags)
        except re.error:
            return False
    return True


PATTERNS = [
    *(p for p in READ + LEFT if _compiles(p)),
    r"(?P<verb>commit|push)\s+(?P<rest>\S+)?",
    r"(?i)deploy\b",
    r"(?<=git )push",
    r"\bv\d+\.\d+(?:\.\d+)?\b",
]


@pytest.fixture(autouse=True)
def _fresh(monkeypatch: pytest.MonkeyPatch) -> None:
    """Each test starts with no pattern built, kept or looked up in this process."""
    monkeypatch.setattr(regexes, "_BUILT", {})
    monkeypatch.setattr(regexes, "_new", {})
    monkeypatch.setattr(regexes, "_directory", {})


def _file(pattern: str, flags: int = 0) -> Path:
    path = regexes.cache_file((pattern, flags))
    assert path is not None
    return Path(path)


def _again() -> None:
    """As a later process: nothing built yet."""
    regexes._BUILT.clear()


def _same(built: re.Pattern[str], expected: re.Pattern[str], texts: list[str]) -> None:
    assert built.pattern == expected.pattern
    assert built.flags == expected.flags
    assert built.groups == expected.groups
    assert built.groupindex == expected.groupindex
    for text in texts:
        got, want = built.search(text), expected.search(text)
        assert (got and (got.span(), got.groups())) == (want and (want.span(), want.groups()))
        assert built.findall(text) == expected.findall(text)


def _rebuilt(pattern: str, flags: int) -> re.Pattern[str]:
    """The pattern as a later call builds it: from the kept code, `re` not asked."""
    _, code = regexes._compile(pattern, flags)
    assert code is not None
    code = marshal.loads(marshal.dumps(code))  # as it comes back from the file
    built: re.Pattern[str] = regexes._sre.compile(pattern, *code)
    return built


@pytest.mark.parametrize("flags", [0, re.IGNORECASE])
@pytest.mark.parametrize("pattern", PATTERNS)
def test_a_pattern_built_from_its_code_is_the_one_re_compiles(pattern: str, flags: int) -> None:
    _same(_rebuilt(pattern, flags), re.compile(pattern, flags), TEXTS)


_PIECES = ["a", "b", "git", "push", "\\b", "\\s+", "\\d", "[a-c]", "[^x]", ".", "(", ")", "|"]
_PIECES += ["*", "+", "?", "{1,2}", "é", "K", "(?:", "(?P<g>", "^", "$", " "]


@settings(max_examples=300)
@given(
    st.lists(st.sampled_from(_PIECES), max_size=10).map("".join),
    st.sampled_from([0, re.IGNORECASE]),
    st.lists(st.text(alphabet="abgitpushé K12 x\n", max_size=30), max_size=4),
)
def test_any_pattern_built_from_its_code_matches_as_re_does(
    pattern: str, flags: int, texts: list[str]
) -> None:
    if not _compiles(pattern, flags):
        with pytest.raises(re.error):
            regexes._compile(pattern, flags)
        return
    _same(_rebuilt(pattern, flags), re.compile(pattern, flags), [*texts, *TEXTS])


def test_a_pattern_is_compiled_once_kept_and_built_from_its_file_after(hermetic: Path) -> None:
    first = regexes.compiled(r"\bgit\s+push\b", 0)
    assert regexes.compiled(r"\bgit\s+push\b", 0) is first  # the process's own
    path = _file(r"\bgit\s+push\b")
    assert not path.exists()  # kept only when the call is done matching
    regexes.save()
    assert path.exists()
    assert path.stat().st_mode & 0o777 == 0o600
    _again()
    again = regexes.compiled(r"\bgit\s+push\b", 0)
    assert again is not first
    assert regexes._new == {}  # built from its file: nothing new to keep
    _same(again, re.compile(r"\bgit\s+push\b"), TEXTS)


def test_each_pattern_and_flags_has_a_file_of_its_own(hermetic: Path) -> None:
    for pattern, flags in [("ab", 0), ("ab", re.IGNORECASE), ("ab+", 0)]:
        regexes.compiled(pattern, flags)
    regexes.save()
    names = {_file("ab").name, _file("ab", re.IGNORECASE).name, _file("ab+").name}
    assert len(names) == 3
    assert all(name.startswith(regexes.PREFIX) for name in names)


def test_code_that_does_not_build_is_compiled_again(hermetic: Path) -> None:
    bad = {"ab+": (32, [1, 2, 3], 0, {}, (None,)), "cd": "not code"}
    for pattern, code in bad.items():
        _file(pattern).write_bytes(marshal.dumps((regexes._WRITER, pattern, 0, code)))
    _same(regexes.compiled("ab+", 0), re.compile("ab+"), ["xabbb", "a"])
    _same(regexes.compiled("cd", 0), re.compile("cd"), ["xcd"])
    regexes.save()  # the code that builds replaces what did not
    _again()
    regexes.compiled("ab+", 0)
    regexes.compiled("cd", 0)
    assert regexes._new == {}


@pytest.mark.parametrize(
    "content",
    [
        b"",
        b"\x00not marshal",
        marshal.dumps([1, 2]),
        marshal.dumps(((0, 0, 0, 0), "x+y", 0, (32, [], 0, {}, (None,)))),  # another interpreter's
        marshal.dumps((regexes._WRITER, "x+z", 0, (32, [], 0, {}, (None,)))),  # another pattern's
        marshal.dumps((regexes._WRITER, "x+y", 2, (32, [], 0, {}, (None,)))),  # other flags'
    ],
)
def test_a_damaged_or_foreign_file_is_no_file(hermetic: Path, content: bytes) -> None:
    _file("x+y").write_bytes(content)
    _same(regexes.compiled("x+y", 0), re.compile("x+y"), ["xxy"])
    assert ("x+y", 0) in regexes._new


def test_without_a_state_dir_nothing_is_kept(
    hermetic: Path, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    blocker = tmp_path / "state-is-a-file"
    blocker.write_text("")
    monkeypatch.setenv("GFH_STATE_HOME", str(blocker))
    _same(regexes.compiled("q+", 0), re.compile("q+"), ["qq"])
    regexes.save()  # passed by
    assert regexes._new == {}
    assert regexes.cache_file(("q+", 0)) is None


def test_an_unwritable_file_is_passed_by(hermetic: Path) -> None:
    regexes.compiled("w+", 0)
    regexes.compiled("v+", 0)
    _file("w+").mkdir()  # a directory where the file would go
    regexes.save()
    assert _file("w+").is_dir()
    assert _file("v+").is_file()  # the others are kept all the same


def test_the_index_pruning_removes_files_unwritten_for_a_month(hermetic: Path) -> None:
    from gitflow_harness.ways.index import KEEP_CACHE_S, prune_caches

    regexes.compiled("old", 0)
    regexes.compiled("new", 0)
    regexes.save()
    month_ago = _file("old").stat().st_mtime - KEEP_CACHE_S - 60
    os.utime(_file("old"), (month_ago, month_ago))
    prune_caches()
    assert not _file("old").exists()
    assert _file("new").exists()


def test_a_bad_pattern_raises_as_re_compile_does() -> None:
    with pytest.raises(re.error, match="missing"):
        regexes.compiled("(a", 0)


# A process of its own, as a hook call is: it builds from the kept file without `re`.
PROBE = """
import sys
from gitflow_harness.ways import regexes
found = regexes.compiled(sys.argv[1], 2).search(sys.argv[2])
regexes.save()
print(found.span() if found else None, "re" in sys.modules)
"""


def test_a_later_process_builds_the_pattern_without_importing_re(hermetic: Path) -> None:
    def run() -> str:
        # -S: no site, so nothing but the probe imports `re` (an editable install's finder does)
        env = {**unmeasured_env(), "PYTHONPATH": str(Path(__file__).resolve().parents[2])}
        command = [sys.executable, "-S", "-c", PROBE, r"\bgit\s+(push|pull)\b", "Git  PUSH"]
        proc = subprocess.run(command, capture_output=True, text=True, env=env, check=True)
        return proc.stdout.strip()

    assert run() == "(0, 9) True"  # compiled with `re`, and kept
    assert run() == "(0, 9) False"
