"""The Click command tree, each command loaded on first use."""

from __future__ import annotations

import click

from gitflow_harness import __version__
from gitflow_harness.cli import verbose

# name -> "module:attribute". A command's module is imported only when that command runs (or
# when `gfh --help` lists it), so `gfh status` never pays for the ways engine or GitPython.
COMMANDS: dict[str, str] = {
    "config": "gitflow_harness.cli.config:config",
    "demo": "gitflow_harness.cli.demo:demo",
    "events": "gitflow_harness.cli.events:events",
    "learn": "gitflow_harness.cli.learn:learn",
    "mcp": "gitflow_harness.cli.mcp:mcp",
    "pills": "gitflow_harness.cli.pills:pills",
    "requests": "gitflow_harness.cli.requests:requests",
    "start": "gitflow_harness.cli.workflow:start",
    "status": "gitflow_harness.cli.workflow:status",
    "update": "gitflow_harness.cli.workflow:update",
    "prepare": "gitflow_harness.cli.workflow:prepare",
    "test": "gitflow_harness.cli.workflow:test_",
    "done": "gitflow_harness.cli.workflow:done",
    "accept": "gitflow_harness.cli.workflow:accept",
    "ensure": "gitflow_harness.cli.workflow:ensure",
    "report": "gitflow_harness.cli.report:report",
    "task": "gitflow_harness.cli.task:task",
    "ways": "gitflow_harness.cli.ways:ways",
    "hook": "gitflow_harness.cli.hook:hook",
    "init": "gitflow_harness.cli.init:init",
    "deinit": "gitflow_harness.cli.init:deinit",
    "doctor": "gitflow_harness.cli.doctor:doctor",
    "git-hook": "gitflow_harness.cli.git_hook:git_hook",
}


class LazyGroup(click.Group):
    """A group whose subcommands are imported on first use."""

    def __init__(self, *args: object, lazy: dict[str, str], **kwargs: object) -> None:
        super().__init__(*args, **kwargs)  # type: ignore[arg-type]
        self._lazy = lazy

    def list_commands(self, ctx: click.Context) -> list[str]:
        return sorted({*super().list_commands(ctx), *self._lazy})

    def get_command(self, ctx: click.Context, cmd_name: str) -> click.Command | None:
        if cmd_name in self._lazy:
            import importlib

            module_name, attr = self._lazy[cmd_name].split(":")
            command = getattr(importlib.import_module(module_name), attr)
            assert isinstance(command, click.Command)
            return command
        return super().get_command(ctx, cmd_name)


CONTEXT_SETTINGS = {"help_option_names": ["-h", "--help"], "max_content_width": 100}


def _set_verbose(ctx: click.Context, param: click.Parameter, value: bool) -> None:
    if value:
        verbose["on"] = True


@click.group(cls=LazyGroup, lazy=COMMANDS, context_settings=CONTEXT_SETTINGS)
@click.version_option(
    __version__, "-V", "--version", prog_name="gfh", message="%(prog)s %(version)s"
)
@click.option(
    "-v",
    "--verbose",
    is_flag=True,
    expose_value=False,
    is_eager=True,
    callback=_set_verbose,
    help="On a failure, also print what the failing program said (git's command, exit code "
    "and whole output) after the one-line error.",
)
def cli() -> None:
    """gitflow-harness: a git-native harness for coding agents.

    Workflow verbs keep agents on branches and gate their work; hooks fire ways, record
    evidence and enforce the end-of-turn ritual; lessons graduate into reviewed requests.
    Exit codes: 0 ok, 1 the work failed or was refused, 2 usage or configuration error.
    """
