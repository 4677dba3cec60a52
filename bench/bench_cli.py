"""The CLI spine: `gfh --version` and one event append, against a bare `python -c pass`."""

from __future__ import annotations

import subprocess
from pathlib import Path

from bench.runner import PYTHON, Measurement, command_vs_pass

APPEND = (
    "from pathlib import Path; from gitflow_harness.store.events import EventLog;"
    "EventLog(Path({common!r})).record('verb', {{'verb': 'bench'}}, surface='cli', branch='main')"
)


def run(work: Path) -> list[Measurement]:
    repo = work / "repo"
    subprocess.run(["git", "init", "-q", str(repo)], check=True)
    version = command_vs_pass("gfh --version", [PYTHON, "-m", "gitflow_harness", "--version"])
    append = command_vs_pass(
        "one event append", [PYTHON, "-c", APPEND.format(common=str(repo / ".git"))]
    )
    imports = _heavy_imports()
    version.notes.append(
        "start-up imports GitPython/yaml/frontmatter/filelock: "
        + (", ".join(imports) if imports else "none")
    )
    return [version, append]


def _heavy_imports() -> list[str]:
    proc = subprocess.run(
        [PYTHON, "-X", "importtime", "-m", "gitflow_harness", "--version"],
        capture_output=True,
        text=True,
        check=True,
    )
    heavy = ("git", "yaml", "frontmatter", "filelock")
    found = set()
    for line in proc.stderr.splitlines():
        name = line.rsplit("|", 1)[-1].strip()
        if name.split(".")[0] in heavy:
            found.add(name.split(".")[0])
    return sorted(found)
