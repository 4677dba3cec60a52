"""`gfh git-hook`: the commands behind the git-stage pre-commit hooks."""

from __future__ import annotations

import os

import click

from gitflow_harness.cli._common import echo_json, json_option


@click.group("git-hook")
def git_hook() -> None:
    """Commands the git-stage pre-commit hooks run (gfh-record-update, gfh-gate-push).

    They read what pre-commit passes in the environment (PRE_COMMIT_*), so they also work run
    by hand with those variables set, or with none: then they look at HEAD.
    """


@git_hook.command("record-update")
@json_option
def record_update(as_json: bool) -> int:
    """Record a `git.update` when the step that just finished brought in the trunk.

    Run by the post-merge, post-rewrite and post-commit hooks (post-commit: a merge that stopped
    on conflicts, finished with `git commit`; an ordinary commit records nothing). It always
    exits 0: the git command already happened, and a hook that cannot record must not make it
    look failed. It prints what it recorded, or why nothing (pre-commit shows that with
    --verbose); a failure to record is one line on stderr and a `hook.error` event when the log
    can take one.
    """
    from gitflow_harness.workflow.git_hooks import record_trunk_update
    from gitflow_harness.workspace import open_workspace

    try:
        ws = open_workspace()
        check = record_trunk_update(ws, os.environ)
    except Exception as exc:  # fail open: see the docstring
        _note_error(exc)
        return 0
    if as_json:
        echo_json(check.to_dict())
    else:
        click.echo(f"gfh git.update: {check.reason}")
    return 0


@git_hook.command("gate-push")
@click.option(
    "--ref",
    "rev",
    metavar="REV",
    help="The commit to judge (default: $PRE_COMMIT_TO_REF, else $PRE_COMMIT_LOCAL_BRANCH, "
    "else HEAD).",
)
@json_option
def gate_push(rev: str | None, as_json: bool) -> int:
    """Refuse to push a commit whose tree the gate judged red; exit 1 when refused.

    Run by the pre-push hook. `[gate] push` in .gitflow-harness.toml decides: "block-red"
    (default) refuses red trees, "require-green" also refuses trees no gate judged, "off"
    allows every push. Tags are not gated.
    """
    from gitflow_harness.workflow.git_hooks import LOCAL_BRANCH_ENV, TO_REF_ENV, judge_push
    from gitflow_harness.workspace import open_workspace

    ws = open_workspace()
    if rev is not None:
        verdict = judge_push(ws, commit=None, local_ref=rev)
    else:
        verdict = judge_push(
            ws,
            commit=os.environ.get(TO_REF_ENV) or None,
            local_ref=os.environ.get(LOCAL_BRANCH_ENV) or None,
        )
    if as_json:
        echo_json(verdict.to_dict())
    elif verdict.allowed:
        click.echo(f"gfh: {verdict.message}")
    else:
        click.echo(f"gfh: {verdict.message}", err=True)
    return 0 if verdict.allowed else 1


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
