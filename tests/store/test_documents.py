from __future__ import annotations

import datetime as dt
import threading
from pathlib import Path

import pytest

from gitflow_harness.store import documents as docs
from gitflow_harness.store.documents import DocumentError
from gitflow_harness.store.fsutil import FileExistsGfhError, create_exclusive
from gitflow_harness.store.schema import REQUIRED, Date, Field, Int, Schema, Str, StrList

SCHEMA = Schema(
    "pill",
    (
        Field("id", Str(nonempty=True), REQUIRED),
        Field("occurrences", Int(min=1), REQUIRED),
        Field("date", Date(), REQUIRED),
        Field("citations", StrList(), ()),
    ),
    forbidden={"redisclose": "redisclose is retired: run `gfh ways migrate`"},
)


def _write(tmp_path: Path, data: bytes) -> Path:
    path = tmp_path / "doc.md"
    path.write_bytes(data)
    return path


def test_bom_crlf_and_comments_parse(tmp_path: Path) -> None:
    path = _write(
        tmp_path,
        "\ufeff---\r\nid: shared-x  # the id\r\noccurrences: 4  # seen twice\r\n"
        "date: 2026-11-01\r\n# a comment line\r\ncitations:\r\n  - a.py:3\r\n---\r\n"
        "# Body\r\n".encode(),
    )
    doc, values = docs.load(path, SCHEMA)
    assert values == {
        "id": "shared-x",
        "occurrences": 4,
        "date": dt.date(2026, 11, 1),
        "citations": ("a.py:3",),
    }
    assert doc.bom
    assert doc.newline == "\r\n"
    assert doc.line_of("occurrences") == 3
    assert doc.line_of("citations") == 6
    assert doc.body == "# Body\r\n"
    assert doc.body_line == 9


def test_set_field_changes_only_that_value_byte_for_byte(tmp_path: Path) -> None:
    original = (
        "\ufeff---\r\nid: shared-x\r\noccurrences: 4  # seen twice\r\ndate: 2026-11-01\r\n---\r\n"
        "Body: occurrences: 4\r\n"
    ).encode()
    path = _write(tmp_path, original)
    doc = docs.read_document(path)
    docs.save(doc, docs.set_field(doc, "occurrences", 5))
    assert path.read_bytes() == original.replace(b"occurrences: 4  #", b"occurrences: 5  #", 1)


def test_remove_field_takes_its_whole_block_and_nothing_else(tmp_path: Path) -> None:
    text = (
        "---\nid: a\nbogus:\n  - one\n  - two\n\n# keep this comment\noccurrences: 1\n"
        "date: 2026-01-01\n---\nbody\n"
    )
    doc = docs.parse_document(text, tmp_path / "x.md")
    assert docs.remove_field(doc, "bogus") == text.replace("bogus:\n  - one\n  - two\n", "")


def test_replace_block_and_insert_use_the_files_newline(tmp_path: Path) -> None:
    text = "---\r\nid: a\r\ncurve: {type: Flat, suppression: 3}\r\nx-note: hi\r\n---\r\n"
    doc = docs.parse_document(text, tmp_path / "x.md")
    new = docs.replace_block(doc, "curve", ["curve:", "  type: Exponential", "  half_life: 9"])
    assert new == text.replace(
        "curve: {type: Flat, suppression: 3}\r\n",
        "curve:\r\n  type: Exponential\r\n  half_life: 9\r\n",
    )
    doc = docs.parse_document(text, tmp_path / "x.md")
    assert docs.set_field(doc, "last_seen", "2026-11-30") == text.replace(
        "x-note: hi\r\n---", "x-note: hi\r\nlast_seen: '2026-11-30'\r\n---"
    )


@pytest.mark.parametrize(
    ("text", "line", "message"),
    [
        ("no frontmatter\n", 1, "must start with a '---' line"),
        ("---\nid: a\n", 1, "not closed"),
        ("---\nid: a\noccurrences: [1\n---\n", 4, "invalid YAML"),
        ("---\n- a\n- b\n---\n", 2, "must be a mapping"),
        ("---\nid: a\nid: b\n---\n", 3, "duplicate field 'id'"),
    ],
)
def test_malformed_documents_name_file_and_line(
    tmp_path: Path, text: str, line: int, message: str
) -> None:
    path = _write(tmp_path, text.encode())
    with pytest.raises(DocumentError) as err:
        docs.read_document(path)
    assert str(err.value).startswith(f"{path}:{line}: error: ")
    assert message in str(err.value)


@pytest.mark.parametrize(
    ("text", "line", "message"),
    [
        (
            "---\nid: a\ndate: 2026-02-30\n---\n",
            3,
            "date: '2026-02-30' is not a calendar date (day is out of range for month)",
        ),
        ("---\nid: a\ndate: 2026-13-01  # a comment\n---\n", 3, "date: '2026-13-01'"),
        ("---\nid: a\ndate: 0000-01-01\n---\n", 3, "year 0 is out of range"),
        (
            "---\nid: a\ncitations:\n  - a.py\n  - 2026-04-31\n---\n",
            5,
            "citations: '2026-04-31' is not a calendar date",
        ),
        ("---\nid: a\nat: 2026-01-01T10:00:00+99:00\n---\n", 3, "at: '2026-01-01T10:00"),
        ("---\nid: a\noccurrences: !!int many\n---\n", 3, "occurrences: 'many' is not"),
        ("---\nid: a\nwhen: !!timestamp soon\n---\n", 3, "when: 'soon' is not a calendar"),
    ],
)
def test_a_value_yaml_cannot_build_is_an_error_on_its_line(
    tmp_path: Path, text: str, line: int, message: str
) -> None:
    """If YAML reads a value as a date (or a tagged type) it cannot build, then the document
    is refused on that value's line, naming the key: never a bare ValueError."""
    path = _write(tmp_path, text.encode())
    with pytest.raises(DocumentError) as err:
        docs.read_document(path)
    assert str(err.value).startswith(f"{path}:{line}: error: ")
    assert message in str(err.value)


def test_schema_errors_each_carry_their_line(tmp_path: Path) -> None:
    path = _write(
        tmp_path,
        b"---\nid: a\noccurrences: 0\nredisclose: 5\nunknown: 1\nx-free: ok\n---\n",
    )
    doc = docs.read_document(path)
    _, problems = docs.check(doc, SCHEMA)
    rendered = sorted(str(p) for p in problems)
    assert rendered == [
        f"{path}:1: error: missing required field 'date'",
        f"{path}:3: error: occurrences: expected an integer >= 1, got 0",
        f"{path}:4: error: redisclose is retired: run `gfh ways migrate`",
        f"{path}:5: error: unknown field 'unknown' in pill (known: id, occurrences, date, "
        "citations; free-form fields start with 'x-')",
    ]


def test_not_utf8_is_a_clear_error(tmp_path: Path) -> None:
    path = _write(tmp_path, b"---\nid: \xff\n---\n")
    with pytest.raises(DocumentError, match="not UTF-8"):
        docs.read_document(path)


def test_render_and_create_round_trip(tmp_path: Path) -> None:
    path = tmp_path / "new.md"
    docs.create(path, {"id": "a", "occurrences": 1, "date": "2026-11-30"}, "# Body\n")
    _, values = docs.load(path, SCHEMA)
    assert values["occurrences"] == 1
    with pytest.raises(FileExistsGfhError, match="already exists"):
        docs.create(path, {"id": "b"}, "")
    assert "id: a" in path.read_text()


def test_two_exclusive_creates_of_one_path_one_wins(tmp_path: Path) -> None:
    target = tmp_path / "request.md"
    barrier = threading.Barrier(2)
    results: list[str] = []

    def attempt(payload: str) -> None:
        barrier.wait()
        try:
            create_exclusive(target, payload)
            results.append("ok")
        except FileExistsGfhError as exc:
            results.append(str(exc))

    threads = [threading.Thread(target=attempt, args=(p,)) for p in ("first", "second")]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert results.count("ok") == 1
    [refusal] = [r for r in results if r != "ok"]
    assert refusal == f"{target}: already exists; refusing to overwrite it"
    assert target.read_text() in {"first", "second"}
    assert [p.name for p in tmp_path.iterdir()] == ["request.md"]  # no temp files left


def test_set_field_on_an_empty_value_writes_valid_yaml(tmp_path: Path) -> None:
    text = "---\nid: a\nlast_seen:\nnext: 1\n---\nbody\n"
    doc = docs.parse_document(text, tmp_path / "x.md")
    new = docs.set_field(doc, "last_seen", "2026-01-02")
    assert new == text.replace("last_seen:\n", "last_seen: '2026-01-02'\n")
    assert docs.parse_document(new, tmp_path / "x.md").meta["last_seen"] == "2026-01-02"


def test_set_field_on_an_empty_value_keeps_its_comment(tmp_path: Path) -> None:
    text = "---\nid: a\nlast_seen:   # when it came back\n---\n"
    doc = docs.parse_document(text, tmp_path / "x.md")
    assert docs.set_field(doc, "last_seen", 3) == text.replace(
        "last_seen:   # when it came back", "last_seen: 3   # when it came back"
    )


def _alias_chain(levels: int, width: int) -> str:
    """YAML whose last key expands to `width ** levels` values through a chain of aliases."""
    lines = ["l0: &l0 [" + ", ".join(["x"] * width) + "]"]
    for level in range(1, levels):
        lines.append(f"l{level}: &l{level} [" + ", ".join([f"*l{level - 1}"] * width) + "]")
    return "\n".join(lines) + "\n"


def test_alias_bomb_is_refused_naming_the_file(tmp_path: Path) -> None:
    """If a frontmatter chains aliases nine deep, then it is refused, one problem on the line
    of the alias that passed the count, before anything walks the billions of values."""
    path = _write(tmp_path, f"---\nid: x\n{_alias_chain(9, 9)}---\n".encode())
    with pytest.raises(DocumentError) as info:
        docs.read_document(path)
    assert len(info.value.problems) == 1
    assert str(info.value).startswith(f"{path}:")
    assert "more than 32 aliases" in str(info.value)


def test_few_aliases_that_expand_too_far_are_refused(tmp_path: Path) -> None:
    """If a handful of aliases double a long list level by level, the expanded size refuses it."""
    base = "l0: &l0 [" + ", ".join(["x"] * 2000) + "]\n"
    rest = "".join(f"l{i}: &l{i} [*l{i - 1}, *l{i - 1}]\n" for i in range(1, 5))
    path = _write(tmp_path, f"---\n{base}{rest}---\n".encode())
    with pytest.raises(DocumentError, match="expand to more than 10000 values"):
        docs.read_document(path)


def test_a_few_plain_aliases_still_parse(tmp_path: Path) -> None:
    path = _write(tmp_path, b"---\nid: &who shared-x\nowner: *who\n---\n")
    assert docs.read_document(path).meta == {"id": "shared-x", "owner": "shared-x"}


def test_a_file_over_the_size_limit_is_refused_unread(tmp_path: Path) -> None:
    path = _write(tmp_path, b"---\nid: x\n---\n" + b"a" * docs.MAX_DOCUMENT_BYTES)
    with pytest.raises(DocumentError, match="larger than 512 KiB") as info:
        docs.read_document(path)
    assert str(info.value).startswith(str(path))


@pytest.mark.parametrize("depth", [150, 20000])
def test_values_nested_too_deep_are_refused_not_a_crash(tmp_path: Path, depth: int) -> None:
    path = _write(tmp_path, ("---\nid: [" + "[" * depth + "]" * depth + "]\n---\n").encode())
    with pytest.raises(DocumentError, match="values nested too deep; flatten them"):
        docs.read_document(path)


@pytest.mark.parametrize(
    "text",
    [
        "---\nid: a\nlist: [1, 'b', {c: d}]\nblock:\n  - x  # note\n  - é\n---\nbody\n",
        "---\r\nid: a\r\nwhen:\r\n  files: ['*.py']\r\n---\r\nbody\r\n",
        "---\nid: a\ntext: |\n  one\n  two\n\n# trailing comment\nlast: 2026-01-02\n---\n",
    ],
)
def test_libyaml_and_the_pure_python_loader_read_a_document_alike(
    tmp_path: Path, text: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """If PyYAML has libyaml, then a plain frontmatter is read by it, with the same values and
    the same spans (line surgery's offsets) as the pure-Python loader gives."""
    monkeypatch.setattr(docs.plainyaml, "read", lambda text: None)  # the loaders, not it
    assert docs._fast(text.split("---", 2)[1].lstrip("\r\n")) is not None
    fast = docs.parse_document(text, tmp_path / "x.md")
    monkeypatch.setattr(docs, "_CLoader", None)
    slow = docs.parse_document(text, tmp_path / "x.md")
    assert (fast.meta, fast.spans) == (slow.meta, slow.spans)


@pytest.mark.parametrize(
    "fm",
    ["a: &x 1\nb: *x\n", "a: [" + "[" * 120 + "]" * 120 + "]\n", "a: [1\n", "a: !!int many\n"],
)
def test_aliases_bounds_and_errors_are_left_to_the_pure_python_loader(fm: str) -> None:
    assert docs._fast(fm) is None


def test_without_libyaml_documents_still_parse(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(docs, "_CLoader", None)
    assert docs._fast("a: 1\n") is None
    assert docs.parse_document("---\na: 1\n---\n", tmp_path / "x.md").meta == {"a": 1}
    assert docs.load_yaml("a: [1]\n", "x.yaml") == {"a": [1]}
