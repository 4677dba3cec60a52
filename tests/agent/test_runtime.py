"""The hook boundary: fail open, never a traceback, unknown events quiet, a lean fast path."""

from __future__ import annotations

import contextlib
import io
import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from gitflow_harness.agent import runtime, sources
from gitflow_harness.hookcall import model as ev
from tests.agent import kit
from tests.helpers import CliRunner, Result, read_events
from tests.helpers import probe as run_probe
from tests.ways.conftest import EXP, settle_tree, write_way


def explode(ctx: Any) -> None:
    raise ValueError("the secret prompt text that must never be written")


asked: list[str] = []


def started_source(ctx: Any) -> Any:
    """A source that starts its work and answers with what finishes it."""
    from gitflow_harness.hookcall.model import Offer

    asked.append(f"started:{ctx.source_name}")

    def finish() -> list[Offer]:
        asked.append(f"finished:{ctx.source_name}")
        return [Offer("from the started source")]

    return finish


def plain_source(ctx: Any) -> Any:
    from gitflow_harness.hookcall.model import Offer

    asked.append(f"asked:{ctx.source_name}")
    return [Offer("from the plain source")]


def test_a_started_source_finishes_after_the_others_and_keeps_its_place(
    repo: Path, gfh: CliRunner, monkeypatch: pytest.MonkeyPatch
) -> None:
    """If a source answers with a function, then the later sources are asked before it is
    called (their work overlaps its wait), and its offers still come first."""
    here = "tests.agent.test_runtime"
    specs = (f"{here}:started_source", f"{here}:plain_source", f"{here}:explode")
    monkeypatch.setitem(sources.CONTEXT_SOURCES, ev.PROMPT, specs)
    asked.clear()
    result = kit.hook(
        gfh, "claude", "UserPromptSubmit", kit.payload("claude", "UserPromptSubmit", repo)
    )
    assert asked == [f"started:{specs[0]}", f"asked:{specs[1]}", f"finished:{specs[0]}"]
    context = result.json()["hookSpecificOutput"]["additionalContext"]
    assert context.index("from the started source") < context.index("from the plain source")
    [line] = result.err.splitlines()  # the source that raised is reported; the others deliver
    assert "internal error (ValueError at " in line


def test_an_internal_error_fails_open_with_one_line_and_a_hook_error(
    repo: Path, gfh: CliRunner, monkeypatch: pytest.MonkeyPatch
) -> None:
    """If a source raises, then the host gets exit 0 and one stderr line naming the error's
    class and place, and the log gets a hook.error — neither carries the error's message."""
    monkeypatch.setitem(sources.CONTEXT_SOURCES, ev.PROMPT, ("tests.agent.test_runtime:explode",))
    result = kit.hook(gfh, "claude", "UserPromptSubmit", kit.payload("claude", "UserPromptSubmit"))
    assert result.code == 0
    assert result.out == ""
    [line] = result.err.splitlines()
    assert line.startswith("gfh hook claude UserPromptSubmit: internal error (ValueError at ")
    assert "Traceback" not in result.err
    assert "secret" not in result.err
    [error] = [e for e in read_events(repo) if e["type"] == "hook.error"]
    assert error["data"]["adapter"] == "claude"
    assert error["data"]["event"] == "UserPromptSubmit"
    assert error["data"]["error"].startswith("ValueError at gitflow_harness/")
    assert "secret" not in json.dumps(error)


def test_a_broken_configuration_is_named_as_such_not_as_an_internal_error(
    repo: Path, gfh: CliRunner
) -> None:
    """If `.gitflow-harness.toml` is broken, then the hook lets the agent through with gfh's own
    message (file, line, key: the user's to fix), not an "internal error"."""
    (repo / ".gitflow-harness.toml").write_text("bogus = 1\n")
    result = kit.hook(
        gfh, "claude", "UserPromptSubmit", kit.payload("claude", "UserPromptSubmit", repo)
    )
    assert result.code == 0
    [line] = result.err.splitlines()
    assert line.startswith(
        f"gfh hook claude UserPromptSubmit: {repo}/.gitflow-harness.toml:1: unknown key 'bogus'"
    )
    assert line.endswith("; let through")
    assert "internal error" not in line
    [error] = [e for e in read_events(repo) if e["type"] == "hook.error"]
    assert error["data"]["error"].startswith("ConfigError: ")


@pytest.mark.parametrize("stdin", ["", "not json", "[1, 2]", '"text"', "{", "\x00\xff"])
@pytest.mark.parametrize("adapter", ["claude", "cursor", "codex"])
def test_unreadable_stdin_is_let_through_and_recorded(
    adapter: str, stdin: str, repo: Path, gfh: CliRunner
) -> None:
    result = gfh("hook", adapter, "Stop", stdin=stdin)
    assert result.code == 0
    assert len(result.err.splitlines()) == 1
    assert "nothing to do" in result.err
    assert result.out == ("{}\n" if adapter == "cursor" else "")
    [error] = [e for e in read_events(repo) if e["type"] == "hook.error"]
    assert error["data"]["error"].startswith("InvalidPayload: stdin is not")


FIX = "; fix the command in your hook settings"


@pytest.mark.parametrize(
    ("args", "problem", "out"),
    [
        (
            ("claud", "UserPromptSubmit"),
            "unknown adapter 'claud' (expected claude, cursor or codex)",
            "",
        ),
        (
            ("Claude", "Stop"),
            "unknown adapter 'Claude' (expected claude, cursor or codex, in lower case)",
            "",
        ),
        (
            ("Cursor", "stop"),
            "unknown adapter 'Cursor' (expected claude, cursor or codex, in lower case)",
            "{}\n",
        ),
        (("claude",), "missing EVENT after the adapter (`gfh hook ADAPTER EVENT`)", ""),
        ((), "missing ADAPTER and EVENT (`gfh hook ADAPTER EVENT`)", ""),
        (
            ("cursor", "stop", "--verbose"),
            "unexpected extra argument(s) '--verbose' (`gfh hook ADAPTER EVENT` takes two)",
            "{}\n",
        ),
        (
            ("codex", "Stop", "a b", "c", "d"),
            "unexpected extra argument(s) (not a plain name), 'c', … "
            "(`gfh hook ADAPTER EVENT` takes two)",
            "",
        ),
    ],
)
def test_a_hook_command_with_unusable_arguments_fails_open(
    repo: Path,
    gfh: CliRunner,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    args: tuple[str, ...],
    problem: str,
    out: str,
) -> None:
    """If the hook settings run `gfh hook` with a wrong adapter, a missing or an extra argument,
    then the host is let through — exit 0, never the 2 every host reads as "block" — with one
    stderr line saying what to fix, and a hook.error lands in the repository the payload's cwd
    is in."""
    monkeypatch.chdir(tmp_path)  # not a repository: the payload's cwd finds it
    data = kit.payload("claude", "UserPromptSubmit", repo)
    result = gfh("hook", *args, stdin=json.dumps(data))
    assert (result.code, result.out) == (0, out)
    assert result.err == f"gfh hook: {problem}{FIX}\n"
    [error] = read_events(repo)
    assert error["type"] == "hook.error"
    assert error["session"] is None
    assert error["data"]["error"] == f"UsageError: {problem}"
    assert error["data"]["adapter"] == (args[0] if args else "(invalid)")


def test_a_usage_error_without_a_payload_is_recorded_where_the_hook_runs(
    repo: Path, gfh: CliRunner
) -> None:
    result = gfh("hook", "vim", "Stop", stdin="not json")
    assert result.code == 0
    [error] = read_events(repo)
    assert (error["data"]["adapter"], error["data"]["event"]) == ("vim", "Stop")


def test_an_unknown_event_stays_quietly_accepted(repo: Path, gfh: CliRunner) -> None:
    data = kit.payload("claude", "Stop", repo)
    assert gfh("hook", "claude", "stop", stdin=json.dumps(data)) == Result(0, "", "")
    assert read_events(repo) == []


def test_a_usage_error_fails_open_through_the_command_line_too(repo: Path) -> None:
    """Whether a hook command reaches the runtime directly (`gfh hook …`) or through the command
    tree, a wrong argument exits 0: the host must never read it as a block."""
    from gitflow_harness.cli import run

    err = io.StringIO()
    with contextlib.redirect_stderr(err), contextlib.redirect_stdout(io.StringIO()):
        assert run(["hook", "claud", "Stop"]) == 0
    assert err.getvalue().startswith("gfh hook: unknown adapter 'claud'")
    proc = subprocess.run(
        [sys.executable, "-m", "gitflow_harness", "hook", "Claude", "Stop", "extra"],
        cwd=repo,
        input="{}",
        capture_output=True,
        text=True,
    )
    assert (proc.returncode, proc.stdout) == (0, "")
    assert proc.stderr.endswith(FIX + "\n")
    assert [e["type"] for e in read_events(repo)] == ["hook.error", "hook.error"]


def test_hook_help_goes_through_click(gfh: CliRunner) -> None:
    result = gfh("hook", "--help")
    assert result.code == 0
    assert "ADAPTER" in result.out
    assert "fails open" in result.out


def test_the_fast_path_imports_no_click_git_yaml_or_dataclasses(repo: Path) -> None:
    """If a session's configuration and the ways index are cached, then a PostToolUse that
    matches none of the repository's ways imports nothing heavy: the first call of a session
    parses the configuration once, every later one reads it from the session state."""
    for name in ("docs-style", "deploy"):
        write_way(
            repo / "hooks" / "ways",
            name,
            f"description: {name}\nwhen:\n  files: ['docs/*.md']\n" + EXP,
        )
    settle_tree(repo / "hooks")
    stdin = json.dumps(kit.payload("claude", "PostToolUse.Write", repo))
    warm = subprocess.run(
        [sys.executable, "-m", "gitflow_harness", "hook", "claude", "PostToolUse"],
        cwd=repo,
        input=stdin,
        capture_output=True,
        text=True,
        env=os.environ,
    )
    assert (warm.returncode, warm.stdout, warm.stderr) == (0, "", "")
    probe = (
        "import sys, io\n"
        f"sys.stdin = io.StringIO({stdin!r})\n"
        "from gitflow_harness.main import main\n"
        "code = main(['hook', 'claude', 'PostToolUse'])\n"
        "heavy = {'click', 'git', 'yaml', 'frontmatter', 'filelock', 'platformdirs',"
        " 'dataclasses', 'typing', 'subprocess'}\n"
        "print(code, sorted(m for m in sys.modules if m.split('.')[0] in heavy))\n"
    )
    proc = run_probe(probe, cwd=repo)
    assert proc.stdout.strip() == "0 []", proc.stderr
    assert [e["type"] for e in read_events(repo)] == ["tool.requested", "tool.requested"]


def test_session_start_removes_sessions_untouched_for_30_days(
    repo: Path, gfh: CliRunner, hermetic: Path
) -> None:
    sessions = hermetic / "gfh-state" / "sessions"
    old = sessions / "claude_old-000000000000"
    old.mkdir(parents=True)
    (old / "runtime.json").write_text("{}")
    month_ago = 31 * 24 * 3600
    for path in (old / "runtime.json", old):
        st = path.stat()
        os.utime(path, (st.st_atime - month_ago, st.st_mtime - month_ago))
    recent = sessions / "claude_recent-000000000000"
    recent.mkdir()
    kit.hook(gfh, "claude", "SessionStart", kit.payload("claude", "SessionStart", repo))
    assert not old.exists()
    assert recent.exists()


def test_a_terminal_on_stdin_is_a_usage_error_not_a_hang() -> None:
    class Terminal(io.StringIO):
        def isatty(self) -> bool:
            return True

    err = io.StringIO()
    code = runtime.main("claude", "Stop", stdin=Terminal(), stdout=io.StringIO(), stderr=err)
    assert code == 2
    assert "reads the host's JSON payload on stdin" in err.getvalue()


@pytest.mark.parametrize("args", [("claud", "Stop"), ("claude",), ("claude", "Stop", "x")])
def test_a_wrong_hook_command_typed_at_a_terminal_is_a_usage_error(args: tuple[str, ...]) -> None:
    """If a person, not a host, types a wrong `gfh hook`, they get exit 2 like any command: only
    a host reads exit 2 as "block"."""

    class Terminal(io.StringIO):
        def isatty(self) -> bool:
            return True

    err = io.StringIO()
    code = runtime.main(*args, stdin=Terminal(), stdout=io.StringIO(), stderr=err)
    assert code == 2
    assert err.getvalue().startswith("gfh hook: ")
    assert err.getvalue().count("\n") == 1


def _epoch(session: str) -> int:
    from gitflow_harness.hookcall.session import SessionState, epoch

    return epoch(SessionState(session).read())


def test_the_signals_of_one_compaction_count_once(
    repo: Path, gfh: CliRunner, tmp_path: Path
) -> None:
    """If Claude Code signals one compaction three times (PreCompact, PostCompact, SessionStart
    `compact`), then the epoch moves once; after a new turn the next compaction counts again,
    even one signalled only by PostCompact."""
    session = "claude:7f3c9d2e-1b4a-4c55-9a61-2f0d8e6b1a90"
    transcript = tmp_path / "t.jsonl"
    transcript.write_text(kit.transcript_line("m1", 50000))
    path = str(transcript)
    for name, fixture in (
        ("PreCompact", "PreCompact"),
        ("PostCompact", "PostCompact"),
        ("SessionStart", "SessionStart.compact"),
    ):
        kit.hook(gfh, "claude", name, kit.payload("claude", fixture, repo, transcript_path=path))
    assert _epoch(session) == 1
    prompt = kit.payload("claude", "UserPromptSubmit", repo, transcript_path=path)
    kit.hook(gfh, "claude", "UserPromptSubmit", prompt)
    post = kit.payload("claude", "PostCompact", repo, transcript_path=path)
    kit.hook(gfh, "claude", "PostCompact", post)
    assert _epoch(session) == 2
    kit.hook(gfh, "claude", "PreCompact", kit.payload("claude", "PreCompact", repo))
    assert _epoch(session) == 3  # a PreCompact always opens a new one


def test_a_new_response_ends_a_signalled_compaction(
    repo: Path, gfh: CliRunner, tmp_path: Path
) -> None:
    """If a new response reaches the transcript after a compaction's signals, then a later
    PostCompact belongs to a new compaction, even within the same turn."""
    session = "claude:7f3c9d2e-1b4a-4c55-9a61-2f0d8e6b1a90"
    transcript = tmp_path / "t.jsonl"
    transcript.write_text(kit.transcript_line("m1", 50000))
    post = kit.payload("claude", "PostCompact", repo, transcript_path=str(transcript))
    kit.hook(gfh, "claude", "PostCompact", post)
    kit.hook(gfh, "claude", "PostCompact", post)
    assert _epoch(session) == 1
    with open(transcript, "a") as out:
        out.write(kit.boundary_line("b1") + kit.transcript_line("m2", 9000))
    kit.hook(gfh, "claude", "PostCompact", post)
    assert _epoch(session) == 2


def test_a_planted_log_symlink_is_refused_and_its_target_untouched(
    repo: Path, gfh: CliRunner, tmp_path: Path
) -> None:
    """If the month's event log is a symlink to a victim file, then a hook lets the agent
    through with one line, and the victim gets no line and keeps its mode."""
    from gitflow_harness.store.eventwrite import log_directory, now_at

    victim = tmp_path / "victim"
    victim.write_text("precious\n")
    victim.chmod(0o644)
    directory = log_directory(repo / ".git")
    directory.mkdir(parents=True)
    (directory / f"{now_at()[:7]}.jsonl").symlink_to(victim)
    data = kit.payload("claude", "UserPromptSubmit", repo)
    result = kit.hook(gfh, "claude", "UserPromptSubmit", data)
    assert result.code == 0
    [line] = result.err.splitlines()
    assert "is a symlink; gfh appends only to a real file: remove the link" in line
    assert victim.read_text() == "precious\n"
    assert victim.stat().st_mode & 0o777 == 0o644


def test_a_planted_session_dir_symlink_fails_open_and_is_recorded(
    repo: Path, gfh: CliRunner, tmp_path: Path
) -> None:
    from gitflow_harness.store.state import session_key, state_home

    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    data = kit.payload("claude", "UserPromptSubmit", repo)
    sessions = Path(state_home(), "sessions")
    sessions.mkdir(parents=True)
    (sessions / session_key(f"claude:{data['session_id']}")).symlink_to(elsewhere)
    result = kit.hook(gfh, "claude", "UserPromptSubmit", data)
    assert result.code == 0
    [line] = result.err.splitlines()
    assert "refusing the state directory: " in line
    assert list(elsewhere.iterdir()) == []
    [error] = [e for e in read_events(repo) if e["type"] == "hook.error"]
    assert error["data"]["error"].startswith("StateDirError: refusing the state directory: ")


def test_the_transcript_is_read_on_from_where_the_last_call_left_it(
    repo: Path, gfh: CliRunner, tmp_path: Path
) -> None:
    """If a call read the session's transcript, then the state keeps where (offsets, the file's
    numbers and short hashes, nothing of its text), and the next call reads on from there."""
    from gitflow_harness.agent import ticks
    from gitflow_harness.hookcall.session import SessionState

    session = "claude:7f3c9d2e-1b4a-4c55-9a61-2f0d8e6b1a90"
    transcript = tmp_path / "t.jsonl"
    transcript.write_text(kit.transcript_line("m1", 50000))
    post = kit.payload("claude", "PostCompact", repo, transcript_path=str(transcript))
    kit.hook(gfh, "claude", "PostCompact", post)
    cursor = SessionState(session).read()["transcript"]
    assert isinstance(cursor, dict)
    assert (cursor["at"], cursor["line"], cursor["tokens"]) == (transcript.stat().st_size, 0, 50000)
    assert "m1" not in json.dumps(cursor)
    with open(transcript, "a") as out:
        out.write(kit.boundary_line("b1") + kit.transcript_line("m2", 9000))
    kit.hook(gfh, "claude", "PostCompact", post)
    state = SessionState(session).read()
    cursor = state["transcript"]
    assert isinstance(cursor, dict)
    assert isinstance(state["tokens"], dict)
    assert (cursor["at"], cursor["tokens"]) == (transcript.stat().st_size, 9000)
    assert state["tokens"]["message"] == ticks._id("m2")


def test_a_branch_name_that_is_not_utf8_is_logged_as_valid_utf8(repo: Path, gfh: CliRunner) -> None:
    subprocess.run(["git", "checkout", "-q", "-b", "caf\udce9"], cwd=repo, check=True)
    data = kit.payload("claude", "PostToolUse.Write", repo)
    result = kit.hook(gfh, "claude", "PostToolUse", data)
    assert (result.code, result.err) == (0, "")
    [event] = read_events(repo)  # strict UTF-8: every line decodes
    assert (event["type"], event["branch"]) == ("tool.requested", "caf\ufffd")


def test_a_prompt_keeps_where_its_turn_started_for_the_stop(repo: Path, gfh: CliRunner) -> None:
    """If a prompt starts a turn, then the state keeps the log file, offset and event id of its
    `turn.started` line (nothing of the prompt), where its Stop reads on from."""
    from gitflow_harness.hookcall.session import TURN_START, SessionState
    from gitflow_harness.store.events import EventLog

    session = "claude:7f3c9d2e-1b4a-4c55-9a61-2f0d8e6b1a90"
    kit.hook(gfh, "claude", "UserPromptSubmit", kit.payload("claude", "UserPromptSubmit", repo))
    kit.hook(gfh, "claude", "UserPromptSubmit", kit.payload("claude", "UserPromptSubmit", repo))
    start = SessionState(session).read()[TURN_START]
    assert isinstance(start, dict)
    assert set(start) == {"file", "at", "id"}
    [path] = EventLog(repo / ".git").files()
    line = json.loads(path.read_bytes()[start["at"] :].split(b"\n", 1)[0])
    assert (path.name, line["type"], line["id"], line["data"]["turn"]) == (
        start["file"],
        "turn.started",
        start["id"],
        2,
    )
