"""`gfh ways`: list, show, simulate, lint, migrate and tune the repository's ways."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING

import click

from gitflow_harness.cli._common import FiniteFloatRange, echo_json, json_option
from gitflow_harness.errors import GfhError
from gitflow_harness.firing.curves import (
    ActionPotential,
    Curve,
    Exponential,
    Flat,
    ProgressiveStaircase,
)

if TYPE_CHECKING:
    from gitflow_harness.ways.tune import Suggestion


@click.group()
def ways() -> None:
    """Ways: guidance injected into agents when it matches, each with a firing curve.

    A way is a directory under `paths.ways` (default hooks/ways) holding <dirname>.md; its id
    is the directory's path under that root. See docs/ways.md.
    """


@ways.command("list")
@json_option
def list_ways(as_json: bool) -> int:
    """List every way: lanes, curve, refire delta at the floor, fires and suppressions.

    Exits 1 when a way file could not be loaded (its problems go to stderr).
    """
    from gitflow_harness.ways import catalog
    from gitflow_harness.workspace import open_workspace

    listed = catalog.listing(open_workspace())
    index, floor, rows = listed.index, listed.floor, listed.rows
    if as_json:
        echo_json(listed.to_dict())
    elif not rows and not index.problems:
        click.echo(f"no ways under {_display(index.root)}")
    else:
        table = [("ID", "LANES", "CURVE", "REFIRE", "FIRED", "SUPPRESSED")]
        for way, r in zip(index.ways, rows, strict=True):
            refire = r["refire_delta"]
            table.append(
                (
                    way.id,
                    ",".join(way.trigger_names()) or "-",
                    curve_label(way.curve),
                    "never" if refire is None else str(refire),
                    str(r["fired"]),
                    str(r["suppressed"]),
                )
            )
        _echo_table(table)
        click.echo(f"\n{len(rows)} way(s) under {_display(index.root)}; floor {floor:g}")
    for problem in index.problems:
        click.echo(_problem(problem), err=True)
    return 1 if index.problems else 0


@ways.command("show")
@click.argument("way_id", metavar="ID")
@click.option("--plot", "with_plot", is_flag=True, help="Draw the curve's salience over ticks.")
@json_option
def show(way_id: str, with_plot: bool, as_json: bool) -> int:
    """Show one way: its triggers, curve, refire delta and body (ID may be a unique prefix)."""
    from gitflow_harness.ways import catalog
    from gitflow_harness.ways.model import read_body
    from gitflow_harness.ways.plot import plot
    from gitflow_harness.workspace import open_workspace

    ws = open_workspace()
    way = catalog.find(catalog.load(ws.top, ws.config), way_id)
    floor = ws.config.ways.floor
    try:
        body = read_body(way)
    except (OSError, UnicodeDecodeError) as exc:
        reason = exc.strerror if isinstance(exc, OSError) else "not UTF-8 text"
        raise GfhError(f"{_display(way.file)}: cannot read it: {reason}") from None
    if as_json:
        echo_json(
            {
                "id": way.id,
                "file": _display(way.file),
                "description": way.description,
                "lanes": catalog.describe_lanes(way),
                "curve": way.curve.to_dict(),
                "axis": way.axis,
                "scope": list(way.scope),
                "roles": list(way.roles),
                "macro": way.macro if way.has_macro else None,
                "postcheck": way.has_postcheck,
                "floor": floor,
                "refire_delta": way.curve.refire_delta(floor),
                "body": body,
                **({"plot": plot(way.curve, floor)} if with_plot else {}),
            }
        )
        return 0
    refire = way.curve.refire_delta(floor)
    lanes = catalog.describe_lanes(way)
    rows = [
        ("id", way.id),
        ("file", _display(way.file)),
        ("description", way.description),
        *((f"when.{k}", _lane_text(v)) for k, v in lanes.items()),
        ("curve", f"{way.curve.describe()} (axis: {way.axis})"),
        ("refire", f"at delta {refire} (floor {floor:g})" if refire is not None else "never"),
        ("scope", ", ".join(way.scope)),
        ("macro", f"macro.sh, {way.macro}" if way.has_macro else "none"),
    ]
    width = max(len(k) for k, _ in rows)
    for key, value in rows:
        click.echo(f"{key.ljust(width)}  {value}")
    if with_plot:
        click.echo("")
        for line in plot(way.curve, floor):
            click.echo(line)
    click.echo("")
    click.echo(body.rstrip("\n"))
    return 0


@ways.command("simulate")
@click.argument("way_id", metavar="ID")
@click.option(
    "--ticks",
    required=True,
    metavar="T1,T2,...",
    help="Ticks at which the way matched: `T`, `T:MAGNITUDE`, or `START..END/STEP`.",
)
@click.option(
    "--magnitude",
    type=FiniteFloatRange(min=0, min_open=True),
    default=1.0,
    show_default=True,
    help="Lanes matched at each tick (what an ActionPotential burst must reach).",
)
@click.option("--floor", type=FiniteFloatRange(0.0, 1.0), help="Override ways.floor.")
@json_option
def simulate(way_id: str, ticks: str, magnitude: float, floor: float | None, as_json: bool) -> int:
    """Run a way's curve over matches at the given ticks and print each decision.

    Decisions: first, refire, step (fired) or suppressed, refractory (not). Fires are
    recorded as delivered, so each decision sees the fires before it. Prints one line per
    tick, or with --json {way, floor, decisions: [{tick, decision, salience, multiplier}]}.
    """
    from gitflow_harness.firing.engagement import simulate as run_simulation
    from gitflow_harness.ways import catalog
    from gitflow_harness.workspace import open_workspace

    matches = catalog.parse_ticks(ticks, magnitude)
    ws = open_workspace()
    way = catalog.find(catalog.load(ws.top, ws.config), way_id)
    floor = ws.config.ways.floor if floor is None else floor
    results = run_simulation(way.curve, matches, floor)
    if as_json:
        echo_json(
            {
                "way": way.id,
                "floor": floor,
                "decisions": [
                    {
                        "tick": tick,
                        "decision": d.kind,
                        "salience": round(d.salience, 6),
                        "multiplier": round(d.multiplier, 6),
                    }
                    for tick, d in results
                ],
            }
        )
        return 0
    click.echo(f"{way.id}: {way.curve.describe()}, floor {floor:g}")
    for tick, d in results:
        mark = "*" if d.fired else " "
        click.echo(
            f"{mark} tick {tick:>9}  {d.kind:<10}  salience {d.salience:.4f}  "
            f"multiplier {d.multiplier:.2f}"
        )
    fired = sum(d.fired for _, d in results)
    click.echo(f"{fired} of {len(results)} match(es) fired")
    return 0


@ways.command("lint")
@click.argument("paths", nargs=-1, type=click.Path(path_type=Path))
@click.option("--fix", is_flag=True, help="Remove unknown fields (line surgery, nothing else).")
@click.option(
    "--check",
    is_flag=True,
    help="Exit 1 when any error remains (what lint always does; kept for scripts and hooks).",
)
def lint(paths: tuple[Path, ...], fix: bool, check: bool) -> int:
    """Check way files: `path:line: error|warning: message` for every problem; exit 1 on an
    error.

    PATHS are way files, their macro.sh/postcheck.sh, or directories (default: the whole ways
    root). Warnings alone exit 0.
    """
    from gitflow_harness.ways.index import ways_root
    from gitflow_harness.ways.lint import lint as run_lint
    from gitflow_harness.workspace import open_workspace

    ws = open_workspace()
    root = Path(ways_root(ws.top, ws.config.paths.ways))
    if not paths and not root.is_dir():
        click.echo(f"no ways under {_display(str(root))}")
        return 0
    report = run_lint(list(paths), root=root, repo=ws.repo, fix=fix)
    for path, key in report.fixed:
        click.echo(f"{_display(path)}: fixed: removed unknown field {key!r}")
    for problem in report.problems:
        click.echo(_problem(problem))
    click.echo(
        f"{report.files} way file(s) checked: {report.errors} error(s), "
        f"{report.warnings} warning(s)",
        err=True,
    )
    return 1 if report.errors else 0


@ways.command("migrate")
@click.option("--apply", "do_apply", is_flag=True, help="Write the changes (default: show them).")
@json_option
def migrate(do_apply: bool, as_json: bool) -> int:
    """Give every way a curve: `redisclose: N` becomes Exponential{half_life: N*2000}.

    A way with neither gets Exponential{ways.default_half_life}. Shows a diff per file; with
    --apply writes them, changing only those lines. Running it again finds nothing to do.
    """
    from gitflow_harness.ways import migrate as migration
    from gitflow_harness.ways.index import scan, ways_root
    from gitflow_harness.workspace import open_workspace

    ws = open_workspace()
    root = Path(ways_root(ws.top, ws.config.paths.ways))
    files = [Path(found.file) for found in scan(root)]
    plans, problems = migration.plan(files, ws.config.ways.default_half_life)
    for plan in plans if do_apply else ():
        migration.apply(plan)
    if as_json:
        echo_json(
            {
                "applied": do_apply,
                "changes": [{"path": _display(str(p.path)), "change": p.change} for p in plans],
                "problems": [_problem(p) for p in problems],
            }
        )
    else:
        for plan in plans:
            if do_apply:
                click.echo(f"{_display(str(plan.path))}: {plan.change}")
            else:
                click.echo(plan.diff(_display(str(plan.path))), nl=False)
        if not plans:
            click.echo("nothing to migrate: every way declares a curve")
        elif not do_apply:
            click.echo(f"{len(plans)} way file(s) to migrate; run `gfh ways migrate --apply`")
        else:
            click.echo(f"migrated {len(plans)} way file(s)")
    for problem in problems:
        click.echo(_problem(problem), err=True)
    return 1 if problems else 0


@ways.command("tune")
@click.option("--apply", "do_apply", is_flag=True, help="Rewrite the curves of flagged ways.")
@click.option(
    "--min-samples",
    type=click.IntRange(min=1),
    default=3,
    show_default=True,
    help="Deltas between matches a way needs before it gets a suggestion.",
)
@json_option
def tune(do_apply: bool, min_samples: int, as_json: bool) -> int:
    """Suggest half-lives from the log: the median delta between a way's matches.

    Per way and session, from way.fired and way.suppressed events; rounded to 500, at least
    500. A suggestion 20 % or more away from the current value is flagged (*); --apply
    rewrites only the curve block of flagged ways. Exits 1 when a way file could not be
    loaded (its problems go to stderr).
    """
    from gitflow_harness.ways import catalog
    from gitflow_harness.ways import tune as tuning
    from gitflow_harness.workspace import open_workspace

    ws = open_workspace()
    index = catalog.load(ws.top, ws.config)
    suggestions = tuning.suggest(index.ways, ws.log.read(), min_samples=min_samples)
    applied: set[str] = set()
    if do_apply:
        for s in suggestions:
            if s.flagged:
                tuning.apply(s)
                applied.add(s.way.id)
    status = 1 if index.problems else 0
    if as_json:
        echo_json(
            {
                "min_samples": min_samples,
                "ways": [{**s.to_dict(), "applied": s.way.id in applied} for s in suggestions],
                "problems": [_problem(p) for p in index.problems],
            }
        )
    else:
        _echo_suggestions(suggestions, applied, do_apply)
    for problem in index.problems:
        click.echo(_problem(problem), err=True)
    return status


def _echo_suggestions(suggestions: Sequence[Suggestion], applied: set[str], do_apply: bool) -> None:
    table = [("ID", "CURVE", "NOW", "SUGGESTED", "CHANGE", "SAMPLES", "SESSIONS")]
    for s in suggestions:
        change = s.change
        table.append(
            (
                s.way.id,
                curve_label(s.way.curve),
                str(s.current) if s.current is not None else "-",
                str(s.suggested) if s.suggested is not None else _status_text(s.status),
                (f"{change:+.0%}" if change is not None else "-") + (" *" if s.flagged else ""),
                str(s.samples),
                str(s.sessions),
            )
        )
    _echo_table(table)
    flagged = [s for s in suggestions if s.flagged]
    if do_apply:
        click.echo(f"\nretuned {len(applied)} way(s)")
    elif flagged:
        click.echo(f"\n{len(flagged)} flagged (*); `gfh ways tune --apply` rewrites their curves")


def curve_label(curve: Curve) -> str:
    """Return a compact curve label for tables."""
    if isinstance(curve, Exponential):
        return f"Exponential({curve.half_life})"
    if isinstance(curve, Flat):
        return f"Flat({curve.suppression})"
    if isinstance(curve, ProgressiveStaircase):
        return "Staircase(" + ",".join(str(d) for d, _ in curve.steps) + ")"
    assert isinstance(curve, ActionPotential)
    return (
        f"ActionPotential({curve.burst_threshold},x{curve.peak_multiplier:g},"
        f"{curve.absolute_refractory},{curve.multiplier_half_life})"
    )


def _lane_text(value: object) -> str:
    if isinstance(value, list):
        return ", ".join(str(v) for v in value)
    if value is True:
        return "yes"
    return str(value)


def _status_text(status: str) -> str:
    return {"insufficient": "(too few)", "not-tunable": "(n/a)"}.get(status, "-")


def _echo_table(rows: Sequence[tuple[str, ...]]) -> None:
    widths = [max(len(r[i]) for r in rows) for i in range(len(rows[0]))]
    for r in rows:
        click.echo("  ".join(cell.ljust(w) for cell, w in zip(r, widths, strict=True)).rstrip())


def _display(path: str) -> str:
    """Return `path` relative to the current directory when it lies below it."""
    from gitflow_harness.ways.catalog import relative

    return relative(path)


def _problem(problem: object) -> str:
    from gitflow_harness.ways.catalog import problem_text

    return problem_text(problem)
