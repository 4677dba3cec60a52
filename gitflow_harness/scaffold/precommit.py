"""Add gfh's checks to `.pre-commit-config.yaml` by inserting lines, never by re-dumping YAML.

Re-dumping would lose the user's comments, quoting and layout, so the new `repo: local` entry is
written as text at the end of the `repos:` list, indented like its siblings, and the result is
parsed again to prove every existing repo is still there, unchanged and in order. A layout this
cannot edit safely (a flow-style `repos: [...]`) is refused with the lines to add by hand.
"""

from __future__ import annotations

import re
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


def render(items: list[dict[str, Any]], indent: str) -> list[str]:
    """Return the lines of one `- repo: local` entry holding `items`."""
    lines = [f"{indent}- repo: local", f"{indent}  hooks:"]
    for item in items:
        lines.append(f"{indent}    - id: {item['id']}")
        for key in CARRIED:
            if key in item:
                lines.append(f"{indent}      {key}: {_yaml(item[key])}")
        lines.append(f"{indent}      language: system")
    return lines


def merge(text: str | None, wanted: list[dict[str, Any]]) -> tuple[str, list[str]]:
    """Return the new file text and the ids added."""
    import yaml

    if text is None or not text.strip():
        body = "\n".join(["repos:", *render(wanted, "  ")]) + "\n"
        prefix = text or ""
        return prefix + body, [w["id"] for w in wanted]
    try:
        parsed = _load(text)
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        where = f"{PATH}:{mark.line + 1}" if mark is not None else PATH
        raise ConfigError(f"{where}: not valid YAML; fix it, then run `gfh init` again") from None
    if parsed is None:
        parsed = {}
    if not isinstance(parsed, dict):
        raise ConfigError(f"{PATH}: expected a mapping with `repos:` at the top")
    repos = parsed.get("repos", [])
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
    new_lines = _insert(text.splitlines(), missing, has_repos="repos" in parsed)
    new_text = "\n".join(new_lines) + "\n" if new_lines is not None else ""
    after = _load(new_text) if new_lines is not None else None
    if not (
        isinstance(after, dict)
        and after.get("repos", [])[: len(repos)] == repos
        and len(after.get("repos", [])) == len(repos) + 1
        and {k: v for k, v in after.items() if k != "repos"}
        == {k: v for k, v in parsed.items() if k != "repos"}
    ):
        block = "\n".join(render(missing, "  "))
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
_REPOS_KEY = re.compile(r"^repos[ \t]*:")
_INSTALL_LINE = re.compile(r"^default_install_hook_types[ \t]*:(?P<value>[^#]*?)[ \t]*(?:#.*)?$")


def install_types(items: list[dict[str, Any]]) -> list[str]:
    """Return the git hook types the hooks `items` run at (no `stages` = pre-commit)."""
    stages: set[str] = set()
    for item in items:
        stages.update(item.get("stages") or ["pre-commit"])
    return [t for t in HOOK_TYPES if t in stages]


def ensure_install_types(text: str, wanted: list[str]) -> tuple[str, list[str]]:
    """Return the text with `default_install_hook_types` naming every type in `wanted`, so a
    plain `pre-commit install` installs them all, and the types added.

    A user's list keeps its entries and order, gfh's missing ones appended; without a list, one
    is added before `repos:`. Lines are inserted or extended, never re-dumped, and the result is
    parsed again to prove nothing else moved.
    """

    parsed = _load(text) or {}
    current = parsed.get(INSTALL_KEY, [])
    if not isinstance(current, list):
        raise ConfigError(f"{PATH}: `{INSTALL_KEY}` must be a list of git hook types")
    missing = [t for t in wanted if t not in current]
    if not missing:
        return text, []
    lines = text.split("\n")
    cr = "\r" if lines[0].endswith("\r") else ""  # a CRLF file stays one
    edited = _extend_install_list(lines, missing, cr) if INSTALL_KEY in parsed else None
    if INSTALL_KEY not in parsed:
        at = next((i for i, line in enumerate(lines) if _REPOS_KEY.match(line)), len(lines))
        edited = [*lines[:at], f"{INSTALL_KEY}: [{', '.join(missing)}]{cr}", *lines[at:]]
    after = _load("\n".join(edited)) if edited is not None else None
    expected = {**parsed, INSTALL_KEY: [*current, *missing]}
    if after != expected:
        raise ConfigError(
            f"{PATH}: cannot add {', '.join(missing)} to `{INSTALL_KEY}` safely; add them by "
            "hand, or install those git hooks with "
            f"`pre-commit install {' '.join('-t ' + t for t in wanted)}`"
        )
    assert edited is not None
    return "\n".join(edited), missing


def _extend_install_list(lines: list[str], missing: list[str], cr: str) -> list[str] | None:
    """Append `missing` to the user's flow (`[a, b]`) or block (`- a`) list, in its style."""
    start = next(
        (i for i, line in enumerate(lines) if _INSTALL_LINE.match(line.removesuffix("\r"))), None
    )
    if start is None:
        return None
    line = lines[start].removesuffix("\r")
    match = _INSTALL_LINE.match(line)
    assert match is not None
    value = match.group("value").strip()
    if value.startswith("[") and value.endswith("]"):
        inner = value[1:-1].strip()
        items = f"{inner}, {', '.join(missing)}" if inner else ", ".join(missing)
        head, tail = line[: match.start("value")], line[match.end("value") :]
        return [*lines[:start], f"{head} [{items}]{tail}{cr}", *lines[start + 1 :]]
    if value:
        return None  # a style this does not edit
    last, indent = start, None
    for i in range(start + 1, len(lines)):
        stripped = lines[i].strip()
        if not stripped or stripped.startswith("#"):
            continue
        if not stripped.startswith("-"):
            break  # the next key: the list ended
        last, indent = i, lines[i][: len(lines[i]) - len(lines[i].lstrip())]
    if indent is None:
        return None
    added = [f"{indent}- {t}{cr}" for t in missing]
    return [*lines[: last + 1], *added, *lines[last + 1 :]]


_REPOS = re.compile(r"^repos\s*:\s*(?:#.*)?$")


def _insert(lines: list[str], items: list[dict[str, Any]], *, has_repos: bool) -> list[str] | None:
    """Return the lines with the entry inserted, or None when the layout is not editable."""
    start = next((i for i, line in enumerate(lines) if _REPOS.match(line)), None)
    if start is None:
        if has_repos:  # e.g. `repos: []`: a flow style this does not edit
            return None
        return [*_trim(lines), "repos:", *render(items, "  ")]
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
    block = render(items, indent if indent is not None else "  ")
    return lines[: last_content + 1] + block + lines[last_content + 1 :]


def _trim(lines: list[str]) -> list[str]:
    while lines and not lines[-1].strip():
        lines = lines[:-1]
    return lines


def _load(text: str) -> Any:
    """Parse the project's `.pre-commit-config.yaml`, bounded as every file gfh reads."""
    from gitflow_harness.store.documents import DocumentError, load_yaml

    try:
        return load_yaml(text, PATH)
    except DocumentError as exc:
        raise ConfigError(f"{exc}; fix it, then run gfh again") from None


def _yaml(value: Any) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, list):
        return "[" + ", ".join(_yaml(v) for v in value) + "]"
    return "'" + str(value).replace("'", "''") + "'"
