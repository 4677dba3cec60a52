"""Every agent hook event in the cases users meet, each against `python -c pass` in the same run.

`bench_hook` measures one ongoing session's PostToolUse with a 4 KB transcript; these are the
rest. Warm (the session's state, the ways index cached): SessionStart of a new session,
UserPromptSubmit with 500 ways and a 20 KB prompt, PreToolUse, PostToolUse firing a way with a
50 MB transcript whose last megabytes are a subagent's lines, and Stop with a 100,000-event log
whose turn began 20,000 events back (other sessions' events in between, as parallel sessions in
other worktrees write them); and the first call of a session never seen. Then the ways index
where a cache cannot be warm: the first call in a new worktree (`gfh start` makes one per task)
of a ways tree another worktree of the repository already loaded, 200 and 500 ways; the first
call after a pull changed 10 of 200 ways; and 500 ways with no cache at all. Each case's set-up
(a worktree added, files rewritten, caches removed, the log cut back) runs before each call,
untimed. Each call gets the environment Claude Code gives its hooks (the session's id, the
project directory, and at SessionStart the file whose `export` lines reach the session's tools),
and a user's: gfh's state where platformdirs puts it, under a home of the benchmark's own, with no
`$GFH_STATE_HOME` (`runner.user_env`).

The cases above run in this checkout's venv, an editable install, whose finder imports
`pathlib`, `re` and more at every interpreter start: `python -c pass` there does what a hook
needs of them anyway. A user's gfh is an install (`bench_hook.installed`: its own venv, the
package in site-packages, pip's console script), where a bare interpreter starts in less than
half the time and the hook pays for those imports itself; every case is measured again, last,
as such an install runs it, each against that install's own `python -c pass`.
"""

from __future__ import annotations

import compileall
import itertools
import json
import os
import shutil
import subprocess
from collections.abc import Callable
from pathlib import Path

from bench.bench_hook import MATCHING, _gfh_argv, _repo, installed
from bench.bench_ways import write_ways
from bench.runner import PYTHON, Measurement, compare, event_counts, time_once, user_env

ROOT = Path(__file__).resolve().parent.parent
PACKAGE = ROOT / "gitflow_harness"
HOOKS = ROOT / "tests" / "fixtures" / "hooks" / "claude"
WARM = 1.5  # every hook event, warm
NEW_WORKTREE = 2.0  # a ways tree another worktree of the repository loaded; after a pull
COLD = 3.0  # 500 ways, nothing cached
RUNS = 21
PROMPT_BYTES = 20 * 1024
TRANSCRIPT_BYTES = 50 * 1024 * 1024
SUBAGENT_TAIL_BYTES = 6 * 1024 * 1024
LOG_EVENTS = 100_000
TURN_BACK = 20_000
SESSION = "7f3c9d2e-1b4a-4c55-9a61-2f0d8e6b1a90"
TASKS = itertools.count()  # the worktrees' names, unique across both layouts' runs


def run(work: Path) -> list[Measurement]:
    compileall.compile_dir(str(PACKAGE), quiet=1)
    env, state = user_env(work)
    repo = _ways_repo(work / "project", 200)
    big = _ways_repo(work / "big", 500)
    transcript = work / "transcript.jsonl"
    _write_transcript(transcript)
    # Every case in this checkout's venv, then again as a user's install runs it, against its
    # own interpreter's start.
    gfh, python = installed(work / "installed"), str(work / "installed" / "bin" / "python")
    hooks = (
        (_Hook(env, state), work / "stop"),
        (_Hook(env, state, gfh, python), work / "stop-installed"),
    )
    return [
        measured
        for hook, stop in hooks
        for measured in (
            *_warm_events(hook, repo, big, transcript),
            _stop(hook, stop),
            hook.first_of_session(repo),
            hook.new_worktree(repo, 200),
            hook.new_worktree(big, 500),
            hook.after_pull(repo),
            hook.cold(big),
        )
    ]


def _warm_events(hook: _Hook, repo: Path, big: Path, transcript: Path) -> list[Measurement]:
    """SessionStart, UserPromptSubmit, PreToolUse and a firing PostToolUse, warm."""
    return [
        hook.warm("SessionStart of a new session, 200 ways", repo, "SessionStart", fresh=True),
        hook.warm("UserPromptSubmit, 500 ways, 20 KB prompt", big, "UserPromptSubmit", _prompt),
        hook.warm("PreToolUse (Bash), 200 ways", repo, "PreToolUse.Bash"),
        hook.warm(
            "PostToolUse firing a way, 50 MB transcript ending in subagent lines",
            repo,
            "PostToolUse.Write",
            transcript=transcript,
        ),
    ]


class _Hook:
    """Runs `gfh hook claude EVENT` as a host does, with one set-up step before each call:
    this checkout's `gfh`, or `gfh` (the argv that runs it) and `python` of an install."""

    def __init__(
        self,
        env: dict[str, str],
        state: Path,
        gfh: list[str] | None = None,
        python: str = PYTHON,
    ) -> None:
        self.env = env
        self.state = state
        self.count = itertools.count()
        self.gfh = gfh if gfh is not None else _gfh_argv()
        self.baseline = (python, "-c", "pass")
        self.layout = "" if gfh is None else ", installed"

    def call(self, repo: Path, fixture: str, **overrides: object) -> float:
        payload = _payload(repo, fixture, **overrides)
        event = fixture.split(".", 1)[0]
        argv = [*self.gfh, "hook", "claude", event]
        session = str(json.loads(payload)["session_id"])
        env = {**self.env, **self.host_env(repo, event, session)}
        return time_once(argv, cwd=repo, env=env, stdin=payload)

    def host_env(self, repo: Path, event: str, session: str) -> dict[str, str]:
        """What Claude Code puts in a hook's environment (docs/hooks.md, as the real CLI was
        seen to): the session, the project, and at SessionStart the file whose `export` lines
        reach the session's tools, in a directory the host made for the session."""
        env = {
            "CLAUDE_CODE_SESSION_ID": session,
            "CLAUDE_PROJECT_DIR": str(repo),
            "CLAUDECODE": "1",
            "PYTHONDONTWRITEBYTECODE": "1",
        }
        if event == "SessionStart":
            home = Path(self.env["HOME"]) / ".claude" / "session-env" / session
            home.mkdir(parents=True, exist_ok=True)
            env["CLAUDE_ENV_FILE"] = str(home / "sessionstart-hook-0.sh")
        return env

    def measure(
        self, name: str, timed: Callable[[], float], target: float, runs: int = RUNS
    ) -> Measurement:
        baseline = self.baseline
        return compare(
            name + self.layout,
            timed,
            "python -c pass" + self.layout,
            lambda: time_once(baseline),
            runs=runs,
            target=target,
        )

    def warm(
        self,
        name: str,
        repo: Path,
        fixture: str,
        edit: Callable[[dict[str, object]], None] | None = None,
        *,
        fresh: bool = False,
        transcript: Path | None = None,
    ) -> Measurement:
        overrides: dict[str, object] = {}
        if transcript is not None:
            overrides["transcript_path"] = str(transcript)
        if edit is not None:
            edit(overrides)

        def timed() -> float:
            session = f"{SESSION}-{next(self.count)}" if fresh else SESSION
            return self.call(repo, fixture, session_id=session, **overrides)

        self.call(repo, "SessionStart", session_id=SESSION)  # the session, its config cached
        measured = self.measure(name, timed, WARM)
        if transcript is not None:
            measured.notes.append(_fired(repo))
        return measured

    def first_of_session(self, repo: Path) -> Measurement:
        def timed() -> float:
            return self.call(repo, "PostToolUse.Write", session_id=f"new-{next(self.count)}")

        return self.measure(
            "first call of a new session (PostToolUse, 200 ways)", timed, NEW_WORKTREE
        )

    def new_worktree(self, repo: Path, ways: int) -> Measurement:
        self.call(repo, "PostToolUse.Write", session_id=SESSION)  # the main checkout's load

        def timed() -> float:
            tree = repo.parent / f"{repo.name}.worktrees" / f"task-{next(TASKS)}"
            git(repo, "worktree", "add", "-q", "--detach", str(tree))
            return self.call(tree, "PostToolUse.Write", session_id=SESSION)

        return self.measure(
            f"first call in a new worktree, {ways} ways another worktree loaded",
            timed,
            NEW_WORKTREE,
        )

    def after_pull(self, repo: Path) -> Measurement:
        root = repo / "hooks" / "ways"
        files = sorted(root.glob("**/way*.md"))[::20][:10]

        def timed() -> float:
            n = next(self.count)
            for path in files:  # as a checkout writes them: a new file in place of the old
                text = path.read_text(encoding="utf-8")
                new = path.with_name(path.name + ".new")
                new.write_text(text.replace("for the benchmark", f"pulled {n}", 1), "utf-8")
                os.replace(new, path)
            return self.call(repo, "PostToolUse.Write", session_id=SESSION)

        self.call(repo, "PostToolUse.Write", session_id=SESSION)
        return self.measure("first call after a pull changed 10 of 200 ways", timed, NEW_WORKTREE)

    def cold(self, repo: Path) -> Measurement:
        state = self.state

        def timed() -> float:
            shutil.rmtree(state / "ways-index", ignore_errors=True)
            shutil.rmtree(state / "ways-shared", ignore_errors=True)
            return self.call(repo, "PostToolUse.Write", session_id=SESSION)

        measured = self.measure("500 ways, nothing cached", timed, COLD, runs=11)
        cpus = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count()
        measured.notes.append(
            f"{cpus} CPUs for the call; with two or more (on Linux) a forked child parses part of "
            "the ways (`gitflow_harness/halves.py`), so a busy machine makes this case slower"
        )
        return measured


def git(repo: Path, *args: str) -> None:
    subprocess.run(["git", "-C", str(repo), *args], check=True, capture_output=True)


def _ways_repo(path: Path, ways: int) -> Path:
    repo = _repo(path)
    root = repo / "hooks" / "ways"
    write_ways(root, ways)
    matching = root / "zz" / "parser"
    matching.mkdir(parents=True)
    (matching / "parser.md").write_text(MATCHING, encoding="utf-8")
    identity = ["-c", "user.name=b", "-c", "user.email=b@b"]
    git(repo, "add", "-A")
    git(repo, *identity, "commit", "-q", "-m", "ways")
    return repo


def _payload(repo: Path, fixture: str, **overrides: object) -> bytes:
    text = (HOOKS / f"{fixture}.json").read_text(encoding="utf-8")
    data = json.loads(text.replace("/home/dev/project", str(repo)))
    data.update(overrides)
    return json.dumps(data).encode()


def _prompt(overrides: dict[str, object]) -> None:
    line = "Please look at how the parser handles the release notes and the docs folder. "
    overrides["prompt"] = (line * (PROMPT_BYTES // len(line) + 1))[:PROMPT_BYTES]


def _write_transcript(path: Path) -> None:
    """A long session's transcript as Claude Code writes it (compact JSON lines): tool results
    and replies, the main chain's last reply, then a subagent's lines (`isSidechain`)."""
    user = _line("user", False, {"role": "user", "content": "r" * 4000})
    with open(path, "w", encoding="utf-8") as out:
        main = 0
        while out.tell() < TRANSCRIPT_BYTES - SUBAGENT_TAIL_BYTES:
            main += 1
            out.write(user + _assistant(f"msg_{main}", False, 20_000 + main))
        sub = 0
        while out.tell() < TRANSCRIPT_BYTES:
            sub += 1
            out.write(_assistant(f"sub_{sub}", True, 5_000 + sub, text="s" * 2000))


def _assistant(message_id: str, sidechain: bool, tokens: int, *, text: str = "...") -> str:
    usage = {
        "input_tokens": 4,
        "cache_creation_input_tokens": 100,
        "cache_read_input_tokens": tokens,
    }
    message = {
        "id": message_id,
        "role": "assistant",
        "content": [{"type": "text", "text": text}],
        "usage": usage,
    }
    return _line("assistant", sidechain, message)


def _line(kind: str, sidechain: bool, message: dict[str, object]) -> str:
    obj = {
        "parentUuid": None,
        "isSidechain": sidechain,
        "userType": "external",
        "cwd": "/home/dev/project",
        "sessionId": SESSION,
        "type": kind,
        "message": message,
    }
    return json.dumps(obj, separators=(",", ":")) + "\n"


def _stop(hook: _Hook, path: Path) -> Measurement:
    """Stop with the turn's `turn.started` (written by the prompt hook) 20,000 events back."""
    from gitflow_harness.store.eventwrite import encode_line, envelope

    repo = _repo(path)
    logs = repo / ".git" / "gitflow-harness" / "events"
    hook.call(repo, "SessionStart", session_id=SESSION)
    [log] = list(logs.glob("*.jsonl"))

    def others(count: int, start: int) -> None:
        with open(log, "ab") as out:
            for i in range(start, start + count):
                session = SESSION if i % 500 == 0 else f"claude:parallel-{i % 7}"
                data = {"tool": "Edit", "phase": "post", "paths": 1, "i": i}
                out.write(
                    encode_line(
                        envelope(
                            "tool.requested",
                            data,
                            surface="hook",
                            session=session,
                            branch="feature",
                        )
                    )
                )

    others(LOG_EVENTS - TURN_BACK, 1)
    hook.call(repo, "UserPromptSubmit", session_id=SESSION)
    others(TURN_BACK, LOG_EVENTS)
    size = log.stat().st_size

    def timed() -> float:
        os.truncate(log, size)  # each call judges the same turn
        return hook.call(repo, "Stop", session_id=SESSION)

    measured = hook.measure(
        f"Stop, {LOG_EVENTS} events in the log, the turn {TURN_BACK} back", timed, WARM
    )
    verdicts = [json.loads(line) for line in log.read_text().splitlines()[-1:]]
    measured.notes.append(f"last verdict: {verdicts[0]['data'].get('decision')}")
    return measured


def _fired(repo: Path) -> str:
    counts = event_counts(repo)
    return f"{counts.get('way.fired', 0)} way.fired, {counts.get('way.suppressed', 0)} suppressed"
