"""The repository side of init: the configuration template and the starter ways."""

from __future__ import annotations

from pathlib import Path

import pytest

from gitflow_harness.errors import UsageError
from gitflow_harness.scaffold import project
from gitflow_harness.store.config import default_config, load_config
from tests.helpers import write


def test_the_config_template_parses_to_the_defaults(tmp_path: Path) -> None:
    write(tmp_path, project.CONFIG_FILE, project.config_template())
    assert load_config(tmp_path).as_dict() == default_config().as_dict()
    for key in ("budget_chars = 9000", "postcheck_timeout_s = 5.0", 'ways = "hooks/ways"'):
        assert f"# {key}" in project.config_template()


def make_starter(root: Path) -> Path:
    write(root, "branch-first/branch-first.md", "---\ndescription: Work on a branch\n---\nBody\n")
    write(root, "shared/big-files/big-files.md", "---\ndescription: 'Files past 500 lines'\n---\n")
    script = write(root, "shared/big-files/postcheck.sh", "exit 1\n")
    script.chmod(0o755)
    write(root, "notaway/readme.txt", "x")
    return root


def test_starter_ways_are_the_directories_holding_their_own_md(tmp_path: Path) -> None:
    found = project.starter_ways(make_starter(tmp_path / "starter"))
    assert sorted(found) == ["branch-first", "shared/big-files"]
    assert project.describe(found["shared/big-files"]) == "Files past 500 lines"
    files = list(project.way_files(found["shared/big-files"], "hooks/ways/shared/big-files"))
    assert files == [
        (
            "hooks/ways/shared/big-files/big-files.md",
            b"---\ndescription: 'Files past 500 lines'\n---\n",
            False,
        ),
        ("hooks/ways/shared/big-files/postcheck.sh", b"exit 1\n", True),
    ]


def test_a_way_marked_x_starter_false_is_not_offered(tmp_path: Path) -> None:
    root = make_starter(tmp_path / "starter")
    write(root, "own/own.md", "---\ndescription: Ours\nx-starter: false\n---\n")
    own2 = "\ufeff---\r\ndescription: Ours\r\nx-starter: No  # ours\r\n---\r\n"
    write(root, "own2/own2.md", own2)
    write(root, "own3/own3.md", "---\r\ndescription: Ours\r\nx-starter: off\r\n---\r\n")
    write(root, "kept/kept.md", "---\ndescription: Yours\nx-starter: true\n---\n")
    write(root, "body/body.md", "---\ndescription: Yours\n---\nx-starter: false\n")
    assert sorted(project.starter_ways(root)) == [
        "body",
        "branch-first",
        "kept",
        "shared/big-files",
    ]


def test_a_missing_starter_directory_offers_nothing(tmp_path: Path) -> None:
    assert project.starter_ways(tmp_path / "absent") == {}


def test_unknown_ways_are_refused_with_the_list(tmp_path: Path) -> None:
    found = project.starter_ways(make_starter(tmp_path / "starter"))
    with pytest.raises(
        UsageError, match="no starter way 'nope'; available: branch-first, shared/big-files"
    ):
        project.choose(found, ["nope"], every=False)
    assert project.choose(found, [], every=True) == ["branch-first", "shared/big-files"]
