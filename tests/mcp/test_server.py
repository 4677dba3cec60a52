"""`gfh mcp` over stdio, driven by the MCP SDK's own client, in real git repositories."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import anyio
import pytest
from mcp import ClientSession

from tests.agent import kit
from tests.helpers import CliRunner, git, read_events, write
from tests.mcp.client import run, structured, text

SESSION = "claude:7f3c9d2e-1b4a-4c55-9a61-2f0d8e6b1a90"  # the hook fixtures' session
AGENT = {"GFH_SESSION": SESSION}
GATE = '[gate]\ntest = ["echo gate-ran"]\nprepare = ["true"]\n'


def cli_json(gfh: CliRunner, *args: str, cwd: Path | None = None) -> dict[str, Any]:
    """What `gfh ARGS --json` prints, run as the agent would."""
    import os

    before = os.getcwd()
    try:
        if cwd is not None:
            os.chdir(cwd)
        result = gfh(*args, "--json", env=AGENT)
    finally:
        os.chdir(before)
    parsed: dict[str, Any] = json.loads(result.out)
    return parsed


def test_lists_every_tool_with_its_schema(repo: Path) -> None:
    async def body(session: ClientSession) -> Any:
        return await session.list_tools()

    listed = run(repo, body)
    by_name = {t.name: t for t in listed.tools}
    assert set(by_name) == {
        "status", "start", "update", "prepare", "test", "done", "accept",
        "task_set", "report", "ways_list", "learn",
    }  # fmt: skip
    assert by_name["status"].input_schema["properties"]["end_turn"]["type"] == "boolean"
    assert by_name["task_set"].input_schema["required"] == ["task"]
    assert by_name["start"].input_schema["required"] == ["name"]
    assert all("cwd" in t.input_schema["properties"] for t in listed.tools)


def test_each_tool_answers_with_the_clis_json_object(repo: Path, gfh: CliRunner) -> None:
    """If a tool is called, then its structured result is the object `gfh … --json` prints in
    the same state: the same keys, outcome and hints (values that must differ, such as the
    name of a new branch, aside)."""
    write(repo, ".gitflow-harness.toml", GATE)
    kit.way(repo, "notes/dated", "description: d\nwhen: {keywords: [notes]}\n" + kit.EXPONENTIAL)
    git(repo, "add", "-A")
    git(repo, "commit", "-q", "-m", "gate and a way")
    worktrees = repo.parent / "repo.worktrees"

    def calls(*steps: tuple[str, dict[str, Any]]) -> dict[str, dict[str, Any]]:
        async def body(session: ClientSession) -> dict[str, dict[str, Any]]:
            got: dict[str, dict[str, Any]] = {}
            for name, args in steps:
                result = await session.call_tool(name, args)
                assert not result.is_error, text(result)
                got[name] = structured(result)
            return got

        return run(repo, body, AGENT)

    wt = str(worktrees / "feat-a")
    mcp = calls(
        ("task_set", {"task": "check the tree"}),
        ("status", {}),
        ("ways_list", {}),
        ("learn", {}),
        ("report", {}),
    )
    assert mcp["status"] == cli_json(gfh, "status")
    task = cli_json(gfh, "task", "set", "check the tree")
    assert {**mcp["task_set"], "had_task": True} == task
    assert mcp["ways_list"] == cli_json(gfh, "ways", "list")
    learn = cli_json(gfh, "learn")
    assert {**mcp["learn"], "now": learn["now"]} == learn  # read a moment apart
    report = cli_json(gfh, "report")
    assert mcp["report"].keys() == report.keys()
    assert [f["detector"] for f in mcp["report"]["findings"]] == [
        f["detector"] for f in report["findings"]
    ]
    mcp = calls(
        ("start", {"name": "feat-a"}),
        ("update", {"cwd": wt}),
        ("prepare", {"cwd": wt}),
        ("test", {"cwd": wt}),
        ("done", {"cwd": wt}),
        ("accept", {"cwd": wt}),
    )
    envelopes = {"start": cli_json(gfh, "start", "feat-b")}
    for verb in ("update", "prepare", "test", "done", "accept"):
        envelopes[verb] = cli_json(gfh, verb, cwd=worktrees / "feat-b")
    for verb, cli in envelopes.items():
        ours = mcp[verb]
        assert ours.keys() == {"verb", "outcome", "data", "hints"}
        assert (ours["verb"], ours["outcome"]) == (cli["verb"], cli["outcome"]), verb
        assert [h["id"] for h in ours["hints"]] == [h["id"] for h in cli["hints"]], verb
        assert ours["data"].keys() == cli["data"].keys(), verb


def test_errors_are_tool_errors_and_the_server_carries_on(repo: Path, tmp_path: Path) -> None:
    outside = tmp_path / "not-a-repo"
    outside.mkdir()

    async def body(session: ClientSession) -> list[Any]:
        return [
            await session.call_tool("status", {"cwd": str(outside)}),
            await session.call_tool("status", {"end_turn": "yes"}),
            await session.call_tool("task_set", {"task": "x"}),  # no session in this server
            await session.call_tool("start", {"name": "bad..name"}),
            await session.call_tool("no_such_tool", {}),
            await session.call_tool("status", {}),
        ]

    not_repo, bad_arg, no_session, bad_name, unknown, fine = run(repo, body)
    assert not_repo.is_error
    assert text(not_repo).startswith("gfh: not a git repository")
    assert structured(not_repo)["outcome"] == "refused"
    assert bad_arg.is_error
    assert text(bad_arg) == "gfh: status: argument 'end_turn' must be a boolean"
    assert no_session.is_error
    assert "no agent session" in text(no_session)
    assert no_session.structured_content is None
    assert bad_name.is_error
    assert structured(bad_name)["outcome"] == "refused"
    assert text(bad_name).startswith("gfh: ")
    assert unknown.is_error
    assert "no tool 'no_such_tool'" in text(unknown)
    assert not fine.is_error
    assert "\n" not in text(not_repo)


def test_calls_record_surface_mcp_and_the_session_from_the_environment(repo: Path) -> None:
    async def body(session: ClientSession) -> Any:
        await session.call_tool("task_set", {"task": "look around"})
        return await session.call_tool("status", {"end_turn": True})

    result = run(repo, body, AGENT)
    assert text(result).startswith("┌─ gfh")  # the box, for the reply
    ours = read_events(repo)
    assert [(e["type"], e["surface"], e["session"]) for e in ours] == [
        ("coord.task_changed", "mcp", SESSION),
        ("coord.status_observed", "mcp", SESSION),
        ("verb", "mcp", SESSION),
    ]
    verb = ours[-1]["data"]
    assert (verb["verb"], verb["outcome"], verb["flags"]) == ("status", "ok", ["--end-turn"])
    assert ours[-1]["branch"] == "main"


def test_a_gate_run_reports_progress_and_keeps_its_output_off_the_wire(repo: Path) -> None:
    """If gate commands print to stdout (even something shaped like a protocol message), then
    the stream stays intact: the output is captured, progress notes arrive, and a failed run
    hands back the tail of its output."""
    noisy = 'printf \'{"jsonrpc": "2.0", "id": 1, "result": {}}\\n\'; echo gate-out; echo e >&2'
    write(repo, ".gitflow-harness.toml", f'[gate]\ntest = [{json.dumps(noisy)}, "echo two"]\n')
    notes: list[tuple[float, str | None]] = []

    async def progress(value: float, total: float | None, message: str | None) -> None:
        notes.append((value, message))

    async def body(session: ClientSession) -> Any:
        green = await session.call_tool("test", {}, progress_callback=progress)
        write(repo, ".gitflow-harness.toml", '[gate]\ntest = ["echo failing-out; exit 3"]\n')
        red = await session.call_tool("test", {})
        return green, red

    green, red = run(repo, body)
    assert not green.is_error, text(green)
    assert structured(green)["outcome"] == "ok"
    messages = [m for _, m in notes]
    assert f"[test] $ {noisy}" in messages
    assert "[test] $ echo two" in messages
    assert [v for v, _ in notes] == sorted(v for v, _ in notes)
    assert "gate-out" not in text(green)
    assert red.is_error
    assert structured(red)["outcome"] == "failed"
    assert "failing-out" in text(red)
    assert "hint: " in text(red)


def test_concurrent_calls_are_answered_and_each_recorded_once(repo: Path) -> None:
    write(repo, ".gitflow-harness.toml", '[gate]\ntest = ["sleep 1"]\n')

    async def body(session: ClientSession) -> list[Any]:
        results: list[Any] = []

        async def one(name: str, args: dict[str, Any]) -> None:
            results.append((name, await session.call_tool(name, args)))

        async with anyio.create_task_group() as tg:
            tg.start_soon(one, "test", {})
            tg.start_soon(one, "test", {})
            for _ in range(4):
                tg.start_soon(one, "status", {})
            tg.start_soon(one, "task_set", {"task": "in parallel"})
        return results

    results = run(repo, body, AGENT)
    assert len(results) == 7
    assert all(not r.is_error for _, r in results), [text(r) for _, r in results]
    verbs = [e["data"]["verb"] for e in read_events(repo) if e["type"] == "verb"]
    assert sorted(verbs) == ["status"] * 4 + ["test"] * 2
    runs = [e for e in read_events(repo) if e["type"] == "verb" and e["data"]["verb"] == "test"]
    assert all(e["data"]["gate"] == "green" for e in runs)


def test_the_stop_ritual_accepts_what_was_done_through_mcp(repo: Path, gfh: CliRunner) -> None:
    """If a Claude Code turn used a tool and then declared its task and ran the end-turn status
    through MCP (no `gfh` command at all), then Stop allows it: rules 1 and 3 read the MCP
    events of the session like the CLI's."""
    kit.hook(gfh, "claude", "UserPromptSubmit", kit.payload("claude", "UserPromptSubmit", repo))
    kit.hook(gfh, "claude", "PostToolUse", kit.payload("claude", "PostToolUse.Edit", repo))

    async def body(session: ClientSession) -> Any:
        await session.call_tool("task_set", {"task": "fix the parser"})
        return await session.call_tool("status", {"end_turn": True})

    status = run(repo, body, AGENT)
    box = text(status).split("\nhint:")[0]
    stop = kit.payload("claude", "Stop", repo, last_assistant_message=f"Done.\n\n{box}")
    result = kit.hook(gfh, "claude", "Stop", stop)
    assert (result.code, result.err) == (0, "")
    (verdict,) = [e["data"] for e in read_events(repo) if e["type"] == "stop.verdict"]
    assert verdict["decision"] == "allow"


@pytest.mark.parametrize("tool", ["status", "ways_list"])
def test_a_relative_cwd_is_taken_from_the_servers_directory(repo: Path, tool: str) -> None:
    sub = repo / "docs"
    sub.mkdir()

    async def body(session: ClientSession) -> Any:
        return await session.call_tool(tool, {"cwd": "docs"})

    result = run(repo, body)
    assert not result.is_error, text(result)


def test_the_server_starts_without_what_only_its_tools_need() -> None:
    """If the server is built, then nothing of gfh's domain is imported yet (git, the ways,
    the reports, GitPython, frontmatter): each call imports what its command needs."""

    from tests.helpers import probe as run_probe

    probe = (
        "import sys, gitflow_harness.mcp.server as s; s.build(); "
        "print(' '.join(sorted(m for m in sys.modules if m.startswith('gitflow_harness') "
        "or m in ('git', 'frontmatter'))))"
    )
    proc = run_probe(probe, check=True)
    assert proc.stdout.split() == [
        "gitflow_harness",
        "gitflow_harness.errors",
        "gitflow_harness.mcp",
        "gitflow_harness.mcp.server",
        "gitflow_harness.mcp.tools",
    ]


def test_learn_check_files_what_is_owed_like_the_cli(
    tmp_path: Path, gfh: CliRunner, monkeypatch: pytest.MonkeyPatch
) -> None:
    """If a lesson is owed its graduation request, then `learn` with `check` files it and
    answers with the object `gfh learn --check --json` gives in an identical repository."""
    from tests.helpers import make_repo

    repos = [make_repo(tmp_path / name) for name in ("by-mcp", "by-cli")]
    for repo in repos:
        monkeypatch.chdir(repo)
        assert gfh("pills", "new", "Explore", "search-first", "--trigger", "searching").code == 0
        for _ in range(2):
            assert gfh("pills", "bump", "Explore/search-first").code == 0
        git(repo, "add", "-A")
        git(repo, "commit", "-q", "-m", "a lesson")

    async def body(session: ClientSession) -> Any:
        return await session.call_tool("learn", {"check": True})

    result = run(repos[0], body)
    assert not result.is_error, text(result)
    ours = structured(result)
    assert ours["filed"], ours
    monkeypatch.chdir(repos[1])
    cli = gfh("learn", "--check", "--json")
    assert cli.code == 1
    assert ours == cli.json()
