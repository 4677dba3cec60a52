"""The tool declarations: schemas, argument checks, and the twins they keep."""

from __future__ import annotations

import pytest

from gitflow_harness.errors import UsageError
from gitflow_harness.mcp import tools
from gitflow_harness.store import config


def test_every_tool_is_named_by_its_verb_and_takes_cwd() -> None:
    assert [t.name for t in tools.TOOLS] == [
        "status", "start", "update", "prepare", "test", "done", "accept",
        "task_set", "report", "ways_list", "learn",
    ]  # fmt: skip
    for tool in tools.TOOLS:
        schema = tool.input_schema()
        assert schema["type"] == "object"
        assert schema["additionalProperties"] is False
        assert schema["properties"]["cwd"]["type"] == "string"


@pytest.mark.parametrize(
    ("name", "properties", "required"),
    [
        ("status", {"end_turn": "boolean"}, []),
        ("start", {"name": "string", "from": "string"}, ["name"]),
        ("update", {"rebase": "boolean"}, []),
        ("done", {"rerun": "boolean"}, []),
        ("task_set", {"task": "string"}, ["task"]),
        ("report", {"since": "string"}, []),
        ("learn", {"check": "boolean", "days": "integer"}, []),
    ],
)
def test_arguments_are_the_cli_flags_in_snake_case(
    name: str, properties: dict[str, str], required: list[str]
) -> None:
    schema = tools.BY_NAME[name].input_schema()
    found = {k: v["type"] for k, v in schema["properties"].items() if k != "cwd"}
    assert found == properties
    assert schema["required"] == required


def test_parse_fills_defaults_and_refuses_what_the_schema_refuses() -> None:
    status = tools.BY_NAME["status"]
    assert status.parse(None) == {"end_turn": False, "cwd": None}
    assert status.parse({"end_turn": True}) == {"end_turn": True, "cwd": None}
    with pytest.raises(UsageError, match="no such argument 'end-turn'"):
        status.parse({"end-turn": True})
    with pytest.raises(UsageError, match="'end_turn' must be a boolean"):
        status.parse({"end_turn": "yes"})
    with pytest.raises(UsageError, match="'task' is required"):
        tools.BY_NAME["task_set"].parse({})
    learn = tools.BY_NAME["learn"]
    with pytest.raises(UsageError, match="'days' must be an integer"):
        learn.parse({"days": True})
    with pytest.raises(UsageError, match="at least 1"):
        learn.parse({"days": 0})
    with pytest.raises(UsageError, match="at most"):
        learn.parse({"days": tools.MAX_DAYS + 1})


def test_the_days_bound_is_the_clis() -> None:
    assert tools.MAX_DAYS == config.MAX_DAYS


def test_flags_are_the_cli_spellings_of_the_arguments_given() -> None:
    start = tools.BY_NAME["start"]
    assert tools.flags(start, start.parse({"name": "x", "from": "main"})) == ["--from"]
    status = tools.BY_NAME["status"]
    assert tools.flags(status, status.parse({"end_turn": False})) == []


def test_only_calls_that_change_the_repository_are_serialized() -> None:
    mutating = {t.name for t in tools.TOOLS if t.mutating({})}
    assert mutating == {"start", "update", "prepare", "test", "done", "accept", "task_set"}
    assert tools.BY_NAME["learn"].mutating({"check": True})


def test_docs_name_every_tool_and_every_argument() -> None:
    from tests.helpers import ROOT

    page = (ROOT / "docs" / "mcp.md").read_text(encoding="utf-8")
    rows = {line.split("|")[1].strip(" `"): line for line in page.splitlines() if "| `" in line}
    for tool in tools.TOOLS:
        assert tool.name in rows, tool.name
        for param in tool.params:
            assert f"`{param.name}`" in rows[tool.name], (tool.name, param.name)
    assert "`cwd`" in page
