"""Setting out a command's modules from one file: what is run, when, and what is refused.

Each case runs in a process of its own (`probe`): the preloading changes `sys.modules`, which
this test process must keep as it is. A driver starts a command, imports what it is told,
reports what it found, and finishes the command as `main.end` does.
"""

from __future__ import annotations

import json
import marshal
import os
import subprocess
import sys
import time
from pathlib import Path

import pytest

import gitflow_harness
from gitflow_harness import preload
from tests.agent import kit
from tests.helpers import make_repo, probe, unmeasured_env

PACKAGE_DIR = Path(gitflow_harness.__file__).parent
COMMAND = "hook claude PostToolUse"

DRIVER = """
import json, sys
from gitflow_harness import preload
preload.start(sys.argv[1].split())
def unrun():
    return sorted(n for n, m in sys.modules.items() if type(m).__name__ == "_Unrun")
set_out = unrun()
failed = []
for name in filter(None, sys.argv[2].split(",")):
    try:
        __import__(name)
        vars(sys.modules[name])  # a use: its code runs
    except RuntimeError as exc:
        failed.append([name, str(exc), name in sys.modules])
found = {}
for name in filter(None, sys.argv[2].split(",")):
    module = sys.modules.get(name)
    if module is None:
        continue
    spec = module.__spec__
    found[name] = [type(module).__name__, type(spec.loader).__name__, spec.origin,
                   module.__file__, module.__package__, getattr(module, "__path__", None)]
print(json.dumps({"path": preload._path, "set_out": set_out, "left": unrun(),
                  "found": found, "failed": failed}))
preload.finish()
"""


def drive(*modules: str, command: str = COMMAND) -> dict[str, object]:
    done = probe(DRIVER.replace("sys.argv[1]", repr(command)).replace(
        "sys.argv[2]", repr(",".join(modules))), check=True)  # fmt: skip
    result: dict[str, object] = json.loads(done.stdout)
    return result


def entries(path: str) -> dict[str, tuple[object, ...]]:
    _version, _magic, _package, found = preload.unpack(Path(path).read_bytes())
    return {entry[0]: (*entry[:5], bytes(entry[5])) for entry in found}


def rewrite(path: str, change: object) -> None:
    """Write the file again with `change(entries)` applied."""
    found = tuple(entries(path).values())
    Path(path).write_bytes(preload.pack(change(found)))  # type: ignore[operator]


def header(data: bytes, version: object, magic: object, package: object) -> bytes:
    """`data`, a file's bytes, with another version, magic number or package directory."""
    _, _, _, found = preload.unpack(data)
    table = tuple((*e[:5], len(e[5])) for e in found)
    head = marshal.dumps((version, magic, package, table))
    return b"".join((len(head).to_bytes(preload.HEADER, "little"), head, *(e[5] for e in found)))


def test_a_second_run_sets_out_what_the_first_imported(hermetic: Path) -> None:
    first = drive("gitflow_harness.store.fsutil")
    assert first["set_out"] == []
    path = str(first["path"])
    assert Path(path).parent == hermetic / "gfh-state" / "preload"
    assert "gitflow_harness.store.fsutil" in entries(path)
    assert "gitflow_harness.errors" in entries(path)  # what fsutil imports, too

    second = drive("gitflow_harness.store.fsutil")
    assert "gitflow_harness.store.fsutil" in second["set_out"]  # type: ignore[operator]
    kind, loader, origin, file, package, path_ = second["found"]["gitflow_harness.store.fsutil"]  # type: ignore[index]
    assert (kind, loader, package, path_) == (
        "module",
        "SourceFileLoader",
        "gitflow_harness.store",
        None,
    )
    assert origin == file == str(PACKAGE_DIR / "store" / "fsutil.py")
    assert "gitflow_harness.store.fsutil" not in second["left"]  # type: ignore[operator]
    assert "gitflow_harness.errors" not in second["left"]  # fsutil's import ran it

    nothing = drive()  # set out, never looked into: never run
    assert nothing["left"] == nothing["set_out"] == second["set_out"]
    assert os.stat(path).st_mode & 0o777 == 0o600
    assert os.stat(Path(path).parent).st_mode & 0o777 == 0o700


def test_a_file_unchanged_is_not_written_again(hermetic: Path) -> None:
    path = str(drive("gitflow_harness.store.fsutil")["path"])
    before = os.stat(path).st_mtime_ns
    time.sleep(0.01)
    drive("gitflow_harness.store.fsutil")
    assert os.stat(path).st_mtime_ns == before


def test_modules_the_file_lacks_are_added(hermetic: Path) -> None:
    path = str(drive("gitflow_harness.store.fsutil")["path"])
    drive("gitflow_harness.store.fsutil", "gitflow_harness.jsonio")
    assert {"gitflow_harness.store.fsutil", "gitflow_harness.jsonio"} <= entries(path).keys()
    third = drive("gitflow_harness.jsonio")
    assert "gitflow_harness.jsonio" in third["set_out"]  # type: ignore[operator]
    assert "gitflow_harness.store.fsutil" in third["left"]  # type: ignore[operator]


def test_a_package_whose_init_imports_its_modules(hermetic: Path) -> None:
    drive("gitflow_harness.git")
    second = drive("gitflow_harness.git", "gitflow_harness.git.core")
    assert {"gitflow_harness.git", "gitflow_harness.git.core"} <= set(second["set_out"])  # type: ignore[arg-type]
    kind, _, origin, _, package, path_ = second["found"]["gitflow_harness.git"]  # type: ignore[index]
    assert (kind, package, path_) == ("module", "gitflow_harness.git", [str(PACKAGE_DIR / "git")])
    assert origin == str(PACKAGE_DIR / "git" / "__init__.py")
    code = (
        "from gitflow_harness import preload\n"
        f"preload.start({COMMAND.split()!r})\n"
        "import gitflow_harness.git as g, gitflow_harness.git.core as core\n"
        "assert g.core is core and g.Repo is core.Repo, (g.core, core)\n"
        "print('ok')\n"
    )
    assert probe(code, check=True).stdout == "ok\n"


def test_a_changed_source_leaves_the_whole_file_unused(hermetic: Path) -> None:
    path = str(drive("gitflow_harness.store.fsutil")["path"])

    def older(found: tuple[tuple[object, ...], ...]) -> tuple[tuple[object, ...], ...]:
        first, *rest = found
        return ((*first[:3], int(first[3]) - 1, *first[4:]), *rest)  # type: ignore[call-overload]

    rewrite(path, older)
    again = drive("gitflow_harness.store.fsutil")
    assert again["set_out"] == []
    for name, entry in entries(path).items():  # written again, as the sources are
        st = os.stat(str(entry[2]))
        assert (entry[3], entry[4]) == (st.st_mtime_ns, st.st_size), name
    assert drive("gitflow_harness.store.fsutil")["set_out"]


def first_format(data: bytes) -> bytes:
    """A file as the first format held it: one tuple, the code in it."""
    found = tuple((*e[:5], bytes(e[5])) for e in preload.unpack(data)[3])
    return marshal.dumps((1, preload._external.MAGIC_NUMBER, preload.PACKAGE_DIR, found))


@pytest.mark.parametrize(
    "damage",
    [
        lambda data: data[: len(data) // 2],
        lambda data: b"not marshal at all",
        lambda data: data + b"more",
        lambda data: header(data, 1, preload._external.MAGIC_NUMBER, preload.PACKAGE_DIR),
        lambda data: header(data, preload.VERSION, b"\0\0\r\n", preload.PACKAGE_DIR),
        lambda data: marshal.dumps("a string"),
        first_format,
        lambda data: len(b"a string").to_bytes(preload.HEADER, "little") + b"a string",
    ],
    ids=[
        "cut short",
        "not marshal",
        "grown",
        "another version",
        "another magic",
        "not a tuple",
        "the first format",
        "another shape",
    ],
)
def test_a_damaged_or_foreign_file_is_no_file(hermetic: Path, damage: object) -> None:
    path = str(drive("gitflow_harness.store.fsutil")["path"])
    Path(path).write_bytes(damage(Path(path).read_bytes()))  # type: ignore[operator]
    assert drive("gitflow_harness.store.fsutil")["set_out"] == []
    assert "gitflow_harness.store.fsutil" in entries(path)  # written again


def test_another_package_directorys_file_is_no_file(hermetic: Path) -> None:
    path = str(drive("gitflow_harness.store.fsutil")["path"])
    data = Path(path).read_bytes()
    elsewhere = header(data, preload.VERSION, preload._external.MAGIC_NUMBER, "/elsewhere/gh")
    Path(path).write_bytes(elsewhere)
    assert drive("gitflow_harness.store.fsutil")["set_out"] == []


def test_a_file_others_could_write_or_a_link_is_not_read(hermetic: Path) -> None:
    path = str(drive("gitflow_harness.store.fsutil")["path"])
    os.chmod(path, 0o620)
    assert drive("gitflow_harness.store.fsutil")["set_out"] == []
    assert os.stat(path).st_mode & 0o777 == 0o600  # its replacement is owner-only
    real = path + ".real"
    os.replace(path, real)
    os.symlink(real, path)
    assert drive()["set_out"] == []


def test_code_of_the_file_that_fails_gives_way_to_the_source(hermetic: Path) -> None:
    path = str(drive("gitflow_harness.store.locks")["path"])
    failing = marshal.dumps(compile("raise RuntimeError('from the file')", "locks", "exec"))

    def broken(found: tuple[tuple[object, ...], ...]) -> tuple[tuple[object, ...], ...]:
        return tuple(
            (*e[:5], failing) if e[0] == "gitflow_harness.store.locks" else e for e in found
        )

    rewrite(path, broken)
    run = drive("gitflow_harness.store.locks")
    assert "gitflow_harness.store.locks" in run["set_out"]  # type: ignore[operator]
    assert run["failed"] == []
    assert run["found"]["gitflow_harness.store.locks"][0] == "module"  # type: ignore[index]
    code = (
        "from gitflow_harness import preload\n"
        f"preload.start({COMMAND.split()!r})\n"
        "from gitflow_harness.store.locks import exclusive\n"
        "print(exclusive.__module__)\n"
    )
    assert probe(code, check=True).stdout == "gitflow_harness.store.locks\n"


def test_a_module_whose_source_fails_too_fails_where_it_is_used(
    hermetic: Path, tmp_path: Path
) -> None:
    path = str(drive("gitflow_harness.store.locks")["path"])
    source = tmp_path / "broken.py"
    source.write_text("raise RuntimeError('from the source')\n", encoding="utf-8")
    st = source.stat()
    failing = marshal.dumps(compile("raise RuntimeError('from the file')", str(source), "exec"))
    entry = ("gitflow_harness.broken", False, str(source), st.st_mtime_ns, st.st_size, failing)
    rewrite(path, lambda found: (*found, entry))
    run = drive("gitflow_harness.broken")
    # Raised at its use, as its import would have, and no module left behind.
    assert run["failed"] == [["gitflow_harness.broken", "from the source", False]]


def test_threads_looking_into_one_module_see_it_run_once(hermetic: Path) -> None:
    drive("gitflow_harness.jsonio")
    code = (
        "import sys, threading\n"
        "from gitflow_harness import preload\n"
        f"preload.start({COMMAND.split()!r})\n"
        "module = sys.modules['gitflow_harness.jsonio']\n"
        "seen = []\n"
        "def look():\n"
        "    seen.append(module.loads)\n"
        "threads = [threading.Thread(target=look) for _ in range(8)]\n"
        "[t.start() for t in threads]; [t.join() for t in threads]\n"
        "print(len(seen), len(set(map(id, seen))))\n"
    )
    assert probe(code, check=True).stdout == "8 1\n"


@pytest.mark.parametrize("command", ["hook ../claude x", "", "hook claude Post ToolUse.x"])
def test_a_command_no_file_could_be_named_for_is_left_alone(hermetic: Path, command: str) -> None:
    done = drive("gitflow_harness.store.fsutil", command=command)
    assert done["path"] is None
    assert not (hermetic / "gfh-state" / "preload").exists()


def test_files_unwritten_for_a_month_go_when_another_is_written(hermetic: Path) -> None:
    directory = hermetic / "gfh-state" / "preload"
    directory.mkdir(parents=True, mode=0o700)
    stale, recent = directory / "status-0.cpython-0.marshal", directory / "other.marshal"
    for path in (stale, recent):
        path.write_bytes(b"x")
    month = time.time() - (preload.UNWRITTEN_DAYS + 1) * 86400
    os.utime(stale, (month, month))
    drive("gitflow_harness.store.fsutil")
    assert not stale.exists()
    assert recent.exists()


def test_the_file_is_named_by_the_package_directory(hermetic: Path) -> None:
    """The file names the command, the package's directory (a short hash of it: the
    directory itself is checked in the file) and the interpreter."""
    from gitflow_harness.home import name_hash

    path = str(drive("gitflow_harness.store.fsutil")["path"])
    short = name_hash(str(PACKAGE_DIR).encode("utf-8", "surrogateescape"))[:8]
    assert os.path.basename(path) == (
        f"hook-claude-PostToolUse-{short}.{sys.implementation.cache_tag}.marshal"
    )


@pytest.mark.slow
def test_a_hook_process_answers_the_same_from_the_file(hermetic: Path, tmp_path: Path) -> None:
    """The real entry point, as a host starts it: the first call writes the file, the next
    ones set out from it, and every answer is the same."""
    repo = make_repo(tmp_path / "repo")
    way = repo / "hooks" / "ways" / "docs" / "docs.md"
    way.parent.mkdir(parents=True)
    way.write_text(
        "---\ndescription: docs\nwhen:\n  files: ['**']\n"
        "curve: {type: Flat, suppression: 0}\n---\nKeep the docs current.\n",
        encoding="utf-8",
    )
    payload = json.dumps(kit.payload("claude", "PostToolUse.Write", repo))
    env = {
        **unmeasured_env(),
        "CLAUDE_CODE_SESSION_ID": kit.payload("claude", "PostToolUse.Write")["session_id"],
    }

    def call() -> tuple[int, str]:
        done = subprocess.run(
            [sys.executable, "-m", "gitflow_harness", "hook", "claude", "PostToolUse"],
            cwd=repo, input=payload, capture_output=True, text=True, env=env, check=False,
        )  # fmt: skip
        return done.returncode, done.stdout

    answers = [call() for _ in range(3)]
    assert answers[0][0] == 0
    assert "Keep the docs current." in answers[0][1]
    assert answers[1:] == [answers[0]] * 2
    [path] = (hermetic / "gfh-state" / "preload").glob("hook-claude-PostToolUse-*.marshal")
    assert "gitflow_harness.agent.runtime" in entries(str(path))
