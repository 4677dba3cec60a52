"""JSON members inserted as text: the rest of the document keeps every byte."""

from __future__ import annotations

import difflib
import json
from typing import Any

import pytest

from gitflow_harness.scaffold.jsonedit import add_missing


def _only_insertions(before: str, after: str) -> bool:
    matcher = difflib.SequenceMatcher(a=before, b=after, autojunk=False)
    return all(tag in ("equal", "insert") for tag, *_ in matcher.get_opcodes())


@pytest.mark.parametrize(
    ("text", "after"),
    [
        ('{"a": 1}', {"a": 1, "b": [2]}),
        ('{\n  "a": 1\n}\n', {"a": 1, "b": {"c": [1, 2]}}),
        ('{\n\t"a": {\n\t\t"x": []\n\t}\n}', {"a": {"x": [{"k": "v"}], "y": 1}}),
        ("{}", {"hooks": {"Stop": []}}),
        ('{\n    "hooks": {\n    }\n}\n', {"hooks": {"Stop": [1]}}),
        ('{"l": [1, 2]}', {"l": [1, 2, 3, 4]}),
        ('{"l": [\n    1\n  ]}', {"l": [1, {"n": "é"}]}),
        ('{"s": "a \\" } ] , b", "n": null}', {"s": 'a " } ] , b', "n": None, "m": True}),
        ('  {"a": [{"b": {}}]}  \n', {"a": [{"b": {"c": 1}}, 2]}),
    ],
)
def test_additions_keep_the_original_text(text: str, after: dict[str, Any]) -> None:
    result = add_missing(text, json.loads(text), after)
    assert result is not None
    assert json.loads(result) == after
    assert _only_insertions(text, result)


def test_new_members_are_indented_like_their_siblings() -> None:
    text = '{\n    "hooks": {\n        "A": [\n            1\n        ]\n    }\n}\n'
    result = add_missing(text, json.loads(text), {"hooks": {"A": [1, 2], "B": [3]}})
    assert result == (
        '{\n    "hooks": {\n        "A": [\n            1,\n            2\n        ],\n'
        '        "B": [\n            3\n        ]\n    }\n}\n'
    )


def test_a_container_written_on_one_line_stays_on_one_line() -> None:
    text = '{"hooks": {"A": [1]}}'
    assert add_missing(text, json.loads(text), {"hooks": {"A": [1, {"x": 2}]}}) == (
        '{"hooks": {"A": [1, {"x": 2}]}}'
    )


def test_changes_that_are_not_additions_are_refused() -> None:
    text = '{"a": 1}'
    assert add_missing(text, {"a": 1}, {"a": 2}) is None
