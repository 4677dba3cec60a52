"""The repository side of `gfh init`: the configuration file, the folders, the starter ways."""

from __future__ import annotations

import re
from typing import TYPE_CHECKING, Protocol

from gitflow_harness.errors import UsageError

if TYPE_CHECKING:
    from collections.abc import Iterator, Sequence

    from gitflow_harness.store.config import Config

CONFIG_FILE = ".gitflow-harness.toml"
KEEP = ".gitkeep"
# YAML's spellings of false (PyYAML reads YAML 1.1), as a top-level `x-starter:` value.
_NOT_A_STARTER = re.compile(
    r"^x-starter[ \t]*:[ \t]*(?:false|no|off)[ \t]*(?:#.*)?\r?$", re.MULTILINE | re.IGNORECASE
)


class Tree(Protocol):
    """What is read from the starter ways: a `pathlib.Path` or an importlib resource."""

    @property
    def name(self) -> str: ...
    def iterdir(self) -> Iterator[Tree]: ...
    def is_dir(self) -> bool: ...
    def is_file(self) -> bool: ...
    def read_bytes(self) -> bytes: ...


def config_template() -> str:
    """Return a configuration file listing every key with its default, commented out."""
    from gitflow_harness.store.config import SECTIONS, default_config, toml_value

    values = default_config().as_dict()
    lines = [
        "# gitflow-harness configuration. Every key is optional: the values shown are the",
        "# defaults. Uncomment a line to change it; `gfh config show` prints what is in effect.",
    ]
    for section, schema in SECTIONS.items():
        lines += ["", f"# [{section}]"]
        for field in schema.fields:
            value = values[section][field.name]
            if field.name == "prepare" and section == "gate":
                rendered = "[]  # default: pre-commit when configured, else none"
            elif isinstance(value, dict) and not value:
                continue  # tables such as graph.loops are documented, not pre-filled
            else:
                rendered = toml_value(value)
            lines.append(f"# {field.name} = {rendered}")
    return "\n".join(lines) + "\n"


def folders(config: Config) -> list[str]:
    """The repository folders gfh works with, repo-relative."""
    return [config.paths.ways, config.paths.pills, config.paths.requests]


def starter_ways(root: Tree | None = None) -> dict[str, Tree]:
    """Return the starter ways under `root` (default: those shipped in the package) by id.

    A way is a directory holding `<dirname>.md`; one whose frontmatter says `x-starter: false`
    is this project's own and is not offered.
    """
    if root is None:
        from gitflow_harness.ways import starter_ways_root

        root = starter_ways_root()
    found: dict[str, Tree] = {}

    def walk(node: Tree, prefix: str) -> None:
        try:
            children = sorted(node.iterdir(), key=lambda c: c.name)
        except (FileNotFoundError, NotADirectoryError):
            return
        names = {c.name for c in children}
        if prefix and f"{node.name}.md" in names:
            if offered(node):
                found[prefix] = node
            return
        for child in children:
            if child.is_dir() and not child.name.startswith((".", "__")):
                walk(child, f"{prefix}/{child.name}" if prefix else child.name)

    walk(root, "")
    return found


def offered(way: Tree) -> bool:
    """False for a way whose frontmatter opts it out of the starter set (`x-starter: false`)."""
    from gitflow_harness.store.frontmatter import split

    text = _way_text(way)
    parts = split(text.removeprefix("\ufeff")) if text is not None else None
    return parts is None or _NOT_A_STARTER.search(parts[0]) is None


def _way_text(way: Tree) -> str | None:
    for child in way.iterdir():
        if child.name == f"{way.name}.md":
            return child.read_bytes().decode("utf-8", "replace")
    return None


def describe(way: Tree) -> str:
    """Return a way's `description:` line, read without a YAML parser."""
    text = _way_text(way)
    match = re.search(r"^description:\s*(.+?)\s*$", text, re.M) if text is not None else None
    return match.group(1).strip("'\"") if match else ""


def choose(available: dict[str, Tree], wanted: Sequence[str], *, every: bool) -> list[str]:
    """Return the chosen way ids, refusing unknown ones with the list of those that exist."""
    if every:
        return sorted(available)
    unknown = [w for w in wanted if w not in available]
    if unknown:
        names = ", ".join(sorted(available)) or "(none in this installation)"
        raise UsageError(
            f"no starter way {', '.join(repr(u) for u in unknown)}; available: {names} "
            "(`gfh init --list-ways` describes them)"
        )
    return list(dict.fromkeys(wanted))


def way_files(way: Tree, prefix: str) -> Iterator[tuple[str, bytes, bool]]:
    """Yield `(relative path, content, executable)` for every file of a starter way."""
    for child in sorted(way.iterdir(), key=lambda c: c.name):
        rel = f"{prefix}/{child.name}"
        if child.is_dir():
            if not child.name.startswith(("__", ".")):
                yield from way_files(child, rel)
        elif child.is_file():
            yield rel, child.read_bytes(), _executable(child)


def _executable(node: Tree) -> bool:
    import os

    try:
        return os.access(os.fspath(node), os.X_OK)  # type: ignore[call-overload]
    except TypeError:  # a resource inside an archive: scripts are meant to run
        return node.name.endswith(".sh")
