"""Lines written without Click come out as `click.echo` writes them."""

from __future__ import annotations

import contextlib
import io

import click
import pytest

from gitflow_harness.cli.output import echo


@pytest.mark.parametrize(
    "line",
    ["plain", "┌─ gfh · box", "\x1b[31mred\x1b[0m and \x1b[1;4mbold\x1b[m", "bare \x1b escape"],
)
@pytest.mark.parametrize("err", [False, True])
def test_echo_writes_what_click_echo_writes(line: str, err: bool) -> None:
    ours, theirs = io.StringIO(), io.StringIO()
    redirect = contextlib.redirect_stderr if err else contextlib.redirect_stdout
    with redirect(ours):
        echo(line, err=err)
    with redirect(theirs):
        click.echo(line, err=err)
    assert ours.getvalue() == theirs.getvalue()
    assert ours.getvalue().endswith("\n")
