"""`python -m bench [NAME...] [--record]`: run the benchmarks (`make bench`).

Each `bench/bench_<name>.py` defines `run(workdir: Path) -> list[Measurement]`. With `--record`,
each benchmark run replaces its own section of `bench/RESULTS.md`, dated; the sections of the
benchmarks not run are kept as they were. The package's bytecode is written first, as an install
writes it: where `PYTHONDONTWRITEBYTECODE` is set, every `gfh` a benchmark starts would otherwise
compile the package from source, and the figures would measure the compiler.
"""

from __future__ import annotations

import argparse
import compileall
import datetime as dt
import importlib
import os
import platform
import shutil
import sys
import tempfile
from pathlib import Path

from bench.runner import Measurement, render_table

HERE = Path(__file__).resolve().parent


def available() -> list[str]:
    return sorted(p.stem.removeprefix("bench_") for p in HERE.glob("bench_*.py"))


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench", description=__doc__)
    parser.add_argument(
        "names", nargs="*", help=f"benchmarks to run (default all: {', '.join(available())})"
    )
    parser.add_argument(
        "--record", action="store_true", help="replace these benchmarks' sections of RESULTS.md"
    )
    args = parser.parse_args(argv)
    names = args.names or available()
    compileall.compile_dir(str(HERE.parent / "gitflow_harness"), quiet=1)
    sections: list[tuple[str, str, list[Measurement]]] = []
    for name in names:
        module = importlib.import_module(f"bench.bench_{name}")
        work = Path(tempfile.mkdtemp(prefix=f"gfh-bench-{name}-"))
        try:
            print(f"## {name}", flush=True)
            results = module.run(work)
        finally:
            shutil.rmtree(work, ignore_errors=True)
        table = render_table(results)
        print(table + "\n", flush=True)
        sections.append((name, (module.__doc__ or "").strip(), results))
    if args.record:
        write_results(sections)
    return 0


def write_results(
    sections: list[tuple[str, str, list[Measurement]]], path: Path = HERE / "RESULTS.md"
) -> None:
    """Replace the sections of the benchmarks just run; keep the others, in name order."""
    machine = (
        f"{platform.system()} {platform.machine()}, {os.cpu_count()} cores, "
        f"Python {platform.python_version()}"
    )
    kept = recorded_sections(path.read_text(encoding="utf-8")) if path.exists() else {}
    today = dt.date.today().isoformat()
    for name, doc, results in sections:
        kept[name] = "\n".join(
            [f"## {name}", "", f"Recorded {today} on {machine}.", "", doc, "",
             render_table(results), ""]
        )  # fmt: skip
    out = [
        "# Benchmark results",
        "",
        "Reproduce with `make bench` (runs `python -m bench --record`), or one benchmark with",
        "`python -m bench NAME --record`. Every figure is a median of interleaved runs; every",
        "ratio is against a baseline measured in the same run.",
        "",
    ]
    order = available()
    for name in sorted(kept, key=lambda n: (order.index(n) if n in order else len(order), n)):
        out.append(kept[name].rstrip("\n") + "\n")
    path.write_text("\n".join(out), encoding="utf-8")


def recorded_sections(text: str) -> dict[str, str]:
    """Split RESULTS.md into its `## name` sections, each with its heading."""
    sections: dict[str, str] = {}
    name: str | None = None
    lines: list[str] = []
    for line in text.splitlines():
        if line.startswith("## "):
            if name is not None:
                sections[name] = "\n".join(lines)
            name, lines = line[3:].strip(), []
        if name is not None:
            lines.append(line)
    if name is not None:
        sections[name] = "\n".join(lines)
    return sections


if __name__ == "__main__":
    sys.exit(main())
