"""`.gitflow-harness.toml`: every key optional, every unknown key or wrong type an error.

The schema below is the one declaration of the configuration: it validates, supplies defaults,
and feeds `gfh config show` and the docs.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping
from pathlib import Path

from gitflow_harness import MappingProxyType, jsonio
from gitflow_harness.errors import ConfigError
from gitflow_harness.firing.curves import MAX_HALF_LIFE
from gitflow_harness.store.ritual_config import RitualConfig as RitualConfig  # re-exported
from gitflow_harness.store.schema import (
    Bool,
    Choice,
    Field,
    Float,
    Int,
    Problem,
    Schema,
    Str,
    StrList,
)

# Not `typing.TYPE_CHECKING`: importing typing costs ~2 ms per hook call (mypy reads the name).
TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any, Final, NamedTuple
else:
    from gitflow_harness.records import NamedTuple

CONFIG_FILE: Final = ".gitflow-harness.toml"
# What a subagent's first line `VERDICT: X` can carry, and so what a configured verdict may be.
VERDICT_TOKEN: Final = re.compile(r"[A-Za-z][A-Za-z_-]{0,31}")
ADAPTERS: Final = ("claude", "cursor", "codex")
PRE_COMMIT_DEFAULT: Final = ("pre-commit run --all-files",)
# Windows of the learning statistics: a century is plenty, and keeps date arithmetic in range.
MAX_DAYS: Final = 36500


def _section(name: str, *fields: Field) -> Schema:
    return Schema(f"the [{name}] table", fields, extra_prefix=None, noun="key")


SECTIONS: Final[dict[str, Schema]] = {
    "repository": _section(
        "repository",
        Field(
            "trunk", Str(), "", "trunk branch; empty = detect: origin/HEAD, else main, else master"
        ),
        Field(
            "worktrees",
            Str(nonempty=True),
            "../{repo}.worktrees",
            "where `gfh start` creates worktrees; {repo} = the repository's directory name",
        ),
        Field(
            "protect_trunk",
            Choice("agents", "all", "warn", "off"),
            "agents",
            "commits on the trunk and pushes to the remote trunk: refused in an agent session "
            "(agents), refused for everyone (all), only warned about (warn), or not checked (off)",
        ),
    ),
    "paths": _section(
        "paths",
        Field("ways", Str(nonempty=True), "hooks/ways", "root of the ways tree"),
        Field("pills", Str(nonempty=True), "pills", "root of the lessons"),
        Field("requests", Str(nonempty=True), "requests", "where graduation requests are filed"),
    ),
    "gate": _section(
        "gate",
        Field(
            "prepare",
            StrList(),
            None,
            "shell commands of `gfh prepare`; default: pre-commit when configured, else none",
        ),
        Field("test", StrList(), (), "shell commands of `gfh test`"),
        Field(
            "push",
            Choice("block-red", "require-green", "off"),
            "block-red",
            "what the pre-push hook refuses",
        ),
    ),
    "ways": _section(
        "ways",
        Field("floor", Float(min=0.0, max=1.0), 0.5, "re-fire a way when its salience drops below"),
        Field("budget_chars", Int(min=0), 9000, "most characters one hook call injects"),
        Field(
            "postcheck_timeout_s",
            Float(min=0.0),
            5.0,
            "seconds all the postchecks and macros of one hook call get together",
        ),
        Field(
            "default_half_life",
            Int(min=1, max=MAX_HALF_LIFE),
            30000,
            "half-life `gfh ways migrate` gives",
        ),
    ),
    "ritual": _section(
        "ritual",
        Field(
            "enforce",
            StrList(item=Choice(*ADAPTERS)),
            ("claude", "cursor"),
            "adapters whose Stop blocks; codex only ever observes",
        ),
        Field("require_status", Bool(), True, "rule 1: `gfh status --end-turn` ran in the turn"),
        Field("require_box", Bool(), True, "rule 2: the reply shows the status box"),
        Field("require_task", Bool(), True, "rule 3: `gfh task set` ran in the turn"),
        Field(
            "max_blocks",
            Int(min=0),
            3,
            "consecutive blocks of one turn, then it may end unrepaired; 0 = observe only",
        ),
        Field(
            "chat_turns",
            Choice("free", "box"),
            "free",
            "a turn without tools: nothing required (free) or the box",
        ),
    ),
    "learning": _section(
        "learning",
        Field("graduation_at", Int(min=1), 3, "occurrences at which a pill is owed a request"),
        Field(
            "capture_at", Int(min=1), 3, "loop-backs since a role's newest lesson that are overdue"
        ),
        Field(
            "capture_days",
            Int(min=1, max=MAX_DAYS),
            14,
            "window of the overdue detector, in days",
        ),
        Field(
            "verify_days", Int(min=1, max=MAX_DAYS), 14, "days either side of a lesson to compare"
        ),
        Field("verify_min", Int(min=1), 5, "rounds needed on each side to call a change"),
        Field(
            "loop_back",
            StrList(item=Str(nonempty=True)),
            ("REJECTED", "BLOCKED", "FAIL", "FAILED"),
            "verdicts that send work back (any case: read upper-cased)",
        ),
    ),
    "graph": _section(
        "graph",
        Field("stages", StrList(item=Str(nonempty=True)), (), "the project's agent stages"),
        Field("loops", lambda v: v, {}, "per role: verdict -> stages the work goes back to"),
    ),
}


class RepositoryConfig(NamedTuple):
    trunk: str
    worktrees: str
    protect_trunk: str


class PathsConfig(NamedTuple):
    ways: str
    pills: str
    requests: str


class GateConfig(NamedTuple):
    prepare: tuple[str, ...]
    test: tuple[str, ...]
    push: str


class WaysConfig(NamedTuple):
    floor: float
    budget_chars: int
    postcheck_timeout_s: float
    default_half_life: int


class LearningConfig(NamedTuple):
    graduation_at: int
    capture_at: int
    capture_days: int
    verify_days: int
    verify_min: int
    loop_back: tuple[str, ...]


class GraphConfig(NamedTuple):
    stages: tuple[str, ...]
    # role -> verdict -> stages the work is sent back to
    loops: Mapping[str, Mapping[str, tuple[str, ...]]]


class Config(NamedTuple):
    """The effective configuration, and where each value came from."""

    repository: RepositoryConfig
    paths: PathsConfig
    gate: GateConfig
    ways: WaysConfig
    ritual: RitualConfig
    learning: LearningConfig
    graph: GraphConfig
    path: Path | None = None
    sources: Mapping[str, str] = MappingProxyType({})

    def as_dict(self) -> dict[str, dict[str, Any]]:
        """Return the values as plain JSON-able data, section by section."""
        out: dict[str, dict[str, Any]] = {}
        for section in SECTIONS:
            record = getattr(self, section)
            out[section] = {
                f.name: _plain(getattr(record, f.name)) for f in SECTIONS[section].fields
            }
        return out


_RECORDS: Final = {
    "repository": RepositoryConfig,
    "paths": PathsConfig,
    "gate": GateConfig,
    "ways": WaysConfig,
    "ritual": RitualConfig,
    "learning": LearningConfig,
    "graph": GraphConfig,
}


def load_config(top: Path | None) -> Config:
    """Load the configuration of the worktree at `top` (None: outside a repository)."""
    path = top / CONFIG_FILE if top is not None else None
    raw: dict[str, Any] = {}
    lines: dict[str, int] = {}
    if path is not None and path.is_file():
        raw, lines = _read_toml(path)
    elif path is not None and path.exists():
        raise ConfigError(f"{path}: not a file; make it a TOML file or remove it")
    else:
        path = None
    return _build(raw, lines, path, top)


def default_config() -> Config:
    """Return the configuration with every default."""
    return _build({}, {}, None, None)


MAX_CONFIG_BYTES = 256 * 1024


def _read_toml(path: Path) -> tuple[dict[str, Any], dict[str, int]]:
    import tomllib

    from gitflow_harness.store.fsutil import TooLarge, read_bounded

    try:
        text = read_bounded(path, MAX_CONFIG_BYTES).decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        raise ConfigError(f"{path}: not UTF-8 text ({exc.reason}); save it as UTF-8") from None
    except TooLarge:
        raise ConfigError(
            f"{path}: larger than {MAX_CONFIG_BYTES // 1024} KiB; a configuration is a few "
            "dozen keys: shorten it"
        ) from None
    except OSError as exc:
        raise ConfigError(f"{path}: cannot read it: {exc.strerror}") from None
    try:
        raw = tomllib.loads(text)
    except RecursionError:  # tomllib parses nested arrays and tables recursively
        raise ConfigError(f"{path}: values nested too deep; flatten them") from None
    except tomllib.TOMLDecodeError as exc:
        message = str(exc)
        match = re.search(r"\(at line (\d+), column \d+\)", message)
        line = match.group(1) if match else "1"
        reason = re.sub(r"\s*\(at line \d+, column \d+\)", "", message) or "invalid TOML"
        raise ConfigError(f"{path}:{line}: invalid TOML: {reason}") from None
    return raw, _key_lines(text)


_HEADER = re.compile(r"^\s*\[\[?\s*([^\]]+?)\s*\]\]?\s*(?:#.*)?$")
_KEY = re.compile(
    r"""^\s*((?:"[^"]*"|'[^']*'|[A-Za-z0-9_-]+)(?:\s*\.\s*(?:"[^"]*"|'[^']*'|[A-Za-z0-9_-]+))*)\s*="""
)


def _key_lines(text: str) -> dict[str, int]:
    """Map dotted key paths (`gate.push`) and table names to their 1-based line numbers."""
    found: dict[str, int] = {}
    table: list[str] = []
    for number, line in enumerate(text.splitlines(), start=1):
        header = _HEADER.match(line)
        if header:
            table = _split_dotted(header.group(1))
            found.setdefault(".".join(table), number)
            continue
        key = _KEY.match(line)
        if key:
            parts = table + _split_dotted(key.group(1))
            for i in range(1, len(parts) + 1):
                found.setdefault(".".join(parts[:i]), number)
    return found


def _split_dotted(text: str) -> list[str]:
    parts = re.findall(r'"([^"]*)"|\'([^\']*)\'|([A-Za-z0-9_-]+)', text)
    return [a or b or c for a, b, c in parts]


class Reading:
    """One configuration file being read: where it is, its key lines, and the values so far."""

    __slots__ = ("lines", "sections", "sources", "top", "where")

    def __init__(self, where: str, lines: Mapping[str, int], top: Path | None) -> None:
        self.where = where  # the file, as messages name it
        self.lines = lines  # dotted key -> its line
        self.top = top  # the worktree, None outside a repository
        self.sections: dict[str, dict[str, Any]] = {}  # checked, per table
        self.sources: dict[str, str] = {}  # dotted key -> where its value is from

    def problem(self, key: str, message: str) -> Problem:
        return Problem(self.where, self.lines.get(key), "error", message)


def _build(
    raw: dict[str, Any], lines: dict[str, int], path: Path | None, top: Path | None
) -> Config:
    reading = Reading(str(path) if path else CONFIG_FILE, lines, top)
    problems = table_problems(raw, reading)
    for name, schema in SECTIONS.items():
        problems.extend(check_section(name, schema, raw.get(name), reading))
    for rule in AFTER_CHECK:
        problems.extend(rule(reading))
    raise_first(problems)
    records = {name: _RECORDS[name](**reading.sections[name]) for name in SECTIONS}
    return Config(**records, path=path, sources=reading.sources)


def table_problems(raw: Mapping[str, Any], reading: Reading) -> list[Problem]:
    """Every top-level key is one of the known tables, and a table."""
    problems: list[Problem] = []
    for name in raw:
        if name not in SECTIONS:
            known = ", ".join(SECTIONS)
            problems.append(reading.problem(name, f"unknown key {name!r} (known tables: {known})"))
        elif not isinstance(raw[name], dict):
            problems.append(reading.problem(name, f"{name} must be a table [{name}]"))
    return problems


def check_section(name: str, schema: Schema, given: Any, reading: Reading) -> list[Problem]:
    """Check one table against its schema; record its values and where each came from."""
    table: dict[str, Any] = given if isinstance(given, dict) else {}
    lines = {k: reading.lines[f"{name}.{k}"] for k in table if f"{name}.{k}" in reading.lines}
    values, found = schema.check(
        table,
        path=reading.where,
        lines=lines,
        default_line=reading.lines.get(name),
        qualifier=f"{name}.",
    )
    for f in schema.fields:
        line = lines.get(f.name)
        given_at = f"{reading.where}:{line}" if line else reading.where
        reading.sources[f"{name}.{f.name}"] = given_at if f.name in table else "default"
    reading.sections[name] = values
    return found


def loop_back_verdicts(reading: Reading) -> list[Problem]:
    """The hook records a verdict token upper-cased: normalise the configured ones once, here,
    so every reader compares like with like."""
    learning = reading.sections["learning"]
    loop_back = learning.get("loop_back")
    if not isinstance(loop_back, tuple):
        return []
    learning["loop_back"] = tuple(dict.fromkeys(v.upper() for v in loop_back))
    return [
        reading.problem("learning.loop_back", _bad_verdict(token))
        for token in loop_back
        if not VERDICT_TOKEN.fullmatch(token)
    ]


def graph_loops(reading: Reading) -> list[Problem]:
    graph = reading.sections["graph"]
    if "loops" not in graph:
        return []
    loops, found = _graph_loops(graph.get("loops") or {}, reading.where, reading.lines)
    graph["loops"] = loops
    return found


def prepare_default(reading: Reading) -> list[Problem]:
    """A missing `gate.prepare` is pre-commit when the worktree configures it, else nothing.

    A wrong-typed one is left out of the section by the schema check and reported there; only
    a missing one takes the default."""
    gate = reading.sections["gate"]
    if "prepare" in gate and gate["prepare"] is None:
        top = reading.top
        has_pre_commit = top is not None and (top / ".pre-commit-config.yaml").is_file()
        gate["prepare"] = PRE_COMMIT_DEFAULT if has_pre_commit else ()
        if has_pre_commit:
            reading.sources["gate.prepare"] = "default (.pre-commit-config.yaml exists)"
    return []


# What is checked and filled in once every table has passed its schema, in this order.
AFTER_CHECK: Final[tuple[Callable[[Reading], list[Problem]], ...]] = (
    loop_back_verdicts,
    graph_loops,
    prepare_default,
)


def raise_first(problems: list[Problem]) -> None:
    """Raise the first error as the file reads, whatever order the checks ran in."""
    errors = sorted((p for p in problems if p.severity == "error"), key=lambda p: p.line or 0)
    if not errors:
        return
    first = errors[0]
    more = f" (and {len(errors) - 1} more)" if len(errors) > 1 else ""
    where_line = f"{first.path}:{first.line}" if first.line else first.path
    raise ConfigError(f"{where_line}: {first.message}{more}")


def _graph_loops(
    value: Any, where: str, lines: Mapping[str, int]
) -> tuple[dict[str, dict[str, tuple[str, ...]]], list[Problem]]:
    problems: list[Problem] = []
    loops: dict[str, dict[str, tuple[str, ...]]] = {}
    line = lines.get("graph.loops")
    if not isinstance(value, dict):
        return {}, [
            Problem(where, line, "error", "graph.loops must be tables [graph.loops.<role>]")
        ]
    for role, verdicts in value.items():
        role_line = lines.get(f"graph.loops.{role}", line)
        if not isinstance(verdicts, dict):
            problems.append(
                Problem(
                    where,
                    role_line,
                    "error",
                    f"graph.loops.{role} must be a table of VERDICT = [stages]",
                )
            )
            continue
        loops[role] = {}
        for verdict, targets in verdicts.items():
            key = f"graph.loops.{role}.{verdict}"
            if not isinstance(targets, list) or not all(isinstance(t, str) and t for t in targets):
                problems.append(
                    Problem(
                        where,
                        lines.get(key, role_line),
                        "error",
                        f"{key}: expected a list of stage names",
                    )
                )
                continue
            if not VERDICT_TOKEN.fullmatch(verdict):
                problems.append(
                    Problem(where, lines.get(key, role_line), "error", _bad_verdict(verdict))
                )
                continue
            token = verdict.upper()
            if token in loops[role]:
                problems.append(
                    Problem(
                        where,
                        lines.get(key, role_line),
                        "error",
                        f"{key}: the same verdict as {token} (verdicts are read in upper case); "
                        "keep one of them",
                    )
                )
                continue
            loops[role][token] = tuple(targets)
    return loops, problems


def _bad_verdict(token: str) -> str:
    return (
        f"verdict {token!r} can never be read from a `VERDICT: X` line: a verdict is one word of "
        "letters, '_' or '-' (at most 32), starting with a letter"
    )


def _plain(value: Any) -> Any:
    if isinstance(value, tuple):
        return [_plain(v) for v in value]
    if isinstance(value, Mapping):
        return {k: _plain(v) for k, v in value.items()}
    return value


def toml_value(value: Any) -> str:
    """Render a configuration value as TOML (for `gfh config show`)."""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int | float):
        return repr(value)
    if isinstance(value, str):
        return jsonio.dumps(value, ensure_ascii=False)
    if isinstance(value, list | tuple):
        return "[" + ", ".join(toml_value(v) for v in value) + "]"
    if isinstance(value, Mapping):
        return "{" + ", ".join(f"{k} = {toml_value(v)}" for k, v in value.items()) + "}"
    raise TypeError(f"cannot render {type(value).__name__} as TOML")
