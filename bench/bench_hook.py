"""The agent hook: `gfh hook claude PostToolUse` with a Write payload, against `python -c pass`.

This is the hottest path of the product: Claude Code runs it after every tool call. Three
repositories, each hook call in one ongoing session (configuration and ways index cached, as
after the session's first call): one without a ways folder (the runtime alone: evidence and the
answer to the host); one with 200 realistic ways (prompt, keyword, file and command lanes, every
curve kind) none of which the Write matches; and the same with one more way whose files lane
matches it and whose curve (Flat, suppression 0) fires it on every call — the whole fire path:
the token tick read from the transcript's tail, the gate, the body, the session lock, the
answer, the commit and the `way.fired` event. Bytecode is compiled first, as an install does:
with `PYTHONDONTWRITEBYTECODE` set, every run would otherwise compile the package from source
and measure the compiler. A last case runs the no-match hook on a bare interpreter (`-I -S`:
no site, so no editable-install finder and none of this machine's `.pth` imports) against that
interpreter's own start: the floor, where every import the hook makes shows in full.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import sysconfig
from pathlib import Path

from bench.bench_ways import write_ways
from bench.runner import (
    PYTHON,
    Measurement,
    command_vs_pass,
    compare,
    event_counts,
    time_once,
    user_env,
)

ROOT = Path(__file__).resolve().parent.parent
FIXTURE = ROOT / "tests" / "fixtures" / "hooks" / "claude" / "PostToolUse.Write.json"
TRANSCRIPT = ROOT / "tests" / "fixtures" / "transcripts" / "claude-session.jsonl"
HEAVY = ("click", "git", "yaml", "frontmatter", "filelock", "platformdirs", "dataclasses", "typing")
WAYS = 200
TARGET_NONE = 2.5
TARGET_ONE = 3.0
MATCHING = (
    "---\n"
    "description: The parser's conventions, whenever it is written\n"
    "when:\n"
    "  files: ['src/parser.py']\n"
    "curve: {type: Flat, suppression: 0}\n"
    "---\n"
    "# The parser\n\n" + "- A convention of the parser the agent should keep in mind.\n" * 8
)


def run(work: Path) -> list[Measurement]:
    env, _ = user_env(work)
    bare = _repo(work / "bare")
    none = _repo(work / "none")
    write_ways(none / "hooks" / "ways", WAYS)
    one = _repo(work / "one")
    write_ways(one / "hooks" / "ways", WAYS)
    _write_matching(one / "hooks" / "ways")
    transcript = work / "transcript.jsonl"
    shutil.copyfile(TRANSCRIPT, transcript)
    argv = _gfh_argv("hook", "claude", "PostToolUse")
    results = []
    for repo, name, target in (
        (bare, "no ways folder: the runtime alone", None),
        (none, f"{WAYS} ways, none matching", TARGET_NONE),
        (one, f"{WAYS} ways, one matching and firing", TARGET_ONE),
    ):
        payload = _payload(repo, transcript)
        measured = command_vs_pass(
            f"gfh hook claude PostToolUse (Write; {name})",
            argv,
            cwd=repo,
            env=env,
            stdin=payload,
            runs=41,
            target=target,
        )
        measured.notes.append(_importtime(repo, env, payload))
        results.append(measured)
    results[2].notes.append(_fired(one))
    results.append(_isolated(none, env, _payload(none, transcript)))
    return results


def _repo(path: Path) -> Path:
    subprocess.run(["git", "init", "-q", str(path)], check=True)
    identity = ["-c", "user.name=b", "-c", "user.email=b@b"]
    subprocess.run(
        ["git", "-C", str(path), *identity, "commit", "-q", "--allow-empty", "-m", "init"],
        check=True,
    )
    return path


def _write_matching(root: Path) -> None:
    directory = root / "zz" / "parser"
    directory.mkdir(parents=True)
    (directory / "parser.md").write_text(MATCHING, encoding="utf-8")
    for path in (directory / "parser.md", directory, directory.parent, root):
        settled = path.stat().st_mtime_ns - 3600 * 10**9  # not "racy": see bench_ways
        os.utime(path, ns=(settled, settled))


def _payload(repo: Path, transcript: Path) -> bytes:
    data = json.loads(FIXTURE.read_text().replace("/home/dev/project", str(repo)))
    data["transcript_path"] = str(transcript)
    return json.dumps(data).encode()


def _gfh_argv(*args: str) -> list[str]:
    script = Path(PYTHON).with_name("gfh")
    if script.exists():
        return [str(script), *args]  # the console script, exactly what a host runs
    return [PYTHON, "-m", "gitflow_harness", *args]


def installed(venv: Path, *args: str) -> list[str]:
    """Lay gfh out in a new venv at `venv` as an install lays it out, and return the argv that
    runs it with `args`: the package in the venv's site-packages (a link to this checkout's, so
    the bytecode `python -m bench` compiled is the one run), this venv's packages as its
    dependencies through a `.pth` line, and the console script pip wrote for this checkout's
    venv, started by the new venv's interpreter."""
    subprocess.run([PYTHON, "-m", "venv", "--without-pip", str(venv)], check=True)
    python = venv / "bin" / "python"
    where = "import sysconfig; print(sysconfig.get_paths()['purelib'])"
    purelib = Path(subprocess.run([python, "-c", where], check=True, capture_output=True,
                                  text=True).stdout.strip())  # fmt: skip
    (purelib / "gitflow_harness").symlink_to(ROOT / "gitflow_harness", target_is_directory=True)
    dependencies = sysconfig.get_paths()["purelib"]
    (purelib / "gfh-dependencies.pth").write_text(f"{dependencies}\n", encoding="utf-8")
    script = Path(_gfh_argv()[0])
    if script == Path(PYTHON):  # no console script in this venv: the module, as `-m` runs it
        return [str(python), "-m", "gitflow_harness", *args]
    _, body = script.read_text(encoding="utf-8").split("\n", 1)
    console = venv / "bin" / "gfh"
    console.write_text(f"#!{python}\n{body}", encoding="utf-8")
    console.chmod(0o755)
    return [str(console), *args]


def _fired(repo: Path) -> str:
    counts = event_counts(repo)
    return (
        f"every run fired the matching way: {counts.get('way.fired', 0)} way.fired for "
        f"{counts.get('tool.requested', 0)} tool.requested, "
        f"{counts.get('way.suppressed', 0)} way.suppressed"
    )


def _isolated(repo: Path, env: dict[str, str], payload: bytes) -> Measurement:
    base = getattr(sys, "_base_executable", PYTHON) or PYTHON
    code = (
        f"import sys; sys.path.insert(0, {str(ROOT)!r}); from gitflow_harness.main import main; "
        "raise SystemExit(main(['hook', 'claude', 'PostToolUse']))"
    )
    return compare(
        f"same hook ({WAYS} ways, none matching), bare interpreter (-I -S)",
        lambda: time_once([base, "-I", "-S", "-c", code], cwd=repo, env=env, stdin=payload),
        "python -I -S -c pass",
        lambda: time_once([base, "-I", "-S", "-c", "pass"]),
        runs=41,
    )


def _importtime(repo: Path, env: dict[str, str], payload: bytes) -> str:
    """Summarise `python -X importtime` of one hook call: our modules and any heavy ones."""
    entry = "from gitflow_harness.main import main; raise SystemExit(main())"
    command = [PYTHON, "-X", "importtime", "-c", entry, "hook", "claude", "PostToolUse"]
    proc = subprocess.run(
        command, cwd=repo, env={**os.environ, **env}, input=payload, capture_output=True
    )
    ours: list[tuple[int, str]] = []
    stdlib: list[tuple[int, str]] = []
    heavy: list[str] = []
    after_site = False
    for line in proc.stderr.decode().splitlines():
        if not line.startswith("import time:") or "|" not in line:
            continue
        self_part, _cumulative, name = line.removeprefix("import time:").split("|", 2)
        self_us = self_part.strip()
        if name.strip() == "site":
            after_site = True
            continue
        name = name.strip()
        if not after_site or not self_us.isdigit():
            continue
        micros = int(self_us)
        module = name
        if module.split(".")[0] in HEAVY:
            heavy.append(module)
        (ours if module.startswith("gitflow_harness") else stdlib).append((micros, module))
    total_ours = sum(m for m, _ in ours) / 1000
    total_std = sum(m for m, _ in stdlib) / 1000
    top = ", ".join(f"{n} {m / 1000:.1f}" for m, n in sorted(ours, reverse=True)[:5])
    new_std = ", ".join(sorted({n.split(".")[0] for _, n in stdlib}))
    return (
        f"`-X importtime` after site: {len(ours)} gitflow_harness modules, {total_ours:.1f} ms "
        f"self time (largest: {top}); stdlib imported beyond the interpreter's start: "
        f"{new_std or 'none'} ({total_std:.1f} ms); heavy imports: "
        f"{', '.join(sorted(set(heavy))) or 'none'} ({json.dumps(list(HEAVY))} checked)"
    )
