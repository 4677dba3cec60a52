"""`gfh config`: the effective configuration."""

from __future__ import annotations

import click

from gitflow_harness.cli._common import echo_json, json_option
from gitflow_harness.store.config import SECTIONS, toml_value


@click.group()
def config() -> None:
    """Inspect the configuration (.gitflow-harness.toml)."""


@config.command("show")
@json_option
def show(as_json: bool) -> int:
    """Print the effective configuration and where each value came from."""
    from gitflow_harness.workspace import open_workspace

    cfg = open_workspace().config
    values = cfg.as_dict()
    if as_json:
        echo_json(
            {
                "file": str(cfg.path) if cfg.path else None,
                "values": values,
                "sources": dict(cfg.sources),
            }
        )
        return 0
    click.echo(f"# file: {cfg.path if cfg.path else '(none: every value is a default)'}")
    for section, schema in SECTIONS.items():
        click.echo(f"\n[{section}]")
        rows = [
            (
                f"{f.name} = {toml_value(values[section][f.name])}",
                cfg.sources[f"{section}.{f.name}"],
            )
            for f in schema.fields
        ]
        width = max(len(left) for left, _ in rows)
        for left, source in rows:
            click.echo(f"{left.ljust(width)}  # {source}")
    return 0
