"""Plain git hooks (`gfh init --git-hooks`) for repositories that use no hook manager.

Each shim runs `gfh git-hook run STAGE` with git's arguments and stdin. A hook that was there
before is kept beside it as `<hook>.gfh-chained` and runs first, with the same arguments and
stdin; `gfh deinit` puts it back. The hooks folder is git's (`core.hooksPath` respected).
"""

from __future__ import annotations

from pathlib import Path
from typing import Final

from gitflow_harness.errors import UsageError

STAGES: Final = (
    "pre-commit",
    "pre-merge-commit",
    "pre-push",
    "post-merge",
    "post-rewrite",
    "post-commit",
)
WITH_STDIN: Final = ("pre-push", "post-rewrite")  # the hooks git writes to
MARKER: Final = "# gfh-shim: written by `gfh init --git-hooks`; `gfh deinit` removes it"
CHAINED: Final = ".gfh-chained"


def shim(stage: str) -> str:
    """Return the text of the shim for git's hook `stage`."""
    lines = ["#!/bin/sh", MARKER, f'chained="$0{CHAINED}"']
    if stage in WITH_STDIN:
        lines += [
            "input=$(cat)",
            'if [ -x "$chained" ]; then',
            '  printf \'%s\\n\' "$input" | "$chained" "$@" || exit $?',
            "fi",
        ]
    else:
        lines += ['if [ -x "$chained" ]; then', '  "$chained" "$@" || exit $?', "fi"]
    lines += [
        "if ! command -v gfh >/dev/null 2>&1; then",
        f"  echo \"gfh: not on PATH; gfh's {stage} checks did not run "
        '(install gitflow-harness, or run `gfh deinit`)" >&2',
        "  exit 0",
        "fi",
    ]
    if stage in WITH_STDIN:
        lines.append(f'printf \'%s\\n\' "$input" | exec gfh git-hook run {stage} "$@"')
    else:
        lines.append(f'exec gfh git-hook run {stage} "$@"')
    return "\n".join(lines) + "\n"


def is_shim(text: bytes | None) -> bool:
    return text is not None and MARKER.encode() in text


def hooks_dir(top: Path) -> Path:
    """git's hooks folder for the repository at `top` (`core.hooksPath`, else the common dir's
    `hooks/`); a folder husky manages is refused: its hooks are where gfh goes there."""
    from gitflow_harness import git

    proc = git.run(["rev-parse", "--path-format=absolute", "--git-path", "hooks"], cwd=top)
    path = Path(proc.stdout.strip())
    if ".husky" in path.parts:
        raise UsageError(
            f"husky manages the git hooks here ({path}); add `gfh git-hook run STAGE` to its "
            "hooks instead (see docs/git-hooks.md)"
        )
    return path
