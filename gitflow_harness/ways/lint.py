"""`gfh ways lint`: every problem of every way file, as `path:line: severity: message`.

Errors are what stops a way from loading (the schema, the curve, regexes, `redisclose`) or from
ever firing (no trigger). Warnings need the repository to see: globs that match no tracked file, a
script (postcheck.sh, macro.sh) that is not what HEAD holds (the hook runs only committed
content), a script whose `#!` line the hook ignores (it is not executable, so it runs with `sh`),
a `macro:` with no macro.sh, a way with nothing to
inject. Every problem names a line: a script or a stray file is named at its line 1. `fix`
removes unknown fields by line surgery and changes nothing else.
"""

from __future__ import annotations

import os
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from gitflow_harness import git
from gitflow_harness.errors import UsageError
from gitflow_harness.store import documents
from gitflow_harness.store.documents import Document, DocumentError
from gitflow_harness.store.schema import Problem
from gitflow_harness.ways.index import scan
from gitflow_harness.ways.match import glob_match
from gitflow_harness.ways.model import MACRO_FILE, POSTCHECK_FILE
from gitflow_harness.ways.parse import WAY_SCHEMA, check_way, nested_lines, way_id


@dataclass
class LintReport:
    """What a lint run found and, with `fix`, what it removed."""

    files: int = 0
    problems: list[Problem] = field(default_factory=list)
    fixed: list[tuple[str, str]] = field(default_factory=list)  # (path, removed field)

    @property
    def errors(self) -> int:
        return sum(p.severity == "error" for p in self.problems)

    @property
    def warnings(self) -> int:
        return sum(p.severity == "warning" for p in self.problems)


@dataclass(frozen=True)
class _Target:
    file: Path
    root: Path | None


def lint(
    paths: Sequence[Path],
    *,
    root: Path,
    repo: git.Repo | None,
    fix: bool = False,
) -> LintReport:
    """Lint the ways at `paths` (files or directories; all of `root` when empty)."""
    report = LintReport()
    targets, strays = _targets(paths or [root], root)
    for stray in strays:
        report.problems.append(
            Problem(
                str(stray),
                1,
                "warning",
                f"not a way: a way is <dir>/<dir>.md, so this file is never loaded; "
                f"rename it {stray.parent.name}.md or move it into a directory named "
                f"{stray.stem}",
            )
        )
    tracked = _tracked(repo)
    top = Path(repo.top) if repo is not None and repo.top is not None else None
    for target in targets:
        report.files += 1
        if fix:
            removed = _fix(target.file)
            report.fixed.extend((str(target.file), key) for key in removed)
        report.problems.extend(_lint_one(target, tracked, top))
    # `path:line: severity: message` always: a file that cannot be read is named at its line 1.
    report.problems = [
        p if p.line is not None else Problem(p.path, 1, p.severity, p.message)
        for p in report.problems
    ]
    return report


def _targets(paths: Iterable[Path], root: Path) -> tuple[list[_Target], list[Path]]:
    files: dict[Path, _Target] = {}
    strays: set[Path] = set()
    inside = root.resolve()
    for given in paths:
        path = given.absolute()
        if path.exists() and not path.resolve().is_relative_to(inside):
            raise UsageError(f"{given}: not under the ways root {root}; only ways are linted")
        if path.is_dir():
            own = path / f"{path.name}.md"  # a way's own directory: scan sees only below it
            if own.is_file():
                files.setdefault(own, _Target(own, root))
            for found in scan(path):
                file = Path(found.file)
                files.setdefault(file, _Target(file, root))
            strays.update(_strays(path))
        elif path.is_file():
            way_file = _way_file_for(path)
            if way_file is not None:
                files.setdefault(way_file, _Target(way_file, root))
            elif path.suffix == ".md" and _is_stray(path, root):
                strays.add(path)
        else:
            raise UsageError(f"{given}: no such file or directory")
    return sorted(files.values(), key=lambda t: str(t.file)), sorted(strays)


def _way_file_for(path: Path) -> Path | None:
    """Return the way file a path belongs to: itself, or the way beside a macro or postcheck."""
    if path.name == f"{path.parent.name}.md":
        return path
    if path.name in (MACRO_FILE, POSTCHECK_FILE):
        candidate = path.parent / f"{path.parent.name}.md"
        return candidate if candidate.is_file() else None
    return None


def _strays(directory: Path) -> list[Path]:
    out: list[Path] = []
    for dirpath, dirnames, filenames in os.walk(directory):
        dirnames[:] = [d for d in dirnames if not d.startswith(".")]
        here = Path(dirpath)
        out.extend(
            here / name
            for name in filenames
            if name.endswith(".md") and _is_stray(here / name, directory)
        )
    return out


def _is_stray(path: Path, root: Path) -> bool:
    """A markdown file that looks meant as a way but is not named like one."""
    if path.name.lower() == "readme.md" or path.parent.resolve() == root.resolve():
        return False
    return not (path.parent / f"{path.parent.name}.md").is_file()


def _tracked(repo: git.Repo | None) -> set[str] | None:
    """Return the tracked paths (None outside a working tree)."""
    if repo is None or repo.top is None:
        return None
    return git.tracked(repo)


def _lint_one(target: _Target, tracked: set[str] | None, top: Path | None) -> list[Problem]:
    file = target.file
    where = str(file)
    macro = file.parent / MACRO_FILE
    postcheck = file.parent / POSTCHECK_FILE
    has_macro, has_postcheck = macro.is_file(), postcheck.is_file()
    try:
        doc = documents.read_document(file)
    except DocumentError as exc:
        return list(exc.problems)
    way, problems = check_way(
        doc, way_id(file, target.root), has_macro=has_macro, has_postcheck=has_postcheck
    )
    raw_when = doc.meta.get("when")
    lanes = way.lanes.names() if way else _declared_lanes(raw_when)
    if not lanes and not has_postcheck and not doc.meta.get("roles"):
        problems.append(
            Problem(
                where,
                doc.line_of("when"),
                "error",
                "no trigger: add a `when:` lane (prompt, keywords, files, commands, "
                "session_start), `roles:`, or a postcheck.sh beside it",
            )
        )
    if way is not None and tracked is not None and top is not None:
        problems.extend(_glob_warnings(doc, way.lanes.files, tracked))
    if "macro" in doc.meta and not has_macro:
        problems.append(
            Problem(
                where,
                doc.line_of("macro"),
                "warning",
                f"macro: set, but there is no {MACRO_FILE} beside the way",
            )
        )
    if not doc.body.strip() and not has_macro:
        problems.append(
            Problem(
                where,
                doc.body_line,
                "warning",
                f"the body is empty and there is no {MACRO_FILE}: nothing to inject",
            )
        )
    for script in (macro, postcheck):
        if not script.is_file():
            continue
        if _interpreter_ignored(script):
            problems.append(
                Problem(
                    str(script),
                    1,
                    "warning",
                    f"{script.name} is not executable: the hook runs it with `sh`, ignoring its "
                    f"`#!` line; chmod +x {script.name} and commit it if it needs another "
                    "interpreter",
                )
            )
        if tracked is None or top is None:
            continue
        rel = _relative(script, top)
        if rel is None:
            continue
        # The same test the hook applies before it runs a script: exactly HEAD's blob.
        verdict = git.committed(top, [rel])[rel]
        if verdict == git.UNTRACKED:
            problems.append(
                Problem(
                    str(script),
                    1,
                    "warning",
                    f"{script.name} is not committed as a regular file (a new file, or a "
                    "symlink); the hook runs only what HEAD holds: commit the script itself",
                )
            )
        elif verdict == git.MODIFIED:
            problems.append(
                Problem(
                    str(script),
                    1,
                    "warning",
                    f"{script.name} is not byte for byte what HEAD holds (an uncommitted edit, "
                    "or a checkout filter such as eol=crlf); the hook runs it only when it is: "
                    "commit it, or drop the filter for it",
                )
            )
    return sorted(problems, key=lambda p: (p.path, p.line or 0))


def _declared_lanes(raw: object) -> list[str]:
    if not isinstance(raw, dict):
        return []
    return [k for k, v in raw.items() if v not in (None, False, "", [], {})]


def _glob_warnings(doc: Document, globs: Sequence[str], tracked: set[str]) -> list[Problem]:
    line = nested_lines(doc, "when").get("files", doc.line_of("when"))
    out: list[Problem] = []
    for glob in globs:
        if not any(glob_match(glob, path) for path in tracked):
            out.append(
                Problem(
                    str(doc.path),
                    line,
                    "warning",
                    f"when.files: glob {glob!r} matches no file tracked by git",
                )
            )
    return out


def _relative(path: Path, top: Path) -> str | None:
    """The repo-relative path of `path` itself: its folder is resolved, a symlink it is is not
    (the hook looks the script up by this name and refuses a link)."""
    try:
        return (path.parent.resolve() / path.name).relative_to(top.resolve()).as_posix()
    except ValueError:
        return None


def _fix(file: Path) -> list[str]:
    """Remove the way file's unknown top-level fields; return their names."""
    try:
        doc = documents.read_document(file)
    except DocumentError:
        return []
    unknown = WAY_SCHEMA.unknown_keys(doc.meta)
    if not unknown:
        return []
    text = doc.text
    # Cut from the end so earlier spans stay valid.
    for key in sorted(unknown, key=lambda k: doc.spans[k].block_start, reverse=True):
        span = doc.spans[key]
        text = text[: span.block_start] + text[span.block_end :]
    documents.save(doc, text)
    return sorted(unknown, key=lambda k: doc.spans[k].line)


def _interpreter_ignored(script: Path) -> bool:
    """True when a script names its interpreter but, lacking the execute bit, would be run with
    `sh` instead (the hook runs a script directly only when it is executable and starts with
    `#!`; any other runs with `sh`, which is only a problem when the `#!` asked for another)."""
    if os.access(script, os.X_OK):
        return False
    try:
        with script.open("rb") as handle:
            return handle.read(2) == b"#!"
    except OSError:
        return False
