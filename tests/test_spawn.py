"""`gitflow_harness.spawn`: programs started without `subprocess`, their pipes driven by
poll; and `git.core` on the `subprocess` path where spawning that way is not possible."""

from __future__ import annotations

import os
import signal
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest

from gitflow_harness import git, spawn
from gitflow_harness.errors import RepoStateError, UsageError
from tests.helpers import git as run_git

pytestmark = pytest.mark.skipif(not spawn.AVAILABLE, reason="no os.posix_spawnp here")

PY = sys.executable


def _run(code: str, input: bytes | None = None, **kwargs: object) -> tuple[int, bytes, bytes]:
    started = spawn.spawn([PY, "-c", code], input=input, env=kwargs.get("env"))  # type: ignore[arg-type]
    assert started is not None
    return started.wait()


def _open_fds() -> set[str]:
    return set(os.listdir("/proc/self/fd")) if os.path.isdir("/proc/self/fd") else set()


def test_both_streams_larger_than_a_pipe_are_read_whole() -> None:
    """A program filling stdout and stderr in turns, far past a pipe's 64 KiB, is not left
    blocked on either: both come back whole and in order."""
    code = (
        "import sys\n"
        "for i in range(2000):\n"
        "    sys.stdout.write(f'out {i:05d} ' + 'o' * 200 + '\\n'); sys.stdout.flush()\n"
        "    sys.stderr.write(f'err {i:05d} ' + 'e' * 200 + '\\n'); sys.stderr.flush()\n"
    )
    code_, out, err = _run(code)
    assert code_ == 0
    assert out.splitlines() == [f"out {i:05d} ".encode() + b"o" * 200 for i in range(2000)]
    assert err.splitlines() == [f"err {i:05d} ".encode() + b"e" * 200 for i in range(2000)]


def test_input_larger_than_a_pipe_is_written_while_output_is_read() -> None:
    data = bytes(range(256)) * 8192  # 2 MiB, echoed back as it is read
    code = "import sys, shutil; shutil.copyfileobj(sys.stdin.buffer, sys.stdout.buffer)"
    assert _run(code, input=data) == (0, data, b"")


def test_a_program_that_never_reads_its_input_is_not_an_error() -> None:
    assert _run("import sys; sys.exit(3)", input=b"x" * (1 << 20)) == (3, b"", b"")


def test_no_input_reads_the_null_device_and_empty_input_closes_stdin() -> None:
    read_all = "import sys; print(len(sys.stdin.buffer.read()))"
    assert _run(read_all)[1] == b"0\n"
    assert _run(read_all, input=b"")[1] == b"0\n"


def test_exit_codes_and_signals_are_given_as_subprocess_gives_them() -> None:
    assert _run("import sys; sys.exit(7)")[0] == 7
    assert _run("import os, signal; os.kill(os.getpid(), signal.SIGTERM)")[0] == -signal.SIGTERM


def test_the_program_gets_sigpipe_back_though_python_ignores_it() -> None:
    """Python ignores SIGPIPE, and an ignored signal stays ignored across exec: the program
    must get the default back (as `subprocess` restores it), or `yes | head` complains."""
    started = spawn.spawn(["sh", "-c", "yes | head -n 1"], env=None, input=None)
    assert started is not None
    assert started.wait() == (0, b"y\n", b"")


def test_a_descriptor_this_process_inherited_is_not_passed_on() -> None:
    """A descriptor without close-on-exec (as one a host or hook manager passed us) is closed
    in the program, as `subprocess`'s `close_fds` closes it: what git starts cannot hold a
    caller's pipe open."""
    read, write = os.pipe()
    os.set_inheritable(write, True)
    try:
        code = (
            f"import os\ntry:\n    os.fstat({write})\n    print('open')\n"
            "except OSError:\n    print('closed')"
        )
        assert _run(code)[1] == b"closed\n"
    finally:
        os.close(read)
        os.close(write)


def test_where_descriptors_cannot_be_listed_it_declines(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(spawn, "_FD_DIRS", ("/gfh-no-such-directory",))
    before = _open_fds()
    assert spawn.spawn([PY, "-c", "pass"], env=None, input=None) is None
    assert _open_fds() == before


def test_the_environment_given_is_the_programs_whole_environment() -> None:
    env = {"PATH": os.environ["PATH"], "GFH_SPAWN_TEST": "1"}
    code = "import os; print(sorted(k for k in os.environ if k.startswith('GFH_')))"
    assert _run(code, env=env)[1] == b"['GFH_SPAWN_TEST']\n"


def test_a_program_not_on_path_is_file_not_found_and_leaks_nothing() -> None:
    before = _open_fds()
    with pytest.raises(FileNotFoundError):
        spawn.spawn(["gfh-no-such-program"], env=None, input=b"x")
    assert _open_fds() == before


def test_many_runs_leave_no_descriptor_open() -> None:
    before = _open_fds()
    for _ in range(20):
        _run("print('x')", input=b"y")
    assert _open_fds() == before


def test_an_interrupted_wait_kills_and_reaps_the_program() -> None:
    """^C while waiting: the program is killed and reaped before the interrupt goes on."""
    started = spawn.spawn([PY, "-c", "import time; time.sleep(60)"], env=None, input=None)
    assert started is not None

    def interrupt(signum: int, frame: object) -> None:
        raise KeyboardInterrupt

    previous = signal.signal(signal.SIGALRM, interrupt)
    try:
        signal.setitimer(signal.ITIMER_REAL, 0.2)
        with pytest.raises(KeyboardInterrupt):
            started.wait()
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, previous)
    with pytest.raises(ChildProcessError):
        os.waitpid(started.pid, os.WNOHANG)
    assert started.wait() == (-signal.SIGKILL, b"", b"")  # asked again: no closed pipe read


def test_asked_again_the_answer_is_the_same_and_no_descriptor_is_read_again() -> None:
    """Waiting twice (a failed block's `reaped`, then the caller) gives the first answer: the
    program's descriptors are closed by then, and their numbers may be another file's."""
    started = spawn.spawn([PY, "-c", "print('once')"], env=None, input=None)
    assert started is not None
    first = started.wait()
    with open(os.devnull, "rb") as other, open(os.devnull, "rb") as another:
        assert {other.fileno(), another.fileno()}  # the freed numbers, taken by other files
        assert started.wait() == first == (0, b"once\n", b"")


@contextmanager
def _stdin_closed() -> Iterator[None]:
    saved = os.dup(0)
    os.close(0)
    try:
        yield
    finally:
        os.dup2(saved, 0)
        os.close(saved)


def test_with_a_standard_stream_of_ours_closed_it_declines(repo: Path) -> None:
    """A pipe made while our stdin is closed lands on descriptor 0, which the exec would
    close: spawn declines (leaving nothing open) and git runs through subprocess instead."""
    with _stdin_closed():
        before = _open_fds()
        assert spawn.spawn([PY, "-c", "pass"], env=None, input=None) is None
        assert _open_fds() == before
        head = git.run(["rev-parse", "HEAD"], cwd=repo).stdout.strip()
    assert head == run_git(repo, "rev-parse", "HEAD").strip()


def test_git_through_subprocess_answers_as_through_spawn(
    repo: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Where posix_spawn does not exist (Windows), git.core starts git with subprocess: the
    same results, failures and refusals."""

    def answers() -> list[object]:
        found: list[object] = []
        found.append(git.run(["rev-parse", "HEAD"], cwd=repo))
        found.append(git.run(["hash-object", "--stdin"], cwd=repo, input="a\r\nb\n"))
        found.append(git.run(["rev-parse", "--verify", "nope"], cwd=repo, check=False))
        for failing in (
            lambda: git.run(["rev-parse", "--verify", "nope"], cwd=repo),
            lambda: git.run(["status"], cwd=tmp_path / "gone"),
        ):
            with pytest.raises((git.GitError, RepoStateError, UsageError)) as raised:
                failing()
            found.append((type(raised.value), str(raised.value)))
        return found

    spawned = answers()
    monkeypatch.setattr(spawn, "AVAILABLE", False)
    assert answers() == spawned
