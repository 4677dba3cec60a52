"""`gfh demo`: the embedded default."""

from __future__ import annotations

from pathlib import Path

import click


@click.command()
@click.option(
    "--keep",
    type=click.Path(file_okay=False, path_type=Path),
    default=None,
    help="Build the scratch world in DIR and keep it afterwards.",
)
def demo(keep: Path | None) -> int:
    """Build a scratch repository and drive the whole product through it, for real."""
    from gitflow_harness.demo import run_demo

    return run_demo(keep, click.echo)
