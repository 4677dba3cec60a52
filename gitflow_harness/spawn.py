"""Start a program with its three standard streams piped, without the `subprocess` module.

Every gfh command runs git, and most hook calls start one: `subprocess` and what it loads
(`threading`, `selectors`, `locale`) cost such a process about 3.5 ms before the first git
starts. `os.posix_spawnp` starts the program as `subprocess` does on Linux (vfork, exec), and
`select.poll` reads its output and writes its input as `communicate` does, from one thread.

What `subprocess.Popen` would do differently, it is given here explicitly: signals Python
ignores (SIGPIPE, SIGXFSZ) are reset to their defaults in the program; only the three streams
are inherited: every descriptor Python opens is close-on-exec, and one this process inherited
itself (a host's or a hook manager's, without close-on-exec) is closed in the program, as
`close_fds` does, so that nothing git starts (an fsmonitor daemon) keeps a caller's pipe open.
There is no working directory argument: `git -C DIR` is how the caller says it
(`git.core.start`).

Where `posix_spawnp` does not exist (Windows, `AVAILABLE`), or one of our pipes would land on a
standard descriptor of our own (a hook started with a closed stdout), `spawn` returns None and
the caller uses `subprocess`.
"""

from __future__ import annotations

import os
import select

TYPE_CHECKING = False
if TYPE_CHECKING:
    import signal
    from collections.abc import Mapping, Sequence
else:
    try:  # the numbers alone: `signal` builds its enums on import (about 0.5 ms)
        import _signal as signal
    except ImportError:  # pragma: no cover - an interpreter without CPython's module
        import signal

AVAILABLE = hasattr(os, "posix_spawnp") and hasattr(select, "poll")
_CHUNK = 1 << 16
_SIGNALS = tuple(
    getattr(signal, name) for name in ("SIGPIPE", "SIGXFZ", "SIGXFSZ") if hasattr(signal, name)
)
_GONE = select.POLLHUP | select.POLLERR | select.POLLNVAL if AVAILABLE else 0


class Spawned:
    """A running program started by `spawn`: `wait` gives its exit code and both streams."""

    __slots__ = ("_ended", "_input", "_stdin", "_streams", "pid")

    def __init__(self, pid: int, stdin: int | None, stdout: int, stderr: int, data: bytes):
        self.pid = pid
        self._stdin = stdin
        self._streams = (stdout, stderr)
        self._input = data
        self._ended: tuple[int, bytes, bytes] | None = None

    def wait(self) -> tuple[int, bytes, bytes]:
        """Write the input, read both streams to their end, and reap the program; return its
        exit code as `subprocess` gives it (negative: killed by that signal) and its output.
        Interrupted (^C), it kills the program and waits for it before the interrupt goes on.
        Asked again, it gives the same answer: its descriptors are closed, and their numbers
        may belong to other files by then.
        """
        if self._ended is not None:
            return self._ended
        try:
            out, err = self._communicate()
            _, status = os.waitpid(self.pid, 0)
        except BaseException:
            self._kill()
            self._ended = (-signal.SIGKILL, b"", b"")
            raise
        self._ended = (os.waitstatus_to_exitcode(status), out, err)
        return self._ended

    def _communicate(self) -> tuple[bytes, bytes]:
        chunks: dict[int, list[bytes]] = {fd: [] for fd in self._streams}
        poller = select.poll()
        for fd in self._streams:
            poller.register(fd, select.POLLIN)
        open_fds = set(self._streams)
        stdin = self._stdin
        data = memoryview(self._input)
        if stdin is not None:
            if data:
                os.set_blocking(stdin, False)
                poller.register(stdin, select.POLLOUT)
                open_fds.add(stdin)
            else:
                os.close(stdin)
        try:
            while open_fds:
                for fd, events in poller.poll():
                    if fd == stdin:
                        data = self._write(stdin, data, events)
                        if not data:
                            poller.unregister(fd)
                            open_fds.discard(fd)
                            os.close(fd)
                        continue
                    chunk = os.read(fd, _CHUNK)
                    if chunk:
                        chunks[fd].append(chunk)
                    else:
                        poller.unregister(fd)
                        open_fds.discard(fd)
                        os.close(fd)
        finally:
            for fd in open_fds:
                os.close(fd)
        out, err = self._streams
        return b"".join(chunks[out]), b"".join(chunks[err])

    @staticmethod
    def _write(fd: int, data: memoryview, events: int) -> memoryview:
        """Write what the pipe takes of `data` now; return the rest (empty: done, or the
        program closed its input, which `communicate` ignores too)."""
        if events & _GONE and not events & select.POLLOUT:
            return data[:0]
        try:
            written = os.write(fd, data[:_CHUNK])
        except BlockingIOError:
            return data
        except BrokenPipeError:
            return data[:0]
        return data[written:]

    def _kill(self) -> None:
        os.kill(self.pid, signal.SIGKILL)  # an exited program is a zombie until reaped: no error
        os.waitpid(self.pid, 0)


def spawn(
    argv: Sequence[str], *, env: Mapping[str, str] | None, input: bytes | None
) -> Spawned | None:
    """Start `argv` (its first item looked up on PATH), stdout and stderr piped back, stdin
    piped from `input` or from the null device when it is None. Return None when this way of
    starting programs cannot be used here (see the module's docstring): use `subprocess`.

    Raises FileNotFoundError when the program is not on PATH, as `subprocess` does.
    """
    if not AVAILABLE:
        return None
    made: list[int] = []
    try:
        out_r, out_w = _pipe(made)
        err_r, err_w = _pipe(made)
        in_r, in_w = _pipe(made) if input is not None else (None, None)
        if min(made) <= 2:
            # A pipe end on 0-2 (our own stream was closed) would be closed by the exec.
            raise _Unusable
        actions: list[tuple[int, ...] | tuple[int, int, str, int, int]] = [
            (os.POSIX_SPAWN_DUP2, out_w, 1),
            (os.POSIX_SPAWN_DUP2, err_w, 2),
        ]
        if in_r is not None:
            actions.append((os.POSIX_SPAWN_DUP2, in_r, 0))
        else:
            actions.append((os.POSIX_SPAWN_OPEN, 0, os.devnull, os.O_RDONLY, 0))
        inherited = _inherited()
        if inherited is None:
            raise _Unusable
        actions += [(os.POSIX_SPAWN_CLOSE, fd) for fd in inherited if fd not in made]
        pid = os.posix_spawnp(
            argv[0],
            list(argv),
            os.environ if env is None else env,
            file_actions=actions,
            setsigdef=_SIGNALS,
        )
    except BaseException as exc:
        for fd in made:
            os.close(fd)
        if isinstance(exc, _Unusable):
            return None
        raise
    os.close(out_w)
    os.close(err_w)
    if in_r is not None:
        os.close(in_r)
    return Spawned(pid, in_w, out_r, err_r, input or b"")


# Where this process's open descriptors are listed: Linux, then macOS and the BSDs.
_FD_DIRS = ("/proc/self/fd", "/dev/fd")


def _inherited() -> list[int] | None:
    """The descriptors above 2 a program would inherit from this process, or None when they
    cannot be listed here."""
    for directory in _FD_DIRS:
        try:
            names = os.listdir(directory)
        except OSError:
            continue
        found = []
        for name in names:
            fd = int(name)
            if fd > 2:
                try:
                    if os.get_inheritable(fd):
                        found.append(fd)
                except OSError:  # the listing's own descriptor, closed by now
                    pass
        return found
    return None


def _pipe(made: list[int]) -> tuple[int, int]:
    read, write = os.pipe()
    made += (read, write)
    return read, write


class _Unusable(Exception):
    """This process cannot start programs this way (see `spawn`)."""
