"""Fuzz: whatever arrives on stdin, every event of every adapter answers per its contract,
never with a traceback, and writes no payload text anywhere."""

from __future__ import annotations

import io
import json
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from gitflow_harness.agent import claude, codex, cursor, runtime
from tests.agent import kit

CANARY = "CANARY-7f1d2e"
EVENTS = [(m.NAME, name) for m in (claude, cursor, codex) for name in m.EVENTS] + [
    ("claude", "Notification"),
    ("cursor", "afterShellExecution"),
]
# Fields that carry payload text in some host's protocol: each gets the canary.
TEXT_FIELDS = (
    "prompt",
    "tool_input",
    "tool_response",
    "tool_output",
    "last_assistant_message",
    "result",
    "text",
    "error",
    "error_message",
    "compact_summary",
    "custom_instructions",
    "command",
    "content",
    "agent_message",
)

json_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(max_size=20),
    lambda inner: (
        st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=8), inner, max_size=4)
    ),
    max_leaves=12,
)
canary_text = st.builds(lambda a, b: f"{a}{CANARY}{b}", st.text(max_size=10), st.text(max_size=10))
canary_input = st.fixed_dictionaries(
    dict.fromkeys(("command", "file_path", "content", "new_string", "description"), canary_text),
    optional={"path": canary_text, "extra": json_values},
)
canary_values = st.one_of(canary_input, canary_text, st.lists(canary_text, min_size=1, max_size=3))


@st.composite
def payloads(draw: Any) -> tuple[str, str, dict[str, Any]]:
    adapter, name = draw(st.sampled_from(EVENTS))
    shapes = [p for a, _, p in kit.fixture_files() if a == adapter]
    base = json.loads(draw(st.sampled_from(shapes)).read_text())
    for key in draw(st.lists(st.sampled_from(sorted(base)), max_size=4)):
        base[key] = draw(json_values)
    for key in TEXT_FIELDS:  # every field that can carry text carries the canary
        base[key] = draw(canary_values)
    return adapter, name, base


def _run(adapter: str, name: str, stdin: str) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    code = runtime.main(adapter, name, stdin=io.StringIO(stdin), stdout=out, stderr=err)
    return code, out.getvalue(), err.getvalue()


def _check(adapter: str, code: int, out: str, err: str, name: str = "") -> None:
    assert "Traceback" not in err
    assert CANARY not in err
    if code == 2:
        # The one contracted non-zero exit: Claude Code's Stop blocked by the end-of-turn ritual.
        assert (adapter, name) == ("claude", "Stop")
        assert err.rstrip("\n").splitlines()[-1].startswith("[gfh stop] rule=")
        assert out == ""
        return
    assert code == 0
    assert len(err.splitlines()) <= 1
    if adapter == "cursor":
        assert isinstance(json.loads(out), dict)
    elif out:
        assert set(json.loads(out)) == {"hookSpecificOutput"}


def _no_canary_on_disk(*roots: Path) -> None:
    for root in roots:
        for path in root.rglob("*"):
            if path.is_file():
                assert CANARY.encode() not in path.read_bytes(), path


@pytest.fixture
def ways(repo: Path) -> None:
    """A way on every lane that fires at every match, so each event runs the whole engine."""
    kit.way(
        repo,
        "everything",
        "when:\n  prompt: a\n  keywords: [CANARY]\n  files: ['*']\n  commands: .\n"
        "  session_start: true\nroles: [reviewer]\ncurve: {type: Flat, suppression: 0}\n",
        macro="cat > /dev/null\n",
        postcheck="cat > /dev/null\n",
    )


@pytest.mark.slow
@pytest.mark.usefixtures("ways")
@settings(max_examples=300, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(case=payloads())
def test_shaped_payloads_with_arbitrary_fields(
    case: tuple[str, str, dict[str, Any]], repo: Path, hermetic: Path
) -> None:
    adapter, name, payload = case
    code, out, err = _run(adapter, name, json.dumps(payload))
    _check(adapter, code, out, err, name)
    _no_canary_on_disk(hermetic / "gfh-state", repo / ".git" / "gitflow-harness")


@pytest.mark.slow
@settings(max_examples=200, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(
    event=st.sampled_from(EVENTS),
    stdin=st.one_of(
        st.text(max_size=200),
        json_values.map(json.dumps),
        st.binary(max_size=100).map(lambda b: b.decode("latin-1")),
    ),
)
def test_arbitrary_stdin(event: tuple[str, str], stdin: str, repo: Path) -> None:
    adapter, name = event
    code, out, err = _run(adapter, name, stdin)
    _check(adapter, code, out, err, name)


def test_deeply_nested_json_is_let_through(repo: Path) -> None:
    code, out, err = _run("claude", "PostToolUse", "[" * 100_000 + "]" * 100_000)
    _check("claude", code, out, err)
    assert "stdin is not" in err
