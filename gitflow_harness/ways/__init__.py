"""Ways: guidance files with firing curves, their index, matching, lint, migration and tuning.

The modules the agent hook loads on every tool call (`model`, `index`, `match`) import only the
standard library and `firing`; parsing YAML (`parse`) happens only when a way file changed.
"""

from __future__ import annotations

import os

TYPE_CHECKING = False  # `typing` costs ~2 ms; the hook path imports this package
if TYPE_CHECKING:
    from pathlib import Path


def ways_root(top: str | os.PathLike[str], relative: str) -> str:
    """Return the ways root of the worktree at `top`: `paths.ways`, relative to it. Here, not
    in `index`, so a hook call in a repository without one imports nothing more to know it."""
    return os.path.join(os.path.abspath(os.fspath(top)), relative)


def starter_ways_root() -> Path:
    """Return the ways shipped with the package (this project's own `hooks/ways`): the starter
    set, and the ways marked `x-starter: false` that only this project uses."""
    from pathlib import Path

    return Path(__file__).resolve().parent.parent / "starter" / "ways"
