"""The project's own set-up: what `make test`, `make test-fast` and CI run and enforce."""

from __future__ import annotations

import re
import tomllib

from tests.helpers import ROOT


def _recipe(target: str) -> str:
    """The commands of a Makefile target, continuation lines joined."""
    text = (ROOT / "Makefile").read_text(encoding="utf-8").replace("\\\n", " ")
    match = re.search(rf"^{re.escape(target)}:[^\n]*\n((?:\t[^\n]*\n)+)", text, re.MULTILINE)
    assert match, target
    return match.group(1)


def test_the_whole_suite_may_not_drop_below_the_coverage_floor() -> None:
    """If the suite's branch coverage fell under the floor, `make test` (and so CI) would fail:
    it measures the whole suite with coverage, which reads the floor from pyproject.toml."""
    coverage = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["tool"][
        "coverage"
    ]
    assert coverage["report"]["fail_under"] >= 93
    assert coverage["run"]["branch"] is True
    recipe = _recipe("test")
    assert "coverage run -m pytest" in recipe
    assert "coverage report" in recipe
    assert "fail-under" not in recipe  # the floor is pyproject's, in one place
    assert "make test" in (ROOT / ".ci" / "run").read_text(encoding="utf-8")


def test_the_quick_run_measures_no_coverage() -> None:
    """`make test-fast` skips the slow tests, so its coverage is partial: it must not measure
    it, or the floor would fail a run that is incomplete on purpose."""
    assert "--cov" not in _recipe("test-fast")


# The distribution that provides each import name the package uses.
_DISTRIBUTIONS = {
    "click": "click",
    "filelock": "filelock",
    "frontmatter": "python-frontmatter",
    "git": "GitPython",
    "mcp": "mcp",
    "mcp_types": "mcp-types",
    "orjson": "orjson",
    "msgspec": "msgspec",
    "anyio": "anyio",
    "platformdirs": "platformdirs",
    "yaml": "PyYAML",
}


def test_every_third_party_import_is_a_declared_dependency() -> None:
    """If the package imported a module no declared dependency provides, then an install that
    resolves only what is declared would fail at that import (PyYAML came only through
    python-frontmatter)."""
    import ast
    import sys

    imported: set[str] = set()
    for path in (ROOT / "gitflow_harness").rglob("*.py"):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Import):
                imported.update(alias.name.split(".")[0] for alias in node.names)
            elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
                imported.add(node.module.split(".")[0])
    third_party = {n for n in imported if n not in sys.stdlib_module_names} - {"gitflow_harness"}
    assert third_party <= set(_DISTRIBUTIONS), third_party - set(_DISTRIBUTIONS)
    declared = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"][
        "dependencies"
    ]
    names = {re.split(r"[<>=!~\[; ]", spec, maxsplit=1)[0].lower() for spec in declared}
    assert {_DISTRIBUTIONS[n].lower() for n in third_party} <= names


def test_the_suite_is_measured_once_per_process_and_combined_after_the_last() -> None:
    """If pytest-cov measured the run as well, then each xdist worker would be measured twice
    (coverage's subprocess patch starts it in every Python process) and pytest-cov would
    combine before the workers' own files were written: stray `.coverage.*` files and a
    warning. So coverage alone measures, subprocesses included, and combines at the end."""
    config = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))
    assert config["tool"]["coverage"]["run"]["patch"] == ["subprocess"]
    assert config["tool"]["coverage"]["run"]["parallel"] is True
    recipe = _recipe("test")
    assert "--cov" not in recipe
    assert recipe.index("coverage run") < recipe.index("coverage combine")
    assert recipe.index("coverage combine") < recipe.index("coverage report")
    assert not any("pytest-cov" in d for d in config["project"]["optional-dependencies"]["test"])
