"""The package's import graph, read from the source: no cycles, and the layers point one way.

Every `import` counts, at module level or inside a function (a deferred import only postpones
a cycle), except the ones under `if TYPE_CHECKING:`, which never run. Importing
`gitflow_harness.a.b` runs `gitflow_harness.a` first, so the packages on the way count too.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

import gitflow_harness

ROOT = Path(gitflow_harness.__file__).resolve().parent
PACKAGE = "gitflow_harness"

# package -> the project packages it must never import (docs/contributing.md, layout).
DOMAIN_MUST_NOT = ("agent", "cli", "main", "demo", "mcp")
FORBIDDEN: dict[str, tuple[str, ...]] = {
    "ways": DOMAIN_MUST_NOT,
    "ritual": DOMAIN_MUST_NOT,
    "hookcall": (*DOMAIN_MUST_NOT, "ways", "ritual", "workflow", "learning", "report", "scaffold"),
    "store": (*DOMAIN_MUST_NOT, "ways", "ritual", "hookcall", "workflow", "learning", "report"),
    "git": (*DOMAIN_MUST_NOT, "ways", "ritual", "hookcall", "workflow", "learning", "report"),
    "firing": ("*",),  # pure: nothing of the project but itself
}


def module_name(path: Path) -> str:
    parts = path.relative_to(ROOT.parent).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def modules() -> dict[str, Path]:
    return {module_name(path): path for path in sorted(ROOT.rglob("*.py"))}


def _is_type_checking(node: ast.If) -> bool:
    test = node.test
    return (isinstance(test, ast.Name) and test.id == "TYPE_CHECKING") or (
        isinstance(test, ast.Attribute) and test.attr == "TYPE_CHECKING"
    )


def _run_time_imports(tree: ast.AST) -> list[ast.Import | ast.ImportFrom]:
    found: list[ast.Import | ast.ImportFrom] = []
    pending: list[ast.AST] = [tree]
    while pending:
        node = pending.pop()
        if isinstance(node, ast.If) and _is_type_checking(node):
            pending.extend(node.orelse)
            continue
        if isinstance(node, ast.Import | ast.ImportFrom):
            found.append(node)
        pending.extend(ast.iter_child_nodes(node))
    return found


def _with_parents(name: str, known: dict[str, Path]) -> set[str]:
    parts = name.split(".")
    return {".".join(parts[:n]) for n in range(1, len(parts) + 1)} & known.keys()


def _absolute(node: ast.ImportFrom, importer: str, is_package: bool) -> str:
    if not node.level:
        return node.module or ""
    base = importer.split(".")
    base = base if is_package else base[:-1]
    base = base[: len(base) - (node.level - 1)]
    return ".".join([*base, *([node.module] if node.module else [])])


def imports_of(name: str, path: Path, known: dict[str, Path]) -> set[str]:
    """The project modules `name` imports when it runs (itself and its own parents left out)."""
    targets: set[str] = set()
    for node in _run_time_imports(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            for alias in node.names:
                targets |= _with_parents(alias.name, known)
            continue
        source = _absolute(node, name, path.name == "__init__.py")
        targets |= _with_parents(source, known)
        for alias in node.names:  # `from package import module` imports the module
            targets |= _with_parents(f"{source}.{alias.name}", known)
    return {t for t in targets if t != name and not name.startswith(f"{t}.")}


def graph() -> dict[str, set[str]]:
    known = modules()
    return {name: imports_of(name, path, known) for name, path in known.items()}


def find_cycle(edges: dict[str, set[str]]) -> list[str] | None:
    """One cycle of the graph, as the modules along it (first repeated last), or None."""
    done: set[str] = set()
    for start in sorted(edges):
        if start in done:
            continue
        trail: list[str] = []
        on_trail: set[str] = set()
        stack: list[tuple[str, list[str]]] = [(start, sorted(edges[start]))]
        trail.append(start)
        on_trail.add(start)
        while stack:
            node, rest = stack[-1]
            if not rest:
                stack.pop()
                trail.pop()
                on_trail.discard(node)
                done.add(node)
                continue
            nxt = rest.pop(0)
            if nxt in on_trail:
                return [*trail[trail.index(nxt) :], nxt]
            if nxt not in done:
                stack.append((nxt, sorted(edges.get(nxt, ()))))
                trail.append(nxt)
                on_trail.add(nxt)
    return None


def layer(name: str) -> str:
    parts = name.split(".")
    return parts[1] if len(parts) > 1 else ""


def violations(edges: dict[str, set[str]]) -> list[str]:
    found = []
    for importer, targets in sorted(edges.items()):
        banned = FORBIDDEN.get(layer(importer))
        if banned is None:
            continue
        for target in sorted(targets):
            theirs = layer(target)
            if theirs in banned or (banned == ("*",) and theirs not in ("", layer(importer))):
                found.append(f"{importer} imports {target}")
    return found


def test_the_package_has_no_import_cycle() -> None:
    cycle = find_cycle(graph())
    assert cycle is None, " -> ".join(cycle or ())


def test_the_lower_layers_never_import_the_upper_ones() -> None:
    assert violations(graph()) == []


def test_the_graph_sees_deferred_imports_and_skips_type_only_ones() -> None:
    known = modules()
    # ways.firing defers its postcheck import into a function and names HookContext for mypy.
    firing = imports_of("gitflow_harness.ways.firing", known["gitflow_harness.ways.firing"], known)
    assert "gitflow_harness.ways.postcheck" in firing
    assert "gitflow_harness.agent.context" not in firing
    assert "gitflow_harness.firing" in firing  # the package runs before its module


@pytest.mark.parametrize(
    ("edges", "cycle"),
    [
        ({"a": {"b"}, "b": {"c"}, "c": {"a"}}, ["a", "b", "c", "a"]),
        ({"a": {"b"}, "b": {"b"}}, ["b", "b"]),
        ({"a": {"b", "c"}, "b": {"c"}, "c": set()}, None),
    ],
)
def test_find_cycle(edges: dict[str, set[str]], cycle: list[str] | None) -> None:
    assert find_cycle(edges) == cycle


def test_violations_name_the_import_against_the_arrows() -> None:
    edges = {
        "gitflow_harness.ways.firing": {"gitflow_harness.agent.context", "gitflow_harness.store"},
        "gitflow_harness.firing.curves": {"gitflow_harness.errors", "gitflow_harness.firing"},
        "gitflow_harness.agent.runtime": {"gitflow_harness.cli"},
    }
    assert violations(edges) == [
        "gitflow_harness.firing.curves imports gitflow_harness.errors",
        "gitflow_harness.ways.firing imports gitflow_harness.agent.context",
    ]
