from __future__ import annotations

import pytest

from gitflow_harness.firing import Exponential
from gitflow_harness.ways.match import (
    commands_lane,
    files_lane,
    glob_pattern,
    keywords_lane,
    magnitude,
    prompt_lane,
    prompt_magnitude,
    repo_relative,
    session_start_lane,
)
from gitflow_harness.ways.model import Lanes, Way


def _way(**lanes: object) -> Way:
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
    assert glob_pattern(glob).startswith("\\A")


def test_files_lane_matches_when_any_path_matches_any_glob() -> None:
    way = _way(files=("*.md", "src/**"))
    assert files_lane(way, ["a.txt", "./src/b.txt"]) == 1
    assert files_lane(way, ["a.txt", "b.txt"]) == 0
    assert files_lane(way, []) == 0


def test_commands_regex_is_case_sensitive() -> None:
    way = _way(commands=r"\bgit\s+commit\b")
    assert commands_lane(way, "cd x && git  commit -m y") == 1
    assert commands_lane(way, "GIT COMMIT") == 0


def test_magnitude_counts_the_lanes_that_matched() -> None:
    way = _way(prompt="deploy", keywords=("deploy",), files=("*.py",), commands="deploy")
    assert prompt_magnitude(way, "deploy now") == 2
    assert magnitude(way, prompt="deploy now") == 2
    assert magnitude(way, files=["a.py"], command="make deploy") == 2
    assert magnitude(way, prompt="nothing", files=["a.txt"], command="ls") == 0
    assert magnitude(_way(session_start=True), session_start=True) == 1
    assert session_start_lane(_way()) == 0


def test_repo_relative_paths() -> None:
    assert repo_relative("/repo/src/a.py", "/repo") == "src/a.py"
    assert repo_relative("src/../b.py", "/repo") == "b.py"
    assert repo_relative("/other/a.py", "/repo") is None
    assert repo_relative("/repository/a.py", "/repo") is None
    assert repo_relative("/repo", "/repo") is None
