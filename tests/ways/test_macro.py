"""Macros: committed content only, their environment, their output used only on exit 0; and what
they add to the text of a way that fires, through real hook calls."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

from gitflow_harness.ways import macro
from gitflow_harness.ways.macro import Macro, run_macros
from tests.agent import kit
from tests.helpers import CliRunner, commit, read_events, write

PAYLOAD = b'{"hook_event_name": "PostToolUse"}'


def _run(repo: Path, macros: list[Macro], tmp_path: Path, timeout: float = 10.0) -> dict[str, str]:
    return run_macros(
        repo,
        macros,
        PAYLOAD,
        timeout_s=timeout,
        session="claude:s1",
        session_directory=tmp_path / "session",
    )


def test_a_macro_sees_its_way_its_session_its_hand_off_and_the_payload(
    repo: Path, tmp_path: Path
) -> None:
    script = (
        'printf "%s|%s|%s|" "$GFH_WAY" "$GFH_SESSION" "${GFH_SALIENCE:-none}"\n'
        'test -d "$GFH_WAY_STATE" && printf "handoff|"\n'
        "cat\n"
    )
    commit(repo, "macro", {"ways/a/macro.sh": script})
    out = _run(repo, [Macro("a", "ways/a/macro.sh")], tmp_path)
    assert out == {"a": "a|claude:s1|none|handoff|" + PAYLOAD.decode()}
    stairs = _run(repo, [Macro("a", "ways/a/macro.sh", salience=0.25)], tmp_path)
    assert stairs["a"].startswith("a|claude:s1|0.25|")


def test_only_tracked_macros_that_exit_0_in_time_count(repo: Path, tmp_path: Path) -> None:
    marker = tmp_path / "ran"
    commit(
        repo,
        "macros",
        {
            "ways/ok/macro.sh": "echo fine\n",
            "ways/fails/macro.sh": "echo half; exit 1\n",
            "ways/slow/macro.sh": "echo early; sleep 300\n",
        },
    )
    write(repo, "ways/new/macro.sh", f"touch {marker}; echo new\n")
    macros = [Macro(w, f"ways/{w}/macro.sh") for w in ("ok", "fails", "new")]
    assert _run(repo, macros, tmp_path) == {"ok": "fine\n"}  # a timeout none can miss
    assert not marker.exists()
    # What the slow one printed before it was killed is not used.
    assert _run(repo, [Macro("slow", "ways/slow/macro.sh")], tmp_path, timeout=0.5) == {}


def test_an_uncommitted_edit_of_a_committed_macro_never_runs(
    repo: Path, gfh: CliRunner, tmp_path: Path
) -> None:
    """If a committed macro is edited and not committed, then the way fires with its body alone
    and the edit never runs."""
    marker = tmp_path / "MODIFIED_RAN"
    kit.way(
        repo,
        "edited",
        "when:\n  keywords: [parser]\n" + kit.EXPONENTIAL,
        "Body.",
        macro="echo committed\n",
    )
    write(repo, "hooks/ways/edited/macro.sh", f"touch {marker}; echo edited\n")
    result = kit.hook(gfh, "claude", "UserPromptSubmit", _prompt(repo))
    assert kit.context(result) == "Body."
    assert not marker.exists()


def test_a_macro_that_prints_too_much_is_left_out(repo: Path, tmp_path: Path) -> None:
    size = macro.MAX_OUTPUT + 1
    commit(repo, "loud", {"ways/loud/macro.sh": f"yes x | head -c {size}\n"})
    commit(repo, "fits", {"ways/fits/macro.sh": f"yes x | head -c {size - 1}\n"})
    out = _run(
        repo, [Macro("loud", "ways/loud/macro.sh"), Macro("fits", "ways/fits/macro.sh")], tmp_path
    )
    assert list(out) == ["fits"]
    assert len(out["fits"]) == size - 1


def test_an_executable_with_an_interpreter_line_runs_directly(repo: Path, tmp_path: Path) -> None:
    commit(repo, "py", {"ways/py/macro.sh": "#!/usr/bin/env python3\nprint('from python')\n"})
    os.chmod(repo / "ways/py/macro.sh", 0o755)
    assert _run(repo, [Macro("py", "ways/py/macro.sh")], tmp_path) == {"py": "from python\n"}


# -- through the hook ---------------------------------------------------------------------------


def test_a_macro_prepends_or_appends_what_it_prints(repo: Path, gfh: CliRunner) -> None:
    kit.way(
        repo,
        "before",
        "when:\n  keywords: [parser]\n" + kit.EXPONENTIAL,
        "Body one.",
        macro='printf "Way %s says:\\n" "$GFH_WAY"\n',
    )
    kit.way(
        repo,
        "after",
        "when:\n  keywords: [parser]\nmacro: append\n" + kit.EXPONENTIAL,
        "Body two.",
        macro="cat > /dev/null\necho '-- appended'\n",
    )
    kit.way(
        repo,
        "untrusted",
        "when:\n  keywords: [parser]\n" + kit.EXPONENTIAL,
        "Body three.",
        macro="echo NEVER\n",
        track=False,
    )
    result = kit.hook(gfh, "claude", "UserPromptSubmit", _prompt(repo))
    assert kit.context(result) == (
        "Body two.\n\n-- appended\n\nWay before says:\n\nBody one.\n\nBody three."
    )


def test_a_failing_or_slow_macro_leaves_the_body_alone(repo: Path, gfh: CliRunner) -> None:
    write(repo, ".gitflow-harness.toml", "[ways]\npostcheck_timeout_s = 0.3\n")
    lanes = "when:\n  keywords: [parser]\n" + kit.EXPONENTIAL
    kit.way(repo, "fails", lanes, macro="echo x; exit 3\n")
    kit.way(repo, "sleeps", lanes, macro="sleep 30\n")
    result = kit.hook(gfh, "claude", "UserPromptSubmit", _prompt(repo))
    assert kit.context(result) == "Guidance of fails.\n\nGuidance of sleeps."


def test_a_staircase_fires_at_each_step_and_tells_its_macro_the_salience(
    repo: Path, gfh: CliRunner
) -> None:
    kit.way(
        repo,
        "stairs",
        "when:\n  keywords: [parser]\naxis: turns\n"
        "curve: {type: ProgressiveStaircase, steps: [[0, 1.0], [2, 0.5]]}\n",
        "Stairs.",
        macro='printf "salience %s" "$GFH_SALIENCE"\n',
    )
    calls = [kit.hook(gfh, "claude", "UserPromptSubmit", _prompt(repo)) for _ in range(4)]
    texts = [kit.context(call) for call in calls]
    assert texts == ["salience 1\n\nStairs.", None, "salience 0.5\n\nStairs.", None]
    assert [d[1:] for d in kit.decisions(repo)] == [
        ("fired", 1, "first"),
        ("suppressed", 2, "salience"),
        ("fired", 3, "step"),
        ("suppressed", 4, "salience"),
    ]


def test_the_starter_file_size_way_hands_its_finding_from_postcheck_to_macro(
    repo: Path, gfh: CliRunner
) -> None:
    """The shipped `code/file-size` way: its postcheck finds the file an edit left past 500
    lines and leaves a count and a hash in $GFH_WAY_STATE; its macro names the file above the
    way's text."""
    import shutil

    from gitflow_harness.ways import starter_ways_root

    shutil.copytree(starter_ways_root() / "code" / "file-size", repo / "hooks/ways/code/file-size")
    write(repo, "src/big.py", "x = 1\n" * 600)
    from tests.helpers import git

    git(repo, "add", "-A")
    git(repo, "commit", "-q", "-m", "the file-size way")
    data = kit.payload(
        "claude", "PostToolUse.Write", repo, tool_input={"file_path": str(repo / "src/big.py")}
    )
    result = kit.hook(gfh, "claude", "PostToolUse", data)
    text = kit.context(result) or ""
    assert text.startswith("`src/big.py` now has 600 lines.\n\n# Keep files small")
    [fired] = _fired(repo)
    assert (fired["way"], fired["trigger"]) == ("code/file-size", "postcheck")
    small = kit.payload(
        "claude", "PostToolUse.Write", repo, tool_input={"file_path": str(repo / "README.md")}
    )
    assert kit.hook(gfh, "claude", "PostToolUse", small).out == ""


def test_a_waiting_cursor_way_runs_its_macro_where_it_is_delivered(
    repo: Path, gfh: CliRunner, tmp_path: Path
) -> None:
    marker = tmp_path / "macro-ran"
    kit.way(
        repo,
        "tests",
        "when:\n  prompt: tests\n" + kit.EXPONENTIAL,
        "Run gfh test.",
        macro=f"echo run >> {marker}\necho Now:\n",
    )
    kit.hook(gfh, "cursor", "beforeSubmitPrompt", kit.payload("cursor", "beforeSubmitPrompt", repo))
    assert not marker.exists()
    post = kit.hook(gfh, "cursor", "postToolUse", kit.payload("cursor", "postToolUse", repo))
    assert post.json() == {}
    assert not marker.exists()
    start = kit.hook(gfh, "cursor", "sessionStart", kit.payload("cursor", "sessionStart", repo))
    assert start.json()["additional_context"].endswith("Now:\n\nRun gfh test.")
    assert marker.read_text() == "run\n"


def _prompt(repo: Path) -> dict[str, Any]:
    return kit.payload("claude", "UserPromptSubmit", repo, transcript_path=None)


def _fired(repo: Path) -> list[dict[str, Any]]:
    return [e["data"] for e in read_events(repo) if e["type"] == "way.fired"]


def test_postchecks_and_macros_of_one_call_share_one_budget(
    repo: Path, gfh: CliRunner, tmp_path: Path
) -> None:
    """If the call's postchecks spend all of `ways.postcheck_timeout_s`, then the macro of a
    way that fires in the same call never starts, and the way fires with its body alone."""
    started = tmp_path / "macro-started"
    write(repo, ".gitflow-harness.toml", "[ways]\npostcheck_timeout_s = 0.5\n")
    kit.way(
        repo, "hangs", "when: {files: ['*.nothing']}\n" + kit.EXPONENTIAL, postcheck="sleep 60\n"
    )
    kit.way(
        repo, "edits", "when: {files: ['*.py']}\n" + kit.EXPONENTIAL, macro=f"touch {started}\n"
    )
    data = kit.payload(
        "claude", "PostToolUse.Write", repo, tool_input={"file_path": str(repo / "a.py")}
    )
    result = kit.hook(gfh, "claude", "PostToolUse", data)
    assert kit.context(result) == "Guidance of edits."
    assert not started.exists()
