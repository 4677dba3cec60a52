"""Hermetic test environment: every test gets its own HOME, state dir and git identity."""

from __future__ import annotations

import os
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import cast

import freezegun
import freezegun.config
import pytest
import yaml
from freezegun.api import FakeDate, FakeDatetime
from hypothesis import settings

from tests.helpers import CliRunner, git, make_repo
from tests.precommit import store as precommit_store

# freezegun skips modules whose name starts with any ignored prefix, and its defaults include
# "gi" (PyGObject), which also matches "gitflow_harness": without this, time is never frozen.
# pytest's and xdist's own clocks stay real (`--durations` read 1.8e9 s under a frozen clock).
# Not all of `_pytest.`: freezegun also asks who calls, five frames up, and a test body's caller
# is `_pytest.python` — the test itself would then get the real time.
freezegun.configure(
    default_ignore_list=[m for m in freezegun.config.DEFAULT_IGNORE_LIST if m != "gi"]
    + ["gi.", "_pytest.timing", "pytest_", "xdist."]
)
# PyYAML finds representers by exact type. A frozen clock hands out freezegun's date subclasses,
# which a YAML module imported before the freeze cannot write: teach it (order-independent tests).
for _dumper in {
    yaml.representer.SafeRepresenter,
    yaml.SafeDumper,
    getattr(yaml, "CSafeDumper", None),
}:
    if _dumper is not None:
        _dumper.add_representer(FakeDate, yaml.representer.SafeRepresenter.represent_date)
        _dumper.add_representer(FakeDatetime, yaml.representer.SafeRepresenter.represent_datetime)
_KEEP_ENV = {"GIT_EXEC_PATH", "GIT_SSL_CAINFO", "GIT_SSL_NO_VERIFY"}
# Property tests run real code (regexes, files, git): how long an example takes depends on the
# machine's load, so Hypothesis's per-example deadline would only make them flaky.
settings.register_profile("gfh", deadline=None)
settings.load_profile("gfh")


# The real user's environment and gfh directories, read at import: before any test points
# HOME, the XDG directories and GFH_STATE_HOME elsewhere.
REAL_ENV = dict(os.environ)


def gfh_user_dirs() -> tuple[Path, ...]:
    """gfh's state, cache and config directories for the current environment, as the product
    computes them (platformdirs), and `$GFH_STATE_HOME` when it is set."""
    import platformdirs

    from gitflow_harness.store.state import APP

    dirs = {
        Path(platformdirs.user_state_dir(APP)),
        Path(platformdirs.user_cache_dir(APP)),
        Path(platformdirs.user_config_dir(APP)),
    }
    if os.environ.get("GFH_STATE_HOME"):
        dirs.add(Path(os.environ["GFH_STATE_HOME"]))
    return tuple(sorted(dirs))


REAL_DIRS = gfh_user_dirs()

# Operations that write, as Python's audit events name them, and which of their arguments are
# paths. Opening a file counts when its mode or flags write.
_WRITES = {
    "os.mkdir": (0,),
    "os.remove": (0,),
    "os.rmdir": (0,),
    "os.rename": (0, 1),
    "os.truncate": (0,),
    "os.symlink": (1,),
    "os.link": (1,),
    "os.chmod": (0,),
    "os.utime": (0,),
    "shutil.rmtree": (0,),
}
_WRITE_FLAGS = os.O_WRONLY | os.O_RDWR | os.O_CREAT | os.O_APPEND | os.O_TRUNC


def under(path: object, roots: tuple[Path, ...]) -> bool:
    """True when `path` (str, bytes or PathLike; relative to the current directory) is one of
    `roots` or inside one."""
    if isinstance(path, int) or path is None:
        return False  # a file descriptor: its opening was seen already
    try:
        full = Path(os.path.abspath(os.fsdecode(cast("str | bytes", path))))
    except (OSError, TypeError, ValueError):
        return False
    return any(full == root or root in full.parents for root in roots)


def writes_to(event: str, args: tuple[object, ...], roots: tuple[Path, ...]) -> bool:
    """Whether the audit event `event` writes to a path under `roots`."""
    if event == "open":
        path, mode, flags = args
        writing = (isinstance(mode, str) and any(c in mode for c in "wax+")) or (
            isinstance(flags, int) and bool(flags & _WRITE_FLAGS)
        )
        return writing and under(path, roots)
    return any(under(args[i], roots) for i in _WRITES.get(event, ()) if i < len(args))


# The tripwire: an audit hook sees every write this test process makes (in-process `gfh`
# runs included) and notes the ones into the real user's gfh directories. It sees only this
# process, so another program writing there (an agent's own hooks) cannot fail a test; the
# subprocesses tests start inherit the test's HOME and GFH_STATE_HOME.
_trespasses: list[str] = []


def _watch(event: str, args: tuple[object, ...]) -> None:
    if (event == "open" or event in _WRITES) and writes_to(event, args, REAL_DIRS):
        _trespasses.append(f"{event} {args[0]!r}")


sys.addaudithook(_watch)


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """Run the slow tests first: the workers share them out from the start, and the many quick
    ones even out the end, instead of one worker finishing a long test while the other idles."""
    items.sort(key=lambda item: item.get_closest_marker("slow") is None)


@pytest.fixture(scope="session")
def published() -> precommit_store.Published:
    """This checkout, committed in a repository of its own, for `repo:` hooks."""
    return precommit_store.publish()


@pytest.fixture(autouse=True)
def hermetic(
    tmp_path_factory: pytest.TempPathFactory, monkeypatch: pytest.MonkeyPatch
) -> Iterator[Path]:
    """Point HOME, XDG dirs, GFH_STATE_HOME and git's config at a fresh temporary home."""
    home = tmp_path_factory.mktemp("home")
    templates = home / "git-templates"
    templates.mkdir()
    gitconfig = home / ".gitconfig"
    gitconfig.write_text(
        "[user]\n\tname = Test Agent\n\temail = agent@example.invalid\n"
        "[init]\n\tdefaultBranch = main\n"
        "[advice]\n\tdetachedHead = false\n"
        "[commit]\n\tgpgsign = false\n",
        encoding="utf-8",
    )
    for name in list(os.environ):
        if name.startswith("GIT_") and name not in _KEEP_ENV:
            monkeypatch.delenv(name)
    # The session variables too, the hosts' own included: a suite run by an agent inherits them.
    for name in (
        "GFH_SESSION",
        "CLAUDE_CODE_SESSION_ID",
        "CODEX_SESSION_ID",
        "CODEX_THREAD_ID",
        "CLAUDECODE",
        "CLAUDE_ENV_FILE",
        "CLAUDE_PROJECT_DIR",
        "CURSOR_PROJECT_DIR",
        "CURSOR_VERSION",
        "PRE_COMMIT",
        "SKIP",
        # What else marks an agent's shell (workflow/protect.py): the tests say when they are one.
        "CODEX_CI",
        "CURSOR_AGENT",
    ):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("HOME", str(home))
    monkeypatch.setenv("GFH_STATE_HOME", str(home / "gfh-state"))
    for var, sub in (
        ("XDG_STATE_HOME", ".local/state"),
        ("XDG_CONFIG_HOME", ".config"),
        ("XDG_DATA_HOME", ".local/share"),
    ):
        monkeypatch.setenv(var, str(home / sub))
    # pre-commit's environments are expensive to build: every test and run shares one store
    # under the ignored .cache/ (tests/precommit/store.py).
    monkeypatch.setenv("PRE_COMMIT_HOME", str(precommit_store.HOME))
    monkeypatch.setenv("GIT_CONFIG_GLOBAL", str(gitconfig))
    monkeypatch.setenv("GIT_CONFIG_NOSYSTEM", "1")
    monkeypatch.setenv("GIT_TEMPLATE_DIR", str(templates))
    monkeypatch.setenv("GIT_AUTHOR_NAME", "Test Agent")
    monkeypatch.setenv("GIT_AUTHOR_EMAIL", "agent@example.invalid")
    monkeypatch.setenv("GIT_COMMITTER_NAME", "Test Agent")
    monkeypatch.setenv("GIT_COMMITTER_EMAIL", "agent@example.invalid")
    yield home
    found = list(_trespasses)
    _trespasses.clear()  # only the test that wrote fails
    assert not found, f"a test wrote to the real user's gfh directories: {found[:5]}"


@pytest.fixture
def repo(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A repository on `main` with one commit; the current directory is its top."""
    path = make_repo(tmp_path / "repo")
    monkeypatch.chdir(path)
    return path


@pytest.fixture
def gfh() -> CliRunner:
    """Run `gfh` in-process and capture exit code, stdout and stderr."""
    return CliRunner()


@pytest.fixture
def gfh_on_path(monkeypatch: pytest.MonkeyPatch) -> None:
    """Put this interpreter's `gfh` first on PATH: hooks run it by name, as a user's do."""
    monkeypatch.setenv("PATH", f"{Path(sys.executable).parent}{os.pathsep}{os.environ['PATH']}")


@pytest.fixture
def remote(repo: Path, tmp_path: Path) -> Path:
    """`repo` with a bare `origin` that has its main, fetched."""
    bare = tmp_path / "remote.git"
    git(tmp_path, "clone", "-q", "--bare", str(repo), str(bare))
    git(repo, "remote", "add", "origin", str(bare))
    git(repo, "fetch", "-q", "origin")
    return bare
