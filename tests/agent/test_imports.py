"""Every hook event of every host, warm, imports none of the heavy modules.

A host runs `gfh hook` on every event of a session, so what a warm call imports is paid again
and again. For each fixture payload of each host, a first process answers it (the session's
configuration and the ways index get cached, as after a session's first call), then a second
process answers it again and says which heavy module the call brought into `sys.modules`.
Both run the real entry point, `gitflow_harness.main.main`, in a real repository whose one way
fires on every lane, once without scripts and once with a macro and a postcheck.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from tests.agent import kit
from tests.helpers import unmeasured_env
from tests.ways.conftest import settle_tree

HOSTS = ("claude", "codex", "cursor")
HEAVY = (
    "click",
    "git",
    "yaml",
    "frontmatter",
    "typing",
    "dataclasses",
    "tempfile",
    "datetime",
    "shutil",
)
EVERY_LANE = (
    "when:\n"
    "  prompt: '.'\n"
    "  files: ['**']\n"
    "  commands: '.'\n"
    "  session_start: true\n"
    "roles: [reviewer]\n"
    "curve: {type: Flat, suppression: 0}\n"
)

# Runs in the hook's own interpreter: each call with its payload on stdin and its host's
# session variable set, as the host would; prints, per call, its exit code, whether its stderr
# reports an internal error, and the heavy modules the call imported.
PROBE = """
import io, json, os, sys
calls, heavy = json.loads(sys.stdin.read()), set(sys.argv[1].split(","))
from gitflow_harness.main import main
out = []
for event, stdin, env in calls:
    os.environ.update(env)
    before = set(sys.modules)
    sys.stdin, sys.stdout, sys.stderr = io.StringIO(stdin), io.StringIO(), io.StringIO()
    code = main(["hook", sys.argv[2], event])
    err = sys.stderr.getvalue()
    new = sorted(m for m in set(sys.modules) - before if m.split(".")[0] in heavy)
    out.append([event, code, "internal error" in err, new])
sys.__stdout__.write(json.dumps(out))
"""


# What each repository's ways run besides their text, and what else is heavy then: a call
# that starts no script starts git (SessionStart's `ensure`) without `subprocess`.
# setup -> (macro.sh, postcheck.sh) of the way, None for none; the modules heavy besides HEAVY.
SETUPS: dict[str, tuple[str | None, str | None, tuple[str, ...]]] = {
    "ways": (None, None, ("subprocess", "threading", "selectors")),
    "ways with scripts": ("echo from the macro\n", "exit 0\n", ()),
}
FIXTURES = [(host, path) for host, _, path in kit.fixture_files() if host in HOSTS]


def _call(host: str, path: Path, repo: Path) -> list[object]:
    data = kit.payload(host, path.name.removesuffix(".json"), repo)
    variable = kit.HOST_SESSION_VARIABLE.get(host)
    ident = data.get("session_id")
    env = {variable: ident} if variable and isinstance(ident, str) else {}
    return [path.name.split(".")[0], json.dumps(data), env]


def _probe(
    host: str, repo: Path, calls: list[list[object]], heavy: tuple[str, ...] = HEAVY
) -> list[list[object]]:
    return _answers([sys.executable, "-c", PROBE, ",".join(heavy), host], repo, calls)


def _answers(command: list[str], repo: Path, calls: list[list[object]]) -> list[list[object]]:
    """What a probe (`command`) printed of the `calls` it answered in `repo`."""
    proc = subprocess.run(
        command,
        cwd=repo,
        input=json.dumps(calls),
        capture_output=True,
        text=True,
        env=unmeasured_env(),
        check=False,
    )
    assert proc.returncode == 0, proc.stderr
    result: list[list[object]] = json.loads(proc.stdout)
    return result


def _cases() -> list[object]:
    return [
        pytest.param(setup, host, path, id=f"{setup}:{host}/{path.name.removesuffix('.json')}")
        for setup in SETUPS
        for host, path in FIXTURES
    ]


@pytest.mark.slow
@pytest.mark.parametrize(("setup", "host", "path"), _cases())
def test_a_warm_hook_call_imports_nothing_heavy(
    setup: str, host: str, path: Path, repo: Path
) -> None:
    macro, postcheck, heavy = SETUPS[setup]
    kit.way(repo, "everywhere", EVERY_LANE, macro=macro, postcheck=postcheck)
    settle_tree(repo / "hooks")
    call = _call(host, path, repo)
    cold = _probe(host, repo, [call])  # caches the configuration and the ways index
    warm = _probe(host, repo, [call], HEAVY + heavy)
    assert [internal for _, _, internal, _ in cold + warm] == [False, False]
    assert warm[0][3] == []


def test_every_host_has_its_fixtures() -> None:
    assert {host for host, _ in FIXTURES} == set(HOSTS)
    assert len(FIXTURES) >= 3 * 9


# An installed gfh starts with none of these; an editable install's finder imports them at
# every start, so only an interpreter without `site` shows what a call of its own adds: the
# first five (`pathlib` and what it imports) cost a hook call 43M instructions, more than the
# installed interpreter's start; `collections` 7.5M, `contextlib` 6M more; `types` 1.4M and
# `contextvars` 0.7M (`gitflow_harness.MappingProxyType`; `hints` makes its context variable
# for `gfh mcp` only); `errno`, which an event's append needs only on the way to an error, 0.2M.
AS_INSTALLED = (
    "pathlib", "re", "enum", "fnmatch", "urllib", "collections", "contextlib", "types",
    "contextvars", "_contextvars", "errno",
)  # fmt: skip
# What the probe's interpreter (-S: no `site`) starts with, gfh's dependencies on its path.
BARE_PROBE = """
import io, os, sys
sys.path[:0] = sys.argv[3].split(os.pathsep)
from gitflow_harness import jsonio
calls, heavy = jsonio.loads(sys.stdin.read()), set(sys.argv[1].split(","))
started = {m for m in sys.modules if m.split(".")[0] in heavy}
from gitflow_harness.main import main
out = []
for event, stdin, env in calls:
    os.environ.update(env)
    sys.stdin, sys.stdout, sys.stderr = io.StringIO(stdin), io.StringIO(), io.StringIO()
    code = main(["hook", sys.argv[2], event])
    err = sys.stderr.getvalue()
    new = sorted(m for m in sys.modules if m.split(".")[0] in heavy and m not in started)
    out.append([event, code, "internal error" in err, new])
sys.__stdout__.write(jsonio.dumps(out))
"""


def _bare_probe(
    host: str, repo: Path, calls: list[list[object]], heavy: tuple[str, ...] = ()
) -> list[list[object]]:
    import sysconfig

    root = Path(__file__).resolve().parents[2]
    paths = os.pathsep.join([str(root), sysconfig.get_paths()["purelib"]])
    named = ",".join(heavy or AS_INSTALLED)
    command = [sys.executable, "-S", "-c", BARE_PROBE, named, host, paths]
    return _answers(command, repo, calls)


@pytest.mark.slow
@pytest.mark.parametrize(("host", "path"), FIXTURES, ids=lambda v: getattr(v, "name", v))
def test_a_warm_call_as_installed_imports_no_pathlib_nor_re(
    host: str, path: Path, repo: Path
) -> None:
    """An installed interpreter starts without `pathlib`, `re` and `enum`: a warm call of
    every event imports none of them, its way firing on every lane (its regexes built from the
    code a first call kept, `ways/regexes.py`), SessionStart's `ensure` asking git of its tree."""
    kit.way(repo, "everywhere", EVERY_LANE)
    settle_tree(repo / "hooks")
    call = _call(host, path, repo)
    cold = _bare_probe(host, repo, [call])
    warm = _bare_probe(host, repo, [call])
    assert [internal for _, _, internal, _ in cold + warm] == [False, False]
    assert warm[0][3] == [], f"{call[0]} imports these as installed"


# What a call that parses a changed way may import as installed: `re` and what it brings, to
# check and read its regexes; none of these (49M instructions with `pathlib`'s own imports, more
# than the call). The cache it writes, the regexes' literals and the firing package's names
# take none.
AFTER_A_CHANGE = ("pathlib", "contextlib", "importlib", "warnings", "fnmatch", "urllib", "errno")


@pytest.mark.slow
@pytest.mark.parametrize("rewrite", ["edited in place", "changed by a pull"])
def test_the_first_call_after_a_way_changed_as_installed_imports_no_pathlib(
    rewrite: str, repo: Path
) -> None:
    """A way changed (its text, so its cache entry cannot serve): the call that finds it
    parses it and writes the caches; an interpreter without `site` shows what that adds."""
    kit.way(repo, "everywhere", EVERY_LANE)
    settle_tree(repo / "hooks")
    path = next(p for host, p in FIXTURES if host == "claude" and p.name.startswith("PostToolUse"))
    call = _call("claude", path, repo)
    _bare_probe("claude", repo, [call])  # the caches, as after a session's first call
    way = repo / "hooks" / "ways" / "everywhere" / "everywhere.md"
    text = way.read_text(encoding="utf-8").replace("Guidance of", "Changed guidance of")
    if rewrite == "edited in place":
        with open(way, "r+", encoding="utf-8") as file:
            file.write(text)
            file.truncate()
    else:  # as git checks a file out: a new file in its place
        way.unlink()
        way.write_text(text, encoding="utf-8")
    settle_tree(repo / "hooks")
    [(event, code, internal, new)] = _bare_probe("claude", repo, [call], AFTER_A_CHANGE)
    assert (code, internal) == (0, False)
    assert new == [], f"{event} after a way changed imports these as installed"
