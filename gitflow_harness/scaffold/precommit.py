"""Add gfh's checks to `.pre-commit-config.yaml` by inserting lines, never by re-dumping YAML.

Re-dumping would lose the user's comments, quoting and layout, so the new entry is written as
text at the end of the `repos:` list, indented like its siblings, and the result is parsed
again to prove every existing repo is still there, unchanged and in order. A layout this
cannot edit safely (a flow-style `repos: [...]`) is refused with the lines to add by hand.

The entry is the published form (`repo:` gfh's repository at a pinned `rev:`), so pre-commit
installs gfh for whoever commits; `repo: local` (the `gfh` on PATH) only on request.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

from gitflow_harness.errors import ConfigError

PATH = ".pre-commit-config.yaml"


MANIFEST = "pre-commit-hooks.yaml"  # the published `.pre-commit-hooks.yaml`, shipped in the package
# The keys a `repo: local` entry carries over from the manifest, in the order they are written.
CARRIED = ("name", "entry", "files", "stages", "always_run", "pass_filenames")
_DEFAULT_ROOTS = re.compile(r"hooks/ways|pills|requests")


def manifest() -> list[dict[str, Any]]:
    """Return the hooks gfh publishes for the pre-commit framework (`.pre-commit-hooks.yaml`)."""
    from importlib import resources

    import yaml

    text = resources.files("gitflow_harness").joinpath("starter", MANIFEST).read_text("utf-8")
    found = yaml.safe_load(text)
    if not isinstance(found, list):
        raise ConfigError(f"{MANIFEST}: expected a list of hooks")
    return [h for h in found if isinstance(h, dict)]


def hooks(ways: str, pills: str, requests: str) -> list[dict[str, Any]]:
    """The published hooks as `repo: local` entries running the installed `gfh`.

    Each keeps the manifest's stages, `always_run` and `pass_filenames`; its `files:` filter is
    moved from the default folders to this repository's `[paths]`.
    """
    roots = {"hooks/ways": ways, "pills": pills, "requests": requests}
    out = []
    for hook in manifest():
        item = {"id": hook["id"], **{k: hook[k] for k in CARRIED if k in hook}}
        if "files" in item:
            item["files"] = _DEFAULT_ROOTS.sub(
                lambda m: re.escape(roots[m.group(0)].strip("/")), item["files"]
            )
        out.append(item)
    return out


@dataclass(frozen=True, slots=True)
class Source:
    """Where pre-commit fetches gfh's hooks from: a repository URL (or path) and a pinned rev."""

    repo: str
    rev: str


def render(items: list[dict[str, Any]], indent: str, source: Source | None = None) -> list[str]:
    """Return the lines of one `repos:` entry holding `items`: the published form from
    `source`, whose hooks need only their id (and a `files:` that differs from the manifest's),
    or without one a `repo: local` entry running the installed `gfh`."""
    if source is not None:
        lines = [f"{indent}- repo: {source.repo}", f"{indent}  rev: {_yaml(source.rev)}"]
        lines.append(f"{indent}  hooks:")
        published = {h["id"]: h for h in manifest()}
        for item in items:
            lines.append(f"{indent}    - id: {item['id']}")
            files = item.get("files")
            if files is not None and files != published.get(item["id"], {}).get("files"):
                lines.append(f"{indent}      files: {_yaml(files)}")
        return lines
    lines = [f"{indent}- repo: local", f"{indent}  hooks:"]
    for item in items:
        lines.append(f"{indent}    - id: {item['id']}")
        for key in CARRIED:
            if key in item:
                lines.append(f"{indent}      {key}: {_yaml(item[key])}")
        lines.append(f"{indent}      language: system")
    return lines


def merge(
    text: str | None, wanted: list[dict[str, Any]], source: Source | None = None
) -> tuple[str, list[str]]:
    """Return the new file text and the ids added."""
    if text is None or not text.strip():
        body = "\n".join(["repos:", *render(wanted, "  ", source)]) + "\n"
        prefix = text or ""
        return prefix + body, [w["id"] for w in wanted]
    parsed = load(text)  # a file that is not valid YAML is a ConfigError naming its line
    if parsed is None:
        parsed = {}
    if not isinstance(parsed, dict):
        raise ConfigError(f"{PATH}: expected a mapping with `repos:` at the top")
    repos = parsed.get("repos") or []  # `repos:` with nothing under it is an empty list
    if not isinstance(repos, list):
        raise ConfigError(f"{PATH}: `repos` must be a list")
    present = {
        hook.get("id")
        for repo in repos
        if isinstance(repo, dict) and isinstance(repo.get("hooks"), list)
        for hook in repo["hooks"]
        if isinstance(hook, dict)
    }
    missing = [w for w in wanted if w["id"] not in present]
    if not missing:
        return text, []
    new_lines = _insert(text.splitlines(), missing, has_repos="repos" in parsed, source=source)
    new_text = "\n".join(new_lines) + "\n" if new_lines is not None else ""
    after = load(new_text) if new_lines is not None else None
    if not (
        isinstance(after, dict)
        and after.get("repos", [])[: len(repos)] == repos
        and len(after.get("repos", [])) == len(repos) + 1
        and {k: v for k, v in after.items() if k != "repos"}
        == {k: v for k, v in parsed.items() if k != "repos"}
    ):
        block = "\n".join(render(missing, "  ", source))
        raise ConfigError(
            f"{PATH}: cannot add gfh's hooks to this layout safely; add these lines to the end "
            f"of `repos:` by hand:\n{block}"
        )
    return new_text, [m["id"] for m in missing]


# -- the stages `pre-commit install` installs -------------------------------------------------

INSTALL_KEY = "default_install_hook_types"
# git's hook types in the order they come up in a branch's life (pre-commit's own names).
HOOK_TYPES = (
    "pre-commit",
    "pre-merge-commit",
    "prepare-commit-msg",
    "commit-msg",
    "post-commit",
    "post-checkout",
    "post-merge",
    "post-rewrite",
    "pre-rebase",
    "pre-push",
)


def install_types(items: list[dict[str, Any]]) -> list[str]:
    """Return the git hook types the hooks `items` run at (no `stages` = pre-commit)."""
    stages: set[str] = set()
    for item in items:
        stages.update(item.get("stages") or ["pre-commit"])
    return [t for t in HOOK_TYPES if t in stages]


def install_command(types: list[str]) -> str:
    """The one `pre-commit install` line that installs the git hooks of `types`."""
    return "pre-commit install " + " ".join(f"--hook-type {t}" for t in types)


def stale_install_types(text: str | None) -> list[str]:
    """The stages past commits that `default_install_hook_types` lists, when it does (an older
    `gfh init --pre-commit` added it): every hook without `stages:` runs at each of them."""
    try:
        parsed = load(text or "") or {}
    except ConfigError:
        return []  # a broken file is reported where it is merged
    listed = parsed.get(INSTALL_KEY) if isinstance(parsed, dict) else None
    if not isinstance(listed, list):
        return []
    return [t for t in listed if t in HOOK_TYPES and t not in ("pre-commit", "pre-merge-commit")]


REPOS_LINE = re.compile(r"^repos\s*:\s*(?:#.*)?$")


def _insert(
    lines: list[str], items: list[dict[str, Any]], *, has_repos: bool, source: Source | None
) -> list[str] | None:
    """Return the lines with the entry inserted, or None when the layout is not editable."""
    start = next((i for i, line in enumerate(lines) if REPOS_LINE.match(line)), None)
    if start is None:
        if has_repos:  # e.g. `repos: []`: a flow style this does not edit
            return None
        return [*_trim(lines), "repos:", *render(items, "  ", source)]
    end = start + 1
    last_content = start
    indent = None
    while end < len(lines):
        line = lines[end]
        stripped = line.strip()
        if stripped and not line[0].isspace() and not line.startswith(("-", "#")):
            break  # the next top-level key
        if stripped and not stripped.startswith("#"):
            last_content = end
            if indent is None and stripped.startswith("-"):
                indent = line[: len(line) - len(line.lstrip())]
        end += 1
    block = render(items, indent if indent is not None else "  ", source)
    return lines[: last_content + 1] + block + lines[last_content + 1 :]


def _trim(lines: list[str]) -> list[str]:
    while lines and not lines[-1].strip():
        lines = lines[:-1]
    return lines


def load(text: str) -> Any:
    """Parse the project's `.pre-commit-config.yaml`, bounded as every file gfh reads; a file
    that does not parse is a `ConfigError` naming it."""
    import yaml

    from gitflow_harness.store.documents import DocumentError, load_yaml

    try:
        return load_yaml(text, PATH)
    except DocumentError as exc:
        raise ConfigError(f"{exc}; fix it, then run gfh again") from None
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        where = f"{PATH}:{mark.line + 1}" if mark is not None else PATH
        raise ConfigError(f"{where}: not valid YAML; fix it, then run gfh again") from None


def _yaml(value: Any) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, list):
        return "[" + ", ".join(_yaml(v) for v in value) + "]"
    return "'" + str(value).replace("'", "''") + "'"
