"""`gfh status` without Click: the same output, errors and exit codes as through Click."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from gitflow_harness.cli import flags
from gitflow_harness.cli.status import FLAGS
from gitflow_harness.errors import GfhError
from gitflow_harness.workspace import open_workspace
from tests.helpers import CliRunner, commit, diverge, git, same_both_ways, unmeasured_env, write
from tests.helpers import probe as run_probe

ARGS = [
    [],
    ["--json"],
    ["--end-turn"],
    ["--end-turn", "--json"],
    ["--json", "--end-turn", "--json"],
]


def label(value: object) -> str:
    return " ".join(value) if isinstance(value, list) else str(value)


@pytest.mark.parametrize(
    ("args", "given"),
    [
        ([], {"end_turn": False, "as_json": False}),
        (["--json"], {"end_turn": False, "as_json": True}),
        (["--end-turn", "--json"], {"end_turn": True, "as_json": True}),
        (["--end-turn", "--end-turn"], {"end_turn": True, "as_json": False}),
        (["--help"], None),
        (["--jso"], None),
        (["--json", "extra"], None),
        (["--"], None),
        (["-v"], None),
    ],
)
def test_only_the_flags_of_status_skip_click(args: list[str], given: dict[str, bool]) -> None:
    assert flags(args, FLAGS) == given


@pytest.mark.parametrize("args", ARGS, ids=label)
def test_a_clean_trunk_shows_the_same_either_way(
    repo: Path, gfh: CliRunner, args: list[str]
) -> None:
    result = same_both_ways(gfh, "status", *args)
    assert result.code == 0
    assert result.out.startswith("┌─ gfh") is ("--json" not in args)


@pytest.mark.parametrize("args", ARGS, ids=label)
def test_a_branch_behind_with_changes_shows_the_same_either_way(
    repo: Path, gfh: CliRunner, args: list[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("GFH_SESSION", "claude:both-paths")
    diverge(repo, "feature/x", {"a.txt": "a\n"}, {"t.txt": "t\n"})
    write(repo, "a.txt", "an edit\n")
    write(repo, "new.txt", "new\n")
    result = same_both_ways(gfh, "status", *args)
    assert "status-branch-behind" in result.out + result.err


def test_a_dirty_trunk_and_a_detached_head_show_the_same_either_way(
    repo: Path, gfh: CliRunner
) -> None:
    write(repo, "scratch.py", "x = 1\n")
    assert "status-trunk-dirty" in same_both_ways(gfh, "status").out
    git(repo, "switch", "-q", "--detach")
    commit(repo, "detached work", {"d.txt": "d\n"})
    assert "detached" in same_both_ways(gfh, "status", "--json").out


@pytest.mark.parametrize("args", [[], ["--json"]], ids=label)
def test_outside_a_repository_fails_the_same_either_way(
    tmp_path: Path, gfh: CliRunner, monkeypatch: pytest.MonkeyPatch, args: list[str]
) -> None:
    monkeypatch.chdir(tmp_path)
    result = same_both_ways(gfh, "status", *args)
    assert result.code == 2
    assert result.err.startswith("gfh: not a git repository")


@pytest.mark.parametrize("args", [["--end-turn"], ["--end-turn", "--json"]], ids=label)
def test_an_end_turn_that_cannot_be_recorded_fails_the_same_either_way(
    repo: Path, gfh: CliRunner, args: list[str]
) -> None:
    events = repo / ".git" / "gitflow-harness" / "events"
    events.parent.mkdir(parents=True)
    events.write_text("not a directory\n")
    result = same_both_ways(gfh, "status", *args)
    assert result.code == 1
    assert "┌─ gfh" not in result.out + result.err


@pytest.mark.parametrize(
    ("args", "code"),
    [
        (["status", "--bogus"], 2),
        (["status", "extra"], 2),
        (["status", "--jso"], 2),
        (["status", "--help"], 0),
        (["status", "-h"], 0),
        (["-v", "status"], 0),
    ],
    ids=label,
)
def test_what_the_fast_path_does_not_know_is_clicks(
    repo: Path, gfh: CliRunner, args: list[str], code: int
) -> None:
    result = same_both_ways(gfh, *args)
    assert result.code == code
    if code == 2:
        assert result.err.startswith("Usage: gfh status [OPTIONS]\n")


@pytest.mark.parametrize(
    ("args", "click"),
    [
        (["status"], False),
        (["status", "--json", "--end-turn"], False),
        (["status", "--bogus"], True),
    ],
    ids=label,
)
def test_only_what_the_fast_path_does_not_know_imports_click(
    repo: Path, args: list[str], click: bool
) -> None:
    said = _after_main(repo, args, "'click' in sys.modules")
    assert said == str(click)


def test_status_without_a_task_loads_no_openssl(repo: Path) -> None:
    """If no task is set, then nothing on the status path loads OpenSSL (`hashlib`, `hmac`):
    the tree identity's key and the caches use CPython's own SHA-256."""
    write(repo, "edit.txt", "an edit\n")
    said = _after_main(repo, ["status"], "code, '_hashlib' in sys.modules")
    assert said == "0 False"


def test_status_as_installed_loads_only_what_it_uses(repo: Path) -> None:
    """If `gfh status` runs as an install runs it (no editable-install finder loading modules at
    the interpreter's start: `-S`), then it loads no `contextlib`, `importlib`, `unicodedata`
    (the box's own characters are known narrow), git's reflog module, nor `pathlib` and what it
    imports (`re`, `enum`, `functools`, `collections`: 43M instructions, more than the
    interpreter's start): its paths are `str`; nor `types` and `contextvars` (2.1M), whose two
    names it uses come without them, nor `errno`, wanted only on the way to an error. (The first
    call of a configuration parses it, which needs them: the second is measured, as every call
    after it.)"""
    write(repo, "edit.txt", "an edit\n")
    root = Path(__file__).resolve().parents[2]
    unused = (
        *("contextlib", "importlib", "unicodedata", "gitflow_harness.git.history"),
        *("pathlib", "re", "enum", "functools", "collections", "fnmatch", "urllib"),
        *("types", "contextvars", "_contextvars", "errno"),
    )
    code = (
        f"import sys\nsys.path.insert(0, {str(root)!r})\nfrom gitflow_harness.main import main\n"
        f"code = main(['status'])\n"
        f"print(code, [m for m in {unused!r} if m in sys.modules], file=sys.stderr)\n"
    )
    for _ in range(2):
        proc = subprocess.run(
            [sys.executable, "-S", "-c", code],
            cwd=repo,
            capture_output=True,
            text=True,
            env=unmeasured_env(),
        )
    assert "┌─ gfh" in proc.stdout
    assert proc.stderr.splitlines()[-1] == "0 []"


def _after_main(repo: Path, args: list[str], question: str) -> str:
    """Run `main(args)` in a fresh interpreter in `repo`; return what `question` (Python,
    with `code` the exit code) printed after it."""
    probe = (
        "import sys\nfrom gitflow_harness.main import main\n"
        f"code = main({args!r})\nprint({question}, file=sys.stderr)\n"
    )
    return run_probe(probe, cwd=repo).stderr.splitlines()[-1]


@pytest.mark.parametrize("inside", [".git", ".git/refs", "nested bare"])
def test_inside_a_git_dir_status_refuses_as_git_says(
    repo: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, gfh: CliRunner, inside: str
) -> None:
    """The files above a git dir would name the worktree around it; git names the git dir:
    its refusal (or the bare repository's) is what status says."""
    if inside == "nested bare":
        git(repo, "init", "-q", "--bare", str(repo / "nested.git"))
        start = repo / "nested.git"
    else:
        start = repo / inside
    monkeypatch.chdir(start)
    with pytest.raises(GfhError) as found:
        open_workspace().repo.worktree()  # a bare repository has none
    result = same_both_ways(gfh, "status")
    assert result.code == 2
    assert result.err == f"gfh: {found.value.message}\n"


def test_in_a_removed_directory_status_says_so(
    repo: Path, monkeypatch: pytest.MonkeyPatch, gfh: CliRunner
) -> None:
    """A shell left in a worktree `gfh accept` removed: the line that says where to go."""
    gone = repo / "gone"
    gone.mkdir()
    monkeypatch.chdir(gone)
    gone.rmdir()
    result = gfh("status")
    assert result.code == 2
    assert result.err.startswith("gfh: the current directory no longer exists")


def test_a_configuration_cache_that_cannot_be_written_is_passed_by(
    repo: Path, gfh: CliRunner
) -> None:
    """Where the shared configuration cache cannot be written (a directory in its place),
    status reads the configuration as every other command does."""
    from gitflow_harness.hookcall.settings import cache_file

    found = cache_file(repo)
    assert found is not None
    path = Path(found)
    path.mkdir(parents=True)
    result = same_both_ways(gfh, "status", "--json")
    assert result.code == 0
    assert '"trunk": "main"' in result.out


def test_status_after_an_edit_builds_the_tree_in_process(repo: Path) -> None:
    """If a file was edited in a plain repository, then status names the tree git would
    write without asking git for it (`git.index_tree`: no temporary index, no `git add`);
    and a clean tree's identity (HEAD's tree) loads none of that."""
    probe = (
        "import sys, json\nimport gitflow_harness.git as g\n"
        "def asked(*a, **k): raise AssertionError('git add asked')\n"
        "g.tree_identity = asked\nfrom gitflow_harness.main import main\n"
        "code = main(['status', '--json'])\n"
        "print(code, 'gitflow_harness.git.index_tree' in sys.modules, file=sys.stderr)\n"
    )

    def run() -> tuple[str, str]:
        proc = run_probe(probe, cwd=repo)
        return proc.stderr.splitlines()[-1], json.loads(proc.stdout)["data"]["tree"]

    assert run() == ("0 False", git(repo, "rev-parse", "HEAD^{tree}").strip())
    write(repo, "edit.txt", "an edit\n")
    write(repo, "README.md", "changed\n")
    said, tree = run()
    assert said == "0 True"
    from gitflow_harness import git as gitflow_git

    assert tree == gitflow_git.tree_identity(gitflow_git.discover(repo))
