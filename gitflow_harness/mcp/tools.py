"""The tools `gfh mcp` offers, declared once: names, arguments, and how arguments are checked.

One declaration drives the `tools/list` answer (each tool's JSON Schema), the checking of a
call's arguments, and docs/mcp.md (a test holds them together). Pure data: the server imports
this at start-up, so it imports nothing beyond the standard library.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, Final, Literal

from gitflow_harness.errors import UsageError

Kind = Literal["string", "boolean", "integer"]
MAX_DAYS: Final = 36500  # store.config.MAX_DAYS, the CLI's bound on `learn --days`


@dataclass(frozen=True, slots=True)
class Param:
    """One argument of a tool: the CLI flag (or argument) it stands for, in snake_case."""

    name: str
    kind: Kind
    description: str
    required: bool = False
    flag: str | None = None  # the CLI's spelling, recorded in the verb event's `flags`
    minimum: int | None = None
    maximum: int | None = None

    def schema(self) -> dict[str, Any]:
        out: dict[str, Any] = {"type": self.kind, "description": self.description}
        if self.minimum is not None:
            out["minimum"] = self.minimum
        if self.maximum is not None:
            out["maximum"] = self.maximum
        return out


CWD: Final = Param(
    "cwd",
    "string",
    "Directory to run in, as if gfh were run there: a worktree made by `start`, say. Absolute, "
    "or relative to the server's working directory (the default).",
)


@dataclass(frozen=True, slots=True)
class Tool:
    """One tool: a gfh command, its arguments, and how the server runs it."""

    name: str
    command: str  # the CLI command it answers like
    description: str
    params: tuple[Param, ...] = ()
    gate: bool = False  # runs gate commands: reports progress, captures their output
    # Changes the repository (git, gate receipts, requests, the task): one at a time per server.
    mutates: bool = False

    def mutating(self, args: Mapping[str, Any]) -> bool:
        """Whether this call changes the repository (`learn` does only with `check`)."""
        return self.mutates or (self.name == "learn" and bool(args.get("check")))

    @property
    def every_param(self) -> tuple[Param, ...]:
        return (*self.params, CWD)

    def input_schema(self) -> dict[str, Any]:
        """Return the tool's JSON Schema for its arguments."""
        return {
            "type": "object",
            "properties": {p.name: p.schema() for p in self.every_param},
            "required": [p.name for p in self.every_param if p.required],
            "additionalProperties": False,
        }

    def parse(self, arguments: Mapping[str, Any] | None) -> dict[str, Any]:
        """Check a call's arguments against the declaration; return them with defaults.

        A wrong call is a usage error naming the argument, as the CLI names a bad flag.
        """
        given = dict(arguments or {})
        known = {p.name: p for p in self.every_param}
        unknown = sorted(set(given) - set(known))
        if unknown:
            raise UsageError(
                f"{self.name}: no such argument {unknown[0]!r} (arguments: {', '.join(known)})"
            )
        out: dict[str, Any] = {}
        for param in self.every_param:
            value = given.get(param.name)
            if value is None:
                if param.required:
                    raise UsageError(f"{self.name}: argument {param.name!r} is required")
                out[param.name] = False if param.kind == "boolean" else None
                continue
            out[param.name] = _checked(self.name, param, value)
        return out


def _checked(tool: str, param: Param, value: Any) -> Any:
    expected = {"string": str, "boolean": bool, "integer": int}[param.kind]
    # bool is an int in Python, never in JSON Schema.
    if not isinstance(value, expected) or (param.kind == "integer" and isinstance(value, bool)):
        article = "an" if param.kind == "integer" else "a"
        raise UsageError(f"{tool}: argument {param.name!r} must be {article} {param.kind}")
    if isinstance(value, int):
        if param.minimum is not None and value < param.minimum:
            raise UsageError(f"{tool}: argument {param.name!r} must be at least {param.minimum}")
        if param.maximum is not None and value > param.maximum:
            raise UsageError(f"{tool}: argument {param.name!r} must be at most {param.maximum}")
    return value


TOOLS: Final = (
    Tool(
        "status",
        "gfh status",
        "Where this working tree stands: branch, trunk, changes, behind/ahead, the gate of this "
        "exact tree, task and session. With end_turn, also records the end-of-turn check: show "
        "the status box from this result in your reply.",
        (
            Param(
                "end_turn",
                "boolean",
                "Record the end-of-turn check (`gfh status --end-turn`).",
                flag="--end-turn",
            ),
        ),
    ),
    Tool(
        "start",
        "gfh start",
        "Create branch NAME from the trunk in a new worktree; the result names its path (pass it "
        "as cwd to the next calls).",
        (
            Param("name", "string", "The new branch.", required=True),
            Param(
                "from",
                "string",
                "Branch from this ref instead of the trunk (`--from REF`).",
                flag="--from",
            ),
        ),
        mutates=True,
    ),
    Tool(
        "update",
        "gfh update",
        "Bring the local trunk into this branch (merge, or rebase). Refused on a dirty tree; on "
        "a conflict the branch is left as it was and the files are listed.",
        (
            Param(
                "rebase", "boolean", "Rebase onto the trunk instead of merging it.", flag="--rebase"
            ),
        ),
        mutates=True,
    ),
    Tool(
        "prepare",
        "gfh prepare",
        "Run the [gate] prepare commands, stopping at the first failure.",
        gate=True,
        mutates=True,
    ),
    Tool(
        "test",
        "gfh test",
        "Run the [gate] test commands and record green or red for this exact tree.",
        gate=True,
        mutates=True,
    ),
    Tool(
        "done",
        "gfh done",
        "Judge this branch: it must contain the trunk, then prepare and test must pass; green "
        "writes the receipt accept needs.",
        (
            Param(
                "rerun",
                "boolean",
                "Judge a tree already judged red again (recorded as a probe).",
                flag="--rerun",
            ),
        ),
        gate=True,
        mutates=True,
    ),
    Tool(
        "accept",
        "gfh accept",
        "Fast-forward the trunk to this branch, then remove its worktree and the branch. Needs "
        "a green receipt from done for the current tree.",
        mutates=True,
    ),
    Tool(
        "task_set",
        "gfh task set",
        "Declare the focus of this turn (the end-of-turn ritual asks for it); an empty task "
        "declares a purely conversational turn.",
        (Param("task", "string", "The turn's focus, one line.", required=True),),
        mutates=True,
    ),
    Tool(
        "report",
        "gfh report",
        "What the detectors found in the event log and git history.",
        (Param("since", "string", "Only events from this date on (YYYY-MM-DD, UTC)."),),
    ),
    Tool(
        "ways_list",
        "gfh ways list",
        "Every way: lanes, curve, refire delta at the floor, fires and suppressions.",
    ),
    Tool(
        "learn",
        "gfh learn",
        "What the lessons say: overdue roles, owed requests, relapses, verify readings. With "
        "check, file the requests and reopenings that are owed.",
        (
            Param("check", "boolean", "File what is owed (`gfh learn --check`).", flag="--check"),
            Param(
                "days",
                "integer",
                "Window for loop-backs and overdue roles (default learning.capture_days).",
                flag="--days",
                minimum=1,
                maximum=MAX_DAYS,
            ),
        ),
    ),
)

BY_NAME: Final = {t.name: t for t in TOOLS}


def flags(tool: Tool, args: Mapping[str, Any]) -> list[str]:
    """The CLI flags a call's arguments stand for, as the verb event records them."""
    return [
        p.flag for p in tool.params if p.flag is not None and args.get(p.name) not in (None, False)
    ]
