"""The session a command learns from its environment: gfh's own variable, else the host's."""

from __future__ import annotations

import pytest

from gitflow_harness.store.session_env import missing_session, session_from_env


@pytest.mark.parametrize(
    ("environ", "session"),
    [
        ({}, None),
        ({"GFH_SESSION": "cursor:c-1", "CLAUDE_CODE_SESSION_ID": "abc"}, "cursor:c-1"),
        ({"CLAUDE_CODE_SESSION_ID": "7f3c-1b4a"}, "claude:7f3c-1b4a"),
        ({"CODEX_SESSION_ID": "0199a7c2", "CODEX_THREAD_ID": "other"}, "codex:0199a7c2"),
        ({"CODEX_THREAD_ID": "0199a7c2"}, "codex:0199a7c2"),
        ({"GFH_SESSION": "", "CODEX_THREAD_ID": "t-1"}, "codex:t-1"),
        # Not plain ids: ignored, the next variable is read.
        ({"CLAUDE_CODE_SESSION_ID": "two words", "CODEX_SESSION_ID": "c-2"}, "codex:c-2"),
        ({"CLAUDE_CODE_SESSION_ID": "x" * 129}, None),
        ({"CODEX_SESSION_ID": "-rf"}, None),
    ],
)
def test_the_session_comes_from_gfh_then_from_the_host(
    environ: dict[str, str], session: str | None
) -> None:
    assert session_from_env(environ) == session


def test_it_reads_the_process_environment_by_default(monkeypatch: pytest.MonkeyPatch) -> None:
    assert session_from_env() is None
    monkeypatch.setenv("CLAUDE_CODE_SESSION_ID", "s-1")
    assert session_from_env() == "claude:s-1"


def test_what_is_missing_names_every_variable_read() -> None:
    text = missing_session({})
    assert text == (
        "no $GFH_SESSION, $CLAUDE_CODE_SESSION_ID, $CODEX_SESSION_ID or $CODEX_THREAD_ID"
    )
    unusable = missing_session({"CLAUDE_CODE_SESSION_ID": "a b"})
    assert unusable.endswith("holding a plain id ($CLAUDE_CODE_SESSION_ID is not one)")
