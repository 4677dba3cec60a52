from __future__ import annotations

import os
from pathlib import Path

import pytest

from gitflow_harness import git
from gitflow_harness.ways.lint import lint
from tests.helpers import commit
from tests.ways.conftest import EXP, write_way

WHEN = "when: {keywords: [x]}\n"


def _tree(repo: Path) -> Path:
    """A ways tree in which every way has exactly one kind of problem."""
    root = repo / "hooks" / "ways"
    write_way(root, "ok", "description: Fine\n" + WHEN + EXP)
    write_way(root, "missing-curve", "description: D\n" + WHEN)
    write_way(root, "bad-curve", "description: D\n" + WHEN + "curve: Exponential\n")
    write_way(
        root,
        "half-life",
        "description: D\n" + WHEN + "curve:\n  type: Exponential\n  half_life: 0\n",
    )
    write_way(
        root,
        "staircase",
        "description: D\n" + WHEN + "curve:\n  type: ProgressiveStaircase\n"
        "  steps: [[0, 1.0], [500, 0.5], [400, 0.2]]\n",
    )
    write_way(root, "unknown", "description: D\n" + WHEN + EXP + "colour: red\nx-mine: ok\n")
    write_way(root, "legacy", "description: D\n" + WHEN + "redisclose: 15\n")
    write_way(root, "regex", "description: D\nwhen:\n  prompt: '(open'\n" + EXP)
    write_way(root, "no-trigger", "description: D\n" + EXP)
    write_way(root, "globs", "description: D\nwhen:\n  files: ['README.md', 'nothing/**']\n" + EXP)
    write_way(root, "macro-missing", "description: D\n" + WHEN + EXP + "macro: append\n")
    write_way(root, "empty", "description: D\n" + WHEN + EXP, body="\n")
    scripts = write_way(root, "scripts", "description: D\n" + EXP).parent
    (scripts / "postcheck.sh").write_text("#!/bin/sh\nexit 1\n")
    (scripts / "macro.sh").write_text("#!/bin/sh\necho hi\n")
    os.chmod(scripts / "postcheck.sh", 0o755)
    (root / "group" / "notes").mkdir(parents=True)
    (root / "group" / "notes" / "note.md").write_text("# meant as a way?\n")
    (root / "group" / "README.md").write_text("# about this group\n")
    return root


EXPECTED = [
    "bad-curve/bad-curve.md:4: error: curve: expected a mapping, got 'Exponential' (a string)",
    "empty/empty.md:6: warning: the body is empty and there is no macro.sh: nothing to inject",
    "globs/globs.md:4: warning: when.files: glob 'nothing/**' matches no file tracked by git",
    "group/notes/note.md:1: warning: not a way: a way is <dir>/<dir>.md, so this file is never "
    "loaded; rename it notes.md or move it into a directory named note",
    "half-life/half-life.md:6: error: curve: half_life: expected an integer from 1 to "
    "1000000000000, got 0",
    "legacy/legacy.md:4: error: redisclose is retired: run `gfh ways migrate` to turn it into a "
    "curve",
    "macro-missing/macro-missing.md:5: warning: macro: set, but there is no macro.sh beside the "
    "way",
    "missing-curve/missing-curve.md:1: error: missing required field 'curve'",
    "no-trigger/no-trigger.md:1: error: no trigger: add a `when:` lane (prompt, keywords, files, "
    "commands, session_start), `roles:`, or a postcheck.sh beside it",
    "regex/regex.md:4: error: when.prompt: regex '(open' does not compile: missing ), "
    "unterminated subpattern at position 0",
    "scripts/macro.sh:1: warning: macro.sh is not committed as a regular file (a new file, or a "
    "symlink); the hook runs only what HEAD holds: commit the script itself",
    "scripts/macro.sh:1: warning: macro.sh is not executable: the hook runs it with `sh`, "
    "ignoring its `#!` line; chmod +x macro.sh and commit it if it needs another interpreter",
    "scripts/postcheck.sh:1: warning: postcheck.sh is not committed as a regular file (a new "
    "file, or a symlink); the hook runs only what HEAD holds: commit the script itself",
    "staircase/staircase.md:6: error: curve: steps: deltas must strictly increase; step 3 (400) "
    "is not after step 2 (500)",
    "unknown/unknown.md:5: error: unknown field 'colour' in a way (known: description, when, "
    "curve, axis, scope, roles, macro; free-form fields start with 'x-')",
]


def _lines(report_problems: list[object], root: Path) -> list[str]:
    prefix = f"{root}/"
    return sorted(str(p).removeprefix(prefix) for p in report_problems)


def test_lint_reports_every_problem_with_file_and_line(repo: Path) -> None:
    root = _tree(repo)
    report = lint([], root=root, repo=git.discover(repo))
    assert _lines(report.problems, root) == EXPECTED
    assert report.files == 13
    assert (report.errors, report.warnings) == (8, 7)
    assert all(p.line is not None for p in report.problems)


def test_a_committed_postcheck_and_executable_macro_are_fine(repo: Path) -> None:
    root = _tree(repo)
    os.chmod(root / "scripts" / "macro.sh", 0o755)
    commit(repo, "add ways", {})
    report = lint([root / "scripts"], root=root, repo=git.discover(repo))
    assert (report.files, report.problems) == (1, [])


@pytest.mark.parametrize(
    ("text", "mode"),
    [
        ("#!/usr/bin/env python3\nprint('x')\n", 0o644),
        ("#!/usr/bin/env python3\nprint('x')\n", 0o755),
        ("echo x\n", 0o644),
        ("echo x\n", 0o755),
    ],
    ids=["shebang-not-executable", "shebang-executable", "bare-not-executable", "bare-executable"],
)
def test_lint_warns_exactly_when_the_hook_would_ignore_the_interpreter_line(
    repo: Path, text: str, mode: int
) -> None:
    """If lint warns about a script's mode, then the hook really runs it with `sh` although it
    names another interpreter — and lint is silent for every mode the hook runs as written."""
    from gitflow_harness.ways.scripts import script_argv

    root = repo / "hooks" / "ways"
    macro = write_way(root, "m", "description: D\n" + WHEN + EXP + "macro: append\n").parent
    script = macro / "macro.sh"
    script.write_text(text)
    script.chmod(mode)
    commit(repo, "way", {})
    report = lint([root / "m"], root=root, repo=git.discover(repo))
    argv = script_argv(script, script.read_bytes())
    ignored = text.startswith("#!") and argv[0] == "sh"
    expected = (
        [
            "m/macro.sh:1: warning: macro.sh is not executable: the hook runs it with `sh`, "
            "ignoring its `#!` line; chmod +x macro.sh and commit it if it needs another "
            "interpreter"
        ]
        if ignored
        else []
    )
    assert _lines(report.problems, root) == expected
    assert ignored == (mode == 0o644 and text.startswith("#!"))


def test_a_committed_script_with_uncommitted_changes_is_a_warning(repo: Path) -> None:
    """If a committed postcheck is edited, then lint says the hook will not run it until the
    change is committed (the hook runs only what HEAD holds)."""
    root = _tree(repo)
    os.chmod(root / "scripts" / "macro.sh", 0o755)
    commit(repo, "add ways", {})
    (root / "scripts" / "postcheck.sh").write_text("#!/bin/sh\nexit 0\n")
    report = lint([root / "scripts"], root=root, repo=git.discover(repo))
    assert _lines(report.problems, root) == [
        "scripts/postcheck.sh:1: warning: postcheck.sh is not byte for byte what HEAD holds (an "
        "uncommitted edit, or a checkout filter such as eol=crlf); the hook runs it only when it "
        "is: commit it, or drop the filter for it"
    ]


def test_a_committed_symlink_script_is_a_warning_as_the_hook_never_runs_it(repo: Path) -> None:
    """If a way's postcheck is a committed symlink, then lint says the hook will not run it."""
    root = _tree(repo)
    target = root / "scripts" / "postcheck.sh"
    real = repo / "tools" / "check.sh"
    real.parent.mkdir()
    real.write_text("#!/bin/sh\nexit 0\n")
    real.chmod(0o755)
    target.unlink()
    target.symlink_to(os.path.relpath(real, target.parent))
    os.chmod(root / "scripts" / "macro.sh", 0o755)
    commit(repo, "add ways", {})
    report = lint([root / "scripts"], root=root, repo=git.discover(repo))
    assert _lines(report.problems, root) == [
        "scripts/postcheck.sh:1: warning: postcheck.sh is not committed as a regular file (a new "
        "file, or a symlink); the hook runs only what HEAD holds: commit the script itself"
    ]


def test_lint_of_a_sibling_script_lints_its_way(repo: Path) -> None:
    root = _tree(repo)
    report = lint(
        [root / "legacy" / "legacy.md", root / "scripts" / "postcheck.sh"],
        root=root,
        repo=git.discover(repo),
    )
    assert report.files == 2
    assert [p.severity for p in report.problems] == ["error", "warning", "warning", "warning"]


def test_lint_of_a_missing_path_is_a_usage_error(repo: Path) -> None:
    from gitflow_harness.errors import UsageError

    with pytest.raises(UsageError, match="no such file"):
        lint([repo / "nope.md"], root=repo, repo=None)


def test_fix_removes_unknown_fields_and_keeps_every_other_byte(repo: Path) -> None:
    path = repo / "hooks" / "ways" / "a" / "a.md"
    path.parent.mkdir(parents=True)
    original = (
        "\ufeff---\r\n"
        "description: A way  # keep this comment\r\n"
        "colour: red\r\n"
        "when:\r\n"
        "  keywords: [x]\r\n"
        "tags:\r\n"
        "  - one\r\n"
        "  - two\r\n"
        "\r\n"
        "# a comment that stays\r\n"
        "curve: {type: Flat, suppression: 5}\r\n"
        "x-owner: me\r\n"
        "---\r\n"
        "Body with colour: red in it.\r\n"
    ).encode()
    path.write_bytes(original)
    report = lint([path], root=repo / "hooks" / "ways", repo=git.discover(repo), fix=True)
    assert report.fixed == [(str(path), "colour"), (str(path), "tags")]
    assert report.problems == []
    assert path.read_bytes() == original.replace(b"colour: red\r\n", b"", 1).replace(
        b"tags:\r\n  - one\r\n  - two\r\n", b""
    )


def test_fix_leaves_a_clean_file_untouched(repo: Path) -> None:
    path = write_way(repo / "hooks" / "ways", "a", "description: A\n" + WHEN + EXP)
    before = path.stat().st_mtime_ns, path.read_bytes()
    report = lint([path], root=repo / "hooks" / "ways", repo=None, fix=True)
    assert report.fixed == []
    assert (path.stat().st_mtime_ns, path.read_bytes()) == before


def test_lint_of_a_path_outside_the_ways_root_is_a_usage_error(repo: Path, tmp_path: Path) -> None:
    """Nothing outside the root is a way: saying "0 checked" would pass a misdirected hook."""
    from gitflow_harness.errors import UsageError

    root = repo / "hooks" / "ways"
    root.mkdir(parents=True)
    elsewhere = tmp_path / "notes.md"
    elsewhere.write_text("x\n")
    with pytest.raises(UsageError, match=r"notes.md: not under the ways root .*hooks/ways"):
        lint([elsewhere], root=root, repo=None)
