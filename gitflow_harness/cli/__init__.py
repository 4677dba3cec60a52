"""The command line: the Click tree (`group.py`), the one error boundary, and the way in.

Importing this package costs no Click: `main.py` runs the commands asked on every turn or commit
(`gfh status`, `gfh pills check`) through the boundary here without it, when `flags` knows all
their arguments, and every other command through `run`.
"""

from __future__ import annotations

import sys

from gitflow_harness.cli.output import echo
from gitflow_harness.errors import EXIT_FAILED, EXIT_USAGE, GfhError

# Not `typing.TYPE_CHECKING`: `gfh status` does not import typing (mypy reads the name).
TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable, Mapping, Sequence

# Whether this run was asked for `--verbose`: read by the error boundary, after Click parsed it.
verbose = {"on": False}


def flags(args: Sequence[str], known: Mapping[str, str]) -> dict[str, bool] | None:
    """Return which of the flags `known` (option -> parameter name) `args` set, every parameter
    named; None when `args` hold anything else (help, a misspelt option, an argument): then
    Click parses them, and owns the help, the usage errors and their exit code."""
    if not all(arg in known for arg in args):
        return None
    given = {known[arg] for arg in args}
    return {name: name in given for name in known.values()}


def run(argv: Sequence[str]) -> int:
    """Run the CLI with `argv`, turning every known failure into one line and an exit code."""

    def parse_and_run() -> int:
        import click

        from gitflow_harness.cli.group import cli

        try:
            rv = cli.main(args=list(argv), prog_name="gfh", standalone_mode=False)
        except click.exceptions.UsageError as exc:
            exc.show()
            return EXIT_USAGE
        except click.exceptions.ClickException as exc:
            exc.show()
            return exc.exit_code
        except click.exceptions.Abort:
            echo("gfh: aborted", err=True)
            return EXIT_FAILED
        return rv if isinstance(rv, int) else 0

    return guarded(parse_and_run, argv)


def guarded(command: Callable[[], int], argv: Sequence[str]) -> int:
    """Return `command()`'s exit code; a known failure becomes its one line and exit code, an
    unknown one a line naming the crash report written for it."""
    verbose["on"] = False
    try:
        return command()
    except GfhError as exc:
        echo(f"gfh: {exc.message}", err=True)
        details = exc.details()
        if details and verbose["on"]:
            echo(details.rstrip("\n"), err=True)
        return exc.exit_code
    except BrokenPipeError:
        # `gfh events tail | head`: the reader went away; nothing to report.
        _silence_stdout()
        return EXIT_FAILED
    except Exception as exc:
        from gitflow_harness.store.crash import write_crash_report

        where = write_crash_report(exc, argv)
        echo(
            f"gfh: internal error: {type(exc).__name__}: {_first_line(exc)} (full report: {where})",
            err=True,
        )
        return EXIT_FAILED


def _first_line(exc: BaseException) -> str:
    text = str(exc).strip()
    return text.splitlines()[0] if text else "(no message)"


def _silence_stdout() -> None:
    import os

    try:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
    except (OSError, ValueError):
        pass
