"""`jsonio` gives what `json` gives: the same values, the same text, the same errors."""

from __future__ import annotations

import json
import math
import os
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from gitflow_harness import jsonio

SCALARS = (
    st.none()
    | st.booleans()
    | st.integers()
    | st.floats(allow_nan=True, allow_infinity=True)
    | st.text()
)
VALUES = st.recursive(
    SCALARS,
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(), inner, max_size=4),
    max_leaves=20,
)
SEPARATORS = st.sampled_from([None, (",", ":"), (", ", ": ")])


def _same(a: object, b: object) -> bool:
    """Equal, NaN included (NaN is not equal to itself)."""
    if isinstance(a, float) and isinstance(b, float) and math.isnan(a):
        return math.isnan(b)
    if isinstance(a, list) and isinstance(b, list):
        return len(a) == len(b) and all(_same(x, y) for x, y in zip(a, b, strict=True))
    if isinstance(a, dict) and isinstance(b, dict):
        return a.keys() == b.keys() and all(_same(a[k], b[k]) for k in a)
    return type(a) is type(b) and a == b


@settings(max_examples=300)
@given(VALUES, st.booleans(), SEPARATORS, st.booleans())
def test_dumps_writes_what_json_writes(
    value: object, ensure_ascii: bool, separators: tuple[str, str] | None, sort_keys: bool
) -> None:
    options = {"ensure_ascii": ensure_ascii, "separators": separators, "sort_keys": sort_keys}
    assert jsonio.dumps(value, **options) == json.dumps(value, **options)  # type: ignore[arg-type]


@settings(max_examples=300)
@given(VALUES, st.booleans(), st.sampled_from(["", " ", "\n", " \t\r\n "]))
def test_loads_reads_what_json_reads(value: object, ensure_ascii: bool, space: str) -> None:
    text = space + json.dumps(value, ensure_ascii=ensure_ascii) + space
    assert _same(jsonio.loads(text), json.loads(text))
    raw = text.encode("utf-8", "surrogatepass")
    assert _same(jsonio.loads(raw), json.loads(raw))


@pytest.mark.parametrize(
    "text",
    [
        "",
        "   ",
        "{",
        '{"a": 1} x',
        '{"a": 1}\n{"b": 2}\n',
        "[1, 2,]",
        '"\\ud800"',
        "nan",
        "NaN",
        '{"a": 1e999}',
        '\ufeff{"a": 1}',
    ],
)
def test_loads_fails_where_json_fails_with_its_error(text: str) -> None:
    for data in (text, text.encode("utf-8", "surrogatepass")):
        assert _outcome(jsonio.loads, data) == _outcome(json.loads, data)


def _outcome(loads: Callable[[str | bytes], object], data: str | bytes) -> object:
    """What `loads` makes of `data`: its value (as text: NaN equals itself there), or its
    error's type and message."""
    try:
        return ("value", json.dumps(loads(data)))
    except ValueError as exc:
        return (type(exc), str(exc))


@pytest.mark.parametrize(
    "raw",
    [
        b'\xef\xbb\xbf{"a": 1}',  # UTF-8 with a byte order mark
        '{"a": "é"}'.encode("utf-16"),
        '{"a": "é"}'.encode("utf-16-le"),
        '{"a": "é"}'.encode("utf-32-be"),
        b'{"a": "\xff"}',  # not UTF-8 at all
    ],
)
def test_bytes_are_decoded_as_json_decodes_them(raw: bytes) -> None:
    assert _outcome(jsonio.loads, raw) == _outcome(json.loads, raw)


def test_what_json_cannot_write_fails_as_json_fails() -> None:
    for value in ({"a": object()}, {1: 2, "b": 3}):
        with pytest.raises(TypeError) as expected:
            json.dumps(value, sort_keys=True)
        with pytest.raises(TypeError) as raised:
            jsonio.dumps(value, sort_keys=True)
        assert str(raised.value) == str(expected.value)
    circular: list[object] = []
    circular.append(circular)
    with pytest.raises(ValueError, match="Circular reference detected"):
        jsonio.dumps(circular)


def test_its_errors_are_jsons_in_a_process_that_has_not_loaded_json() -> None:
    """If a hook process (which never loads `json`) reads a damaged file, then the error is
    `json`'s own, with its message: the C scanner needs `json.decoder` loaded to raise it."""
    code = (
        "import sys\n"
        "from gitflow_harness import jsonio\n"
        "texts = [b'{not json', b'[1, 2,]', b'{\"a\":', b'\"\\\\ud8', b'{\"a\": 1} x', b'']\n"
        "def outcome(loads, text):\n"
        "    try:\n"
        "        return repr(loads(text))\n"
        "    except ValueError as exc:\n"
        "        return f'{type(exc).__name__}: {exc}'\n"
        "ours = [outcome(jsonio.loads, t) for t in texts]\n"
        "import json\n"
        "print(ours == [outcome(json.loads, t) for t in texts], ours)\n"
    )
    out = _without_site(code)
    assert out.stdout.startswith("True "), out.stdout + out.stderr


def _without_site(code: str) -> subprocess.CompletedProcess[str]:
    """Run `code` in an interpreter without site (`-S`): nothing a `.pth` file starts
    (coverage's measuring of subprocesses imports json) is loaded; gfh comes from the checkout."""
    root = str(Path(jsonio.__file__).resolve().parent.parent)
    env = {k: v for k, v in os.environ.items() if not k.startswith("PYTHON")}
    return subprocess.run(
        [sys.executable, "-S", "-c", code],
        capture_output=True,
        text=True,
        env={**env, "PYTHONPATH": root},
        check=False,
    )


def test_importing_it_leaves_json_unimported() -> None:
    """If gfh's hot paths read and write JSON through `jsonio`, then the `json` package (and
    the regular expressions it compiles) is not imported for it."""
    code = (
        "import sys\n"
        "from gitflow_harness import jsonio\n"
        "jsonio.dumps(jsonio.loads(b'{\"a\": [1, 2.5, null]}'), separators=(',', ':'))\n"
        "print('json' in sys.modules)\n"
    )
    out = _without_site(code)
    assert out.stdout.strip() == "False", out.stderr
