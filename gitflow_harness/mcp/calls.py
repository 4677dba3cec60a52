"""Running one tool call: the same domain call, event and `--json` object as the CLI command.

Synchronous and transport-free (the server runs it in a worker thread): it returns an `Answer`
and never prints. Every call gets its own supplemental-hint accumulator, so a long-lived server
never hands one call's hints to another, nor to the first call after its own start.
"""

from __future__ import annotations

import datetime as dt
import io
import sys
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, Final

from gitflow_harness import hints
from gitflow_harness.errors import GfhError, UsageError
from gitflow_harness.mcp.tools import BY_NAME, Tool, flags

if TYPE_CHECKING:
    from gitflow_harness.hints import Hint
    from gitflow_harness.workflow.result import VerbResult
    from gitflow_harness.workflow.run import Action
    from gitflow_harness.workspace import Workspace

Progress = Callable[[str], None]
# How much of the gate commands' own output a failed run hands back (the last lines).
OUTPUT_TAIL_LINES: Final = 40
OUTPUT_TAIL_CHARS: Final = 4000


@dataclass(frozen=True, slots=True)
class Answer:
    """A tool's result: the CLI's `--json` object, a short text, and whether it is an error.

    A verb's call is an error exactly when the CLI would exit non-zero (it failed or was
    refused); any other command's, when it could not answer (its text is then gfh's one line).
    """

    structured: dict[str, Any] | None
    text: str
    is_error: bool = False


def call(
    name: str, arguments: dict[str, Any] | None, *, progress: Progress | None = None
) -> Answer:
    """Run the tool `name` with `arguments` and return its answer; never raise for a known
    failure, and turn an unknown one into an error answer with a crash report."""
    tool = BY_NAME.get(name)
    if tool is None:
        return _error(f"no tool {name!r}; the tools are: {', '.join(BY_NAME)}")
    with hints.isolated():
        try:
            args = tool.parse(arguments)
            return HANDLERS[tool.name](tool, args, progress or _ignore)
        except GfhError as exc:
            return _error(exc.message)
        except Exception as exc:
            from gitflow_harness.store.crash import write_crash_report

            where = write_crash_report(exc, ["mcp", name])
            text = str(exc).strip().splitlines()
            first = text[0] if text else "(no message)"
            return _error(f"internal error: {type(exc).__name__}: {first} (full report: {where})")


def _error(message: str, structured: dict[str, Any] | None = None) -> Answer:
    return Answer(structured, f"gfh: {message}", is_error=True)


def _ignore(line: str) -> None:
    pass


def _directory(args: dict[str, Any]) -> Path | None:
    """The directory a call runs in: its `cwd`, relative to the server's own."""
    cwd = args.get("cwd")
    if cwd is None:
        return None
    path = Path(cwd).expanduser()
    if not path.is_dir():
        raise UsageError(f"cwd {cwd!r} is not a directory")
    return path


def _workspace(args: dict[str, Any]) -> Workspace:
    from gitflow_harness.workspace import open_workspace

    return open_workspace(_directory(args), surface="mcp")


# -- the workflow verbs ---------------------------------------------------------------------


class _Output(io.StringIO):
    """Where gate commands' own output goes: kept in memory, never on the server's stdout (the
    protocol's stream). Having no file descriptor, the gate copies the output here as it comes;
    only the end is kept, since only the end is handed back."""

    LIMIT: Final = 64 * 1024

    def write(self, text: str) -> int:
        written = super().write(text)
        if self.tell() > self.LIMIT:
            kept = self.getvalue()[-self.LIMIT // 2 :]
            self.seek(0)
            self.truncate()
            super().write(kept)
        return written


def run_verb(tool: Tool, args: dict[str, Any], progress: Progress, action: Action) -> Answer:
    """Run one workflow verb as the CLI does (`workflow/run.py`: the same refusals, the same
    delivered hints, the same `verb` event, with surface `mcp`) and answer with its result."""
    from gitflow_harness.workflow.commands import Console
    from gitflow_harness.workflow.run import run_verb as workflow_run

    output = _Output()
    guard = None
    if tool.name == "accept":  # accepts of one repository take turns, as the CLI's do
        from gitflow_harness.workflow.accept import accepting

        guard = accepting
    run = workflow_run(
        tool.name,
        action,
        console=Console(output, progress),
        flags=flags(tool, args),
        surface="mcp",
        directory=_directory(args),
        guard=guard,
    )
    warning = ""
    if run.warning:
        print(run.warning, file=sys.stderr)  # the host's log for this server
        warning = "\n" + run.warning
    if run.error is not None:
        return _error(run.error.message + warning, run.envelope())
    result = run.result
    text = _verb_text(result, run.delivered, output.getvalue() if tool.gate else "")
    return Answer(run.envelope(), text + warning, is_error=result.exit_code != 0)


def _verb_text(result: VerbResult, delivered: tuple[Hint, ...], output: str) -> str:
    """The short text for hosts that show only text: what happened, the status box for
    `status`, the hints, and for a failed gate the tail of its commands' output."""
    from gitflow_harness.workflow.start import StartData
    from gitflow_harness.workflow.status import StatusView
    from gitflow_harness.workflow.update import conflict_of

    lines: list[str] = []
    data = result.data
    if isinstance(data, StatusView) and result.outcome == "ok":
        lines.append(data.box)
    else:
        head = f"gfh {result.verb}: {result.outcome}"
        lines.append(f"{head}: {result.message}" if result.message else head)
        if isinstance(data, StartData) and result.outcome == "ok":
            lines.append(data.path)
        conflict = conflict_of(data)
        if conflict is not None:
            lines.extend(f"  conflict: {path}" for path in conflict.conflicts)
    lines.extend(f"hint: {h.text}  [{h.id}]" for h in delivered)
    if output and result.outcome != "ok":
        lines.append(f"output (last lines):\n{_tail(output)}")
    return "\n".join(lines)


def _tail(text: str) -> str:
    kept = "\n".join(text.rstrip("\n").splitlines()[-OUTPUT_TAIL_LINES:])
    return kept[-OUTPUT_TAIL_CHARS:]


def _status(tool: Tool, args: dict[str, Any], progress: Progress) -> Answer:
    from gitflow_harness.workflow.status import status

    return run_verb(tool, args, progress, lambda ws, _c: status(ws, end_turn=args["end_turn"]))


def _start(tool: Tool, args: dict[str, Any], progress: Progress) -> Answer:
    from gitflow_harness.workflow.start import start

    return run_verb(tool, args, progress, lambda ws, _c: start(ws, args["name"], base=args["from"]))


def _update(tool: Tool, args: dict[str, Any], progress: Progress) -> Answer:
    from gitflow_harness.workflow.update import update

    return run_verb(
        tool, args, progress, lambda ws, _c: update(ws, rebase=args["rebase"], surface="mcp")
    )


def _prepare(tool: Tool, args: dict[str, Any], progress: Progress) -> Answer:
    from gitflow_harness.workflow.gate import prepare

    return run_verb(tool, args, progress, prepare)


def _test(tool: Tool, args: dict[str, Any], progress: Progress) -> Answer:
    from gitflow_harness.workflow.gate import test

    return run_verb(tool, args, progress, test)


def _done(tool: Tool, args: dict[str, Any], progress: Progress) -> Answer:
    from gitflow_harness.workflow.done import done

    return run_verb(tool, args, progress, lambda ws, c: done(ws, c, rerun=args["rerun"]))


def _accept(tool: Tool, args: dict[str, Any], progress: Progress) -> Answer:
    from gitflow_harness.workflow.accept import accept

    return run_verb(tool, args, progress, lambda ws, _c: accept(ws))


# -- the other commands: their own `--json` objects -----------------------------------------


def _task_set(tool: Tool, args: dict[str, Any], progress: Progress) -> Answer:
    from gitflow_harness.ritual.task import declare

    task: str = args["task"]
    declaration = declare(_workspace(args), task)
    text = f"task: {task}" if task else "task: (conversational turn, no focus)"
    return Answer(declaration.to_dict(), text)


def _report(tool: Tool, args: dict[str, Any], progress: Progress) -> Answer:
    from gitflow_harness.report import render
    from gitflow_harness.report.runner import run_report

    since: str | None = args["since"]
    if since is not None:
        try:
            since = dt.date.fromisoformat(since).isoformat()
        except ValueError:
            raise UsageError(f"since {since!r}: expected a date YYYY-MM-DD") from None
    result = run_report(_workspace(args), since=since)
    return Answer(result.to_dict(), render.text(result))


def _ways_list(tool: Tool, args: dict[str, Any], progress: Progress) -> Answer:
    from gitflow_harness.ways import catalog

    directory = _directory(args)
    listed = catalog.listing(_workspace(args))
    data = listed.to_dict(str(directory) if directory is not None else None)
    lines = [f"{r['id']}  {r['description']}" for r in listed.rows]
    lines.append(f"{len(listed.rows)} way(s) under {data['root']}; floor {listed.floor:g}")
    lines.extend(str(p) for p in data["problems"])  # type: ignore[attr-defined]
    return Answer(data, "\n".join(lines))


def _learn(tool: Tool, args: dict[str, Any], progress: Progress) -> Answer:
    from gitflow_harness.learning import learn

    ws = _workspace(args)
    now = dt.datetime.now(dt.UTC)
    if args["check"]:
        checked = learn.check(ws, today=dt.date.today(), now=now)
        return Answer(checked.to_dict(), "\n".join([*checked.lines(), *checked.problems()]))
    from gitflow_harness.learning.report import render_text, to_dict

    report = learn.report(ws, now=now, days=args["days"])
    return Answer(to_dict(report), "\n".join(render_text(report)))


Handler = Callable[[Tool, dict[str, Any], Progress], Answer]

HANDLERS: Final[dict[str, Handler]] = {
    "status": _status,
    "start": _start,
    "update": _update,
    "prepare": _prepare,
    "test": _test,
    "done": _done,
    "accept": _accept,
    "task_set": _task_set,
    "report": _report,
    "ways_list": _ways_list,
    "learn": _learn,
}
