"""What git hands a hook, read the same way under any hook manager.

git gives pre-push `<remote> <url>` as arguments and one `<local ref> <local sha> <remote ref>
<remote sha>` line per pushed ref on stdin; post-rewrite `amend|rebase` and `<old> <new>` lines
on stdin; post-merge its squash flag. pre-commit reads the pre-push stdin itself and passes only
the first ref, as `PRE_COMMIT_*` variables: those are the fallback when stdin says nothing.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import IO, Final

ZERO: Final = "0" * 40  # git's name for "no commit": a deletion, or a ref the remote lacks


@dataclass(frozen=True, slots=True)
class PushedRef:
    """One ref a push updates: what is sent (`local_*`) and what it replaces (`remote_*`)."""

    local_ref: str
    local_sha: str | None  # None: pre-commit passed no commit (a push reaching the root)
    remote_ref: str
    remote_sha: str | None

    @property
    def deletion(self) -> bool:
        return self.local_sha is not None and self.local_sha.strip("0") == ""


def parse_push_lines(text: str) -> list[PushedRef]:
    """Parse git's pre-push stdin; a line that is not four words is skipped."""
    refs = []
    for line in text.splitlines():
        words = line.split()
        if len(words) == 4:
            local_ref, local_sha, remote_ref, remote_sha = words
            remote = None if remote_sha.strip("0") == "" else remote_sha
            refs.append(PushedRef(local_ref, local_sha, remote_ref, remote))
    return refs


def push_from_pre_commit(env: Mapping[str, str]) -> PushedRef | None:
    """The one ref pre-commit passes to a pre-push hook, or None outside one."""
    local_ref = env.get("PRE_COMMIT_LOCAL_BRANCH") or ""
    local_sha = env.get("PRE_COMMIT_TO_REF") or None
    if not local_ref and local_sha is None:
        return None
    return PushedRef(
        local_ref or local_sha or "",
        local_sha,
        env.get("PRE_COMMIT_REMOTE_BRANCH") or local_ref,
        env.get("PRE_COMMIT_FROM_REF") or None,
    )


def pushed_refs(stdin_text: str, env: Mapping[str, str]) -> list[PushedRef] | None:
    """Every ref a push updates, deletions included: from git's stdin, else from pre-commit's
    variables; None when neither says anything (run by hand)."""
    refs = parse_push_lines(stdin_text)
    if refs:
        return refs
    single = push_from_pre_commit(env)
    return [single] if single is not None else None


WAIT_S: Final = 1.0  # git writes a hook's stdin as it starts it, then closes it


def read_stdin(stream: IO[str] | None, wait_s: float = WAIT_S) -> str:
    """Read what git wrote to the hook's stdin; nothing from a terminal.

    Git writes the lines and closes the pipe, so the read ends. Run by hand, stdin is whatever
    the caller had: a pipe nobody writes to (an agent's shell) would block a plain read
    forever, so a pipe that has neither data nor its end within `wait_s` counts as empty.
    """
    if stream is None:
        return ""
    try:
        if stream.isatty():
            return ""
        if not _ready(stream, wait_s):
            return ""
        return stream.read()
    except (OSError, ValueError):  # closed, or not readable
        return ""


def _ready(stream: IO[str], wait_s: float) -> bool:
    """True when reading `stream` would not block (data, or its end); True where that cannot
    be asked (no file descriptor, or a platform whose select takes no pipes)."""
    import select

    try:
        fd = stream.fileno()
    except (OSError, ValueError, AttributeError):  # an in-memory stream: never blocks
        return True
    try:
        readable, _, _ = select.select([fd], [], [], wait_s)
    except (OSError, ValueError):
        return True
    return bool(readable)


def is_pre_push(args: Sequence[str], env: Mapping[str, str]) -> bool:
    """True when the hook runs at pre-push: git's two arguments, or pre-commit's variables."""
    return len(args) == 2 or bool(env.get("PRE_COMMIT_REMOTE_NAME"))


def post_stage(args: Sequence[str], env: Mapping[str, str]) -> tuple[str | None, dict[str, str]]:
    """Return the stage (`post-merge`, `post-rewrite` or None) and pre-commit's variables for it,
    from git's argument (`0|1` for post-merge, `amend|rebase` for post-rewrite) or from what
    pre-commit exported."""
    first = args[0] if args else ""
    if first in ("amend", "rebase"):
        return "post-rewrite", {"PRE_COMMIT_REWRITE_COMMAND": first}
    if first in ("0", "1"):
        return "post-merge", {"PRE_COMMIT_IS_SQUASH_MERGE": first}
    if env.get("PRE_COMMIT_REWRITE_COMMAND"):
        return "post-rewrite", {}
    if env.get("PRE_COMMIT_IS_SQUASH_MERGE"):
        return "post-merge", {}
    return None, {}
