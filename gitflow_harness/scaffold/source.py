"""Where this gfh was installed from, as pre-commit's `repo:` and `rev:`.

pip records it in the installed distribution's `direct_url.json` (PEP 610): a VCS install names
the repository and the commit; a directory install names a path, whose commit git can tell. A
release from an index records nothing: then `--hooks-repo URL --hooks-rev REV` says it.
"""

from __future__ import annotations

import json
from pathlib import Path
from urllib.parse import unquote, urlparse

from gitflow_harness.errors import UsageError
from gitflow_harness.scaffold.precommit import Source

DISTRIBUTION = "gitflow-harness"
HOW = (
    "pass `--hooks-repo URL --hooks-rev REV` (gfh's repository and a tag or commit of it), or "
    "`--pre-commit-local` to run the gfh on each committer's PATH instead"
)


def installed_direct_url() -> str | None:
    """The text of the installed distribution's `direct_url.json`, or None.

    Every distribution of the name is asked: run from a source checkout, its `*.egg-info`
    comes first on the path and records nothing.
    """
    from importlib import metadata

    for dist in metadata.distributions(name=DISTRIBUTION):
        text = dist.read_text("direct_url.json")
        if text:
            return text
    return None


def from_direct_url(text: str | None) -> tuple[Source, str | None]:
    """Return the source the PEP 610 record `text` names, and a warning to show with it.

    Refused (UsageError, naming the way out) when it names no repository a rev can pin.
    """
    if not text:
        raise UsageError(f"cannot tell which repository this gfh was installed from; {HOW}")
    try:
        record = json.loads(text)
        url = str(record["url"])
    except (ValueError, KeyError, TypeError):
        raise UsageError(f"direct_url.json of {DISTRIBUTION} is not readable; {HOW}") from None
    vcs = record.get("vcs_info")
    if isinstance(vcs, dict) and vcs.get("vcs") == "git" and vcs.get("commit_id"):
        return Source(url, str(vcs["commit_id"])), None
    parsed = urlparse(url)
    if isinstance(record.get("dir_info"), dict) and parsed.scheme == "file":
        path = Path(unquote(parsed.path))
        rev = _commit_of(path)
        if rev is None:
            raise UsageError(f"gfh was installed from {path}, which is not a git repository; {HOW}")
        warning = (
            f"the hooks come from the local path {path} at {rev[:10]}: pre-commit on another "
            "machine cannot fetch it; pass `--hooks-repo URL --hooks-rev REV` with a URL your "
            "team can reach"
        )
        return Source(str(path), rev), warning
    raise UsageError(f"gfh was installed from {url}, which pre-commit cannot pin; {HOW}")


def installed_source() -> tuple[Source, str | None]:
    """The source of the installed gfh (`from_direct_url` over its own record)."""
    return from_direct_url(installed_direct_url())


def _commit_of(path: Path) -> str | None:
    from gitflow_harness import git

    if not path.is_dir():
        return None
    proc = git.run(["rev-parse", "--verify", "-q", "HEAD^{commit}"], cwd=path, check=False)
    if proc.returncode != 0:
        return None
    return proc.stdout.strip()
