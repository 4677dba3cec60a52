"""Writing a command's lines and JSON to stdout or stderr, without Click."""

from __future__ import annotations

import sys

# Not `typing.TYPE_CHECKING`: `gfh status` does not import typing (mypy reads the name).
TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any


# What `click.echo` takes out of a line written to a stream that is not a terminal.
ANSI_ESCAPE = r"\033\[[0-?]*[ -/]*[@-~]"


def echo(line: str, *, err: bool = False) -> None:
    """Print `line` on stdout (stderr when `err`) and flush, as `click.echo` does: escape
    sequences are left out unless the stream is a terminal."""
    stream = sys.stderr if err else sys.stdout
    if "\033" in line and not stream.isatty():
        import re

        line = re.sub(ANSI_ESCAPE, "", line)
    stream.write(f"{line}\n")
    stream.flush()


def echo_json(obj: Any) -> None:
    """Print `obj` as indented JSON on stdout."""
    echo(json_text(obj))


def json_text(obj: Any) -> str:
    """Return `obj` as the indented JSON every `--json` prints."""
    import json  # here: `gfh status` draws its box without it (1.5 to 2 ms to import)

    return json.dumps(obj, indent=2, ensure_ascii=False, default=str)
