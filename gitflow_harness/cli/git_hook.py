"""`gfh git-hook`: the commands behind gfh's git hooks, under pre-commit or any other manager."""

from __future__ import annotations

import os
import sys
from typing import TYPE_CHECKING

import click

from gitflow_harness.cli._common import echo_json, json_option

if TYPE_CHECKING:
    from gitflow_harness.workflow.git_hooks import UpdateCheck
    from gitflow_harness.workflow.hook_input import PushedRef
    from gitflow_harness.workspace import Workspace


STAGES = ("pre-commit", "pre-merge-commit", "pre-push", "post-merge", "post-rewrite", "post-commit")


@click.group("git-hook")
def git_hook() -> None:
    """Commands gfh's git hooks run (gfh-record-update, gfh-gate-push, gfh-protect-trunk).

    Each reads what git passes its hook (pre-push: the pushed refs on stdin; post-rewrite: its
    stdin; post-merge: its argument), so it works under any hook manager, and falls back to
    what pre-commit passes (PRE_COMMIT_*); run by hand with neither, it looks at HEAD.
    `gfh git-hook run STAGE` runs every gfh check of one git hook, for plain hooks, husky and
    lefthook.
    """


@git_hook.command("record-update", context_settings={"ignore_unknown_options": True})
@click.argument("args", nargs=-1)
@json_option
def record_update(args: tuple[str, ...], as_json: bool) -> int:
    """Record a `git.update` when the step that just finished brought in the trunk.

    Run by the post-merge, post-rewrite and post-commit hooks with git's arguments (post-merge:
    its squash flag; post-rewrite: amend or rebase; post-commit: none; a commit that stopped
    on conflicts, finished with `git commit`, ends there; an ordinary commit records nothing).
    It always exits 0: the git command already happened, and a hook that cannot record must not
    make it look failed. It prints what it recorded, or why nothing (pre-commit shows that with
    --verbose); a failure to record is one line on stderr and a `hook.error` event when the log
    can take one.
    """
    check = _record(args, as_json)
    if check is not None:
        click.echo(f"gfh git.update: {check.reason}")
    return 0


def _record(args: tuple[str, ...], as_json: bool) -> UpdateCheck | None:
    from gitflow_harness.workflow.git_hooks import record_trunk_update
    from gitflow_harness.workflow.hook_input import post_stage, read_stdin
    from gitflow_harness.workspace import open_workspace

    stage, exported = post_stage(args, os.environ)
    if stage == "post-rewrite":
        read_stdin(sys.stdin)  # git's old/new pairs: the reflog says more; read so git can write
    try:
        ws = open_workspace()
        check = record_trunk_update(ws, {**os.environ, **exported})
    except Exception as exc:  # fail open: see the docstring
        _note_error(exc)
        return None
    if as_json:
        echo_json(check.to_dict())
        return None
    return check


@git_hook.command("gate-push")
@click.option(
    "--ref",
    "rev",
    metavar="REV",
    help="The commit to judge (default: every ref git passes on stdin, else "
    "$PRE_COMMIT_TO_REF / $PRE_COMMIT_LOCAL_BRANCH, else HEAD).",
)
@click.argument("remote", nargs=-1)
@json_option
def gate_push(rev: str | None, remote: tuple[str, ...], as_json: bool) -> int:
    """Refuse to push a commit whose tree the gate judged red; exit 1 when refused.

    Run by the pre-push hook (git's arguments REMOTE URL may follow). Every ref git sends on
    stdin is judged; a deleted ref sends nothing and is skipped. `[gate] push` in
    .gitflow-harness.toml decides: "block-red" (default) refuses red trees, "require-green" also
    refuses trees no gate judged, "off" allows every push. Tags are not gated.
    """
    from gitflow_harness.workflow.hook_input import pushed_refs, read_stdin
    from gitflow_harness.workspace import open_workspace

    ws = open_workspace()
    refs = None if rev is not None else pushed_refs(read_stdin(sys.stdin), os.environ)
    return _gate(ws, refs, rev, as_json)


def _gate(ws: Workspace, refs: list[PushedRef] | None, rev: str | None, as_json: bool) -> int:
    from gitflow_harness.workflow.git_hooks import judge_push, judge_refs

    if rev is not None:
        verdicts = [judge_push(ws, commit=None, local_ref=rev)]
    else:
        verdicts = judge_refs(ws, refs)
    allowed = all(v.allowed for v in verdicts)
    if as_json:
        first = next((v for v in verdicts if not v.allowed), verdicts[0] if verdicts else None)
        head = first.to_dict() if first is not None else {"allowed": True}
        echo_json({**head, "allowed": allowed, "refs": [v.to_dict() for v in verdicts]})
    for verdict in verdicts if not as_json else ():
        click.echo(f"gfh: {verdict.message}", err=not verdict.allowed)
    return 0 if allowed else 1


@git_hook.command("protect-trunk", context_settings={"ignore_unknown_options": True})
@click.option(
    "--stage",
    type=click.Choice(["pre-commit", "pre-merge-commit", "pre-push"]),
    help="The git hook it runs in (default: pre-push when git's two pre-push arguments or "
    "pre-commit's push variables are there, else a commit).",
)
@click.argument("args", nargs=-1)
@json_option
def protect_trunk(stage: str | None, args: tuple[str, ...], as_json: bool) -> int:
    """Refuse a commit on the trunk, or a push to the remote trunk, per repository.protect_trunk.

    "agents" (default) refuses them in an agent session and warns a person; "all" refuses
    them for everyone; "warn" only warns; "off" checks nothing. An agent session is one with
    $GFH_SESSION, or a host's own variable ($CLAUDE_CODE_SESSION_ID, $CLAUDECODE,
    $CODEX_SESSION_ID, $CODEX_CI, $CURSOR_AGENT). `gfh accept` is the way in: it fast-forwards
    the trunk and makes no commit. Exit 1 when refused.
    """
    from gitflow_harness.workflow.hook_input import is_pre_push, pushed_refs, read_stdin
    from gitflow_harness.workspace import open_workspace

    ws = open_workspace()
    refs = None
    if stage == "pre-push" or (stage is None and is_pre_push(args, os.environ)):
        refs = pushed_refs(read_stdin(sys.stdin), os.environ) or []
    return _protect(ws, refs, args, as_json)


def _protect(
    ws: Workspace, refs: list[PushedRef] | None, args: tuple[str, ...], as_json: bool
) -> int:
    from gitflow_harness.workflow.protect import check_commit, check_push

    if refs is None:
        check = check_commit(ws, os.environ)
    else:
        remote = args[0] if args else os.environ.get("PRE_COMMIT_REMOTE_NAME")
        check = check_push(ws, refs, remote, os.environ)
    if as_json:
        echo_json(check.to_dict())
    elif check.message:
        click.echo(f"gfh: {check.message}", err=True)
    return 0 if check.allowed else 1


@git_hook.command("run", context_settings={"ignore_unknown_options": True})
@click.argument("stage", type=click.Choice(STAGES))
@click.argument("args", nargs=-1)
def run_stage(stage: str, args: tuple[str, ...]) -> int:
    """Run every gfh check of one git hook, with git's arguments and stdin.

    For hooks gfh does not reach through pre-commit: the shims `gfh init --git-hooks` writes,
    husky and lefthook. pre-commit and pre-merge-commit: protect-trunk. pre-push: protect-trunk
    and gate-push over the same refs. post-merge, post-rewrite, post-commit: record-update.
    Exit 1 when a check refuses.
    """
    from gitflow_harness.workflow.hook_input import pushed_refs, read_stdin
    from gitflow_harness.workspace import open_workspace

    if stage.startswith("post-"):
        check = _record(args if stage != "post-commit" else (), False)
        if check is not None and check.event is not None:
            click.echo(f"gfh git.update: {check.reason}")
        return 0
    ws = open_workspace()
    if stage != "pre-push":
        return _protect(ws, None, args, False)
    refs = pushed_refs(read_stdin(sys.stdin), os.environ) or []
    protected = _protect(ws, refs, args, False)
    if protected != 0:
        return protected
    return _gate(ws, refs, None, False) if refs else 0


def _note_error(exc: BaseException) -> None:
    """Say in one line why nothing was recorded, and leave a `hook.error` in the log if we can."""
    from gitflow_harness import git
    from gitflow_harness.errors import GfhError

    text = exc.message if isinstance(exc, GfhError) else str(exc)
    first = git.first_line(text, "no message")
    click.echo(f"gfh: git.update not recorded: {type(exc).__name__}: {first}", err=True)
    try:
        from gitflow_harness.store.events import EventLog

        repo = git.discover()
        EventLog(repo.common_dir).record(
            "hook.error",
            {"adapter": "git", "event": "record-update", "error": f"{type(exc).__name__}: {first}"},
            surface="git",
            branch=git.head(repo).label,
        )
    except Exception:  # the log is what failed; the line above is enough
        pass
