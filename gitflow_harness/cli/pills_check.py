"""`gfh pills check`: the run its Click command and `main.py`'s path without Click share.

pre-commit runs it on every commit that touches a pill (`--quiet`), so `main.py` sends the flags
this module knows past Click straight to `show`; anything else goes through Click.
"""

from __future__ import annotations

from gitflow_harness.cli import flags
from gitflow_harness.cli.output import echo, echo_json

# Not `typing.TYPE_CHECKING`: the command does not import typing (mypy reads the name).
TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable, Sequence

    from gitflow_harness.workspace import Workspace

# Every option of the Click command (`cli/pills.py`), each a flag, as its parameter name.
FLAGS = {"--json": "as_json", "-q": "quiet", "--quiet": "quiet"}


def without_click(args: Sequence[str]) -> Callable[[], int] | None:
    """Return the run of `gfh pills check ARGS`, or None when Click is to parse `args`."""
    given = flags(args, FLAGS)
    return None if given is None else lambda: show(**given)


def show(*, as_json: bool, quiet: bool) -> int:
    """Check every pill and print the problems (or one `--json` object); exit 1 on errors."""
    import datetime as dt

    from gitflow_harness.cli.found import found_workspace
    from gitflow_harness.learning.lint import check_pills, failing

    ws = found_workspace(None, "cli", cached_trunk=False)
    catalog, problems = check_pills(ws.repo, _pills_root(ws), today=dt.date.today())
    bad = failing(problems)
    if as_json:
        echo_json(
            {
                "pills": len(catalog.pills),
                "ok": not bad,
                "problems": [p._asdict() for p in (bad if quiet else problems)],
            }
        )
        return 1 if bad else 0
    shown = bad if quiet else problems
    if shown:  # one write, not one per line: a check can print hundreds of them
        echo("\n".join(map(str, shown)))
    if not quiet:
        notes = len(problems) - len(bad)
        echo(
            f"{len(catalog.pills)} pill(s) in {catalog.root_rel}/: "
            f"{len(bad)} problem(s), {notes} note(s)",
            err=bool(bad),
        )
    return 1 if bad else 0


def _pills_root(ws: Workspace) -> str:
    """`[paths] pills`, from the configuration's cache the hook's sessions share (as `gfh status`
    reads its trunk): no parse of the configuration while it is unchanged."""
    from gitflow_harness.hookcall.settings import cached_config

    try:
        return str(cached_config(ws.top)["paths"]["pills"])
    except OSError:  # the shared cache cannot be written: read as every command reads it
        return ws.config.paths.pills
