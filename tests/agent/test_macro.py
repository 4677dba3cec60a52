"""Macros: tracked scripts only, their environment, their output used only on exit 0."""

from __future__ import annotations

import os
from pathlib import Path

from gitflow_harness.agent import macro
from gitflow_harness.agent.macro import Macro, run_macros
from tests.helpers import commit, write

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
    macros = [Macro(w, f"ways/{w}/macro.sh") for w in ("ok", "fails", "slow", "new")]
    assert _run(repo, macros, tmp_path, timeout=0.5) == {"ok": "fine\n"}
    assert not marker.exists()


def test_a_macro_that_prints_too_much_is_left_out(repo: Path, tmp_path: Path) -> None:
    size = macro.MAX_OUTPUT + 1
    commit(repo, "loud", {"ways/loud/macro.sh": f"head -c {size} /dev/zero | tr '\\\\0' x\n"})
    commit(repo, "fits", {"ways/fits/macro.sh": f"head -c {size - 1} /dev/zero | tr '\\\\0' x\n"})
    out = _run(
        repo, [Macro("loud", "ways/loud/macro.sh"), Macro("fits", "ways/fits/macro.sh")], tmp_path
    )
    assert list(out) == ["fits"]
    assert len(out["fits"]) == size - 1


def test_an_executable_with_an_interpreter_line_runs_directly(repo: Path, tmp_path: Path) -> None:
    commit(repo, "py", {"ways/py/macro.sh": "#!/usr/bin/env python3\nprint('from python')\n"})
    os.chmod(repo / "ways/py/macro.sh", 0o755)
    assert _run(repo, [Macro("py", "ways/py/macro.sh")], tmp_path) == {"py": "from python\n"}
