"""Markdown files with YAML frontmatter: parse against a declared schema, edit by line surgery.

Parsing tolerates a BOM, CRLF line ends and YAML comments, and reports every problem as
`path:line: message`. It is bounded: a file over `MAX_DOCUMENT_BYTES`, more than `MAX_ALIASES`
aliases, or aliases that expand past `MAX_EXPANDED_NODES` values are refused before anything
walks the data (an alias chain of a few lines expands to billions of values).
Edits change the characters they must (a value, a key's block) and leave every other byte of
the file, its newline style and its BOM, as it was.
"""

from __future__ import annotations

from gitflow_harness.errors import GfhError
from gitflow_harness.records import NamedTuple
from gitflow_harness.store import frontmatter, plainyaml
from gitflow_harness.store.fsutil import TooLarge, atomic_write, create_exclusive, read_bounded
from gitflow_harness.store.schema import Problem, Schema

# PyYAML is imported where a frontmatter is not of the plain shapes `plainyaml` reads (and for
# edits): loading 500 plain ways reads no YAML at all. No `typing` or `dataclasses` either.
TYPE_CHECKING = False
if TYPE_CHECKING:
    from pathlib import Path
    from types import EllipsisType
    from typing import Any

    import yaml

BOM = "\ufeff"
MAX_DOCUMENT_BYTES = frontmatter.MAX_DOCUMENT_BYTES
MAX_ALIASES = 32
MAX_EXPANDED_NODES = 10_000


class DocumentError(GfhError):
    """A document that cannot be used; carries every problem found."""

    def __init__(self, problems: list[Problem]) -> None:
        self.problems = problems
        more = f" (and {len(problems) - 1} more)" if len(problems) > 1 else ""
        super().__init__(f"{problems[0]}{more}")


class Span(NamedTuple):
    """Character offsets [start, end) of a key's line(s), and of its value, in `Document.text`."""

    line: int  # 1-based line of the key
    block_start: int
    block_end: int
    value_start: int
    value_end: int
    one_line: bool  # the value sits on the key's line


class Document(NamedTuple):
    """A parsed markdown-with-frontmatter file."""

    path: Path | str  # as the caller named it (the ways index: a `str`, 28,000 instructions less)
    text: str  # the file's text without its BOM
    bom: bool
    newline: str
    meta: dict[str, Any]
    spans: dict[str, Span]
    frontmatter_line: int  # 1-based line of the opening `---`
    body: str
    body_line: int

    def line_of(self, key: str) -> int:
        """Return the 1-based line of a top-level key, or of the opening `---`."""
        span = self.spans.get(key)
        return span.line if span else self.frontmatter_line


def read_text(path: Path | str, data: bytes | None = None) -> tuple[str, bool]:
    """Read a UTF-8 file; return its text without BOM and whether it had one.

    `data` is the file's bytes when the caller has read them already (the ways index hashes
    them first), so what is parsed is what was hashed."""
    try:
        if data is None:
            data = read_bounded(path, MAX_DOCUMENT_BYTES)
        elif len(data) > MAX_DOCUMENT_BYTES:
            raise TooLarge(f"{path}: larger than {MAX_DOCUMENT_BYTES} bytes")
    except TooLarge:
        raise DocumentError(
            [
                Problem(
                    str(path),
                    None,
                    "error",
                    f"larger than {MAX_DOCUMENT_BYTES // 1024} KiB; a document is a page of "
                    "prose: shorten it",
                )
            ]
        ) from None
    except OSError as exc:
        raise DocumentError(
            [Problem(str(path), None, "error", f"cannot read it: {exc.strerror or exc}")]
        ) from None
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise DocumentError(
            [Problem(str(path), None, "error", f"not UTF-8 text ({exc.reason}); save it as UTF-8")]
        ) from None
    if text.startswith(BOM):
        return text[1:], True
    return text, False


def read_document(path: Path | str, data: bytes | None = None) -> Document:
    """Read and parse `path` (or its bytes, `data`); raise DocumentError when it has no usable
    frontmatter."""
    text, bom = read_text(path, data)
    return parse_document(text, path, bom=bom)


def parse_document(text: str, path: Path | str, *, bom: bool = False) -> Document:
    """Parse frontmatter text (without BOM); raise DocumentError on malformed YAML."""
    where = str(path)
    first = text.find("\n")
    head = text if first < 0 else text[:first]
    if not frontmatter.opens(head):
        raise DocumentError(
            [Problem(where, 1, "error", "no frontmatter: the file must start with a '---' line")]
        )
    fm_offset = len(head) + 1  # character index where the YAML starts
    found = frontmatter.closing(text, fm_offset) if first >= 0 else None
    if found is None:
        raise DocumentError(
            [Problem(where, 1, "error", "frontmatter is not closed: add a '---' line after it")]
        )
    close, body_start = found
    fm_text = text[fm_offset:close] or "\n"  # each of its lines ends with a newline
    meta, spans = _parse_yaml(fm_text, where, fm_offset, first_line=2)
    return Document(
        path=path,
        text=text,
        bom=bom,
        newline="\r\n" if head.endswith("\r") else "\n",
        meta=meta,
        spans=spans,
        frontmatter_line=1,
        body=text[body_start:],
        body_line=text.count("\n", 0, close) + 2,
    )


def load(path: Path, schema: Schema) -> tuple[Document, dict[str, Any]]:
    """Parse `path` and check it against `schema`; raise DocumentError listing every error."""
    doc = read_document(path)
    values, problems = check(doc, schema)
    errors = [p for p in problems if p.severity == "error"]
    if errors:
        raise DocumentError(errors)
    return doc, values


def check(doc: Document, schema: Schema) -> tuple[dict[str, Any], list[Problem]]:
    """Check a parsed document against `schema`."""
    lines = {k: s.line for k, s in doc.spans.items()}
    return schema.check(
        doc.meta, path=str(doc.path), lines=lines, default_line=doc.frontmatter_line
    )


_LOADER: list[type[yaml.SafeLoader]] = []  # the class below, made on first use


def _loader(text: str) -> yaml.SafeLoader:
    """Return the pure-Python loader of `text`, which says exactly where a document passes a
    bound or breaks: it counts aliases as it composes and refuses more than `MAX_ALIASES`."""
    if not _LOADER:
        import yaml

        class Loader(yaml.SafeLoader):
            aliases = 0

            def compose_node(self, parent: yaml.Node | None, index: int) -> yaml.Node | None:
                if self.check_event(yaml.AliasEvent):
                    self.aliases += 1
                    if self.aliases > MAX_ALIASES:
                        raise _Bounded(
                            self.peek_event().start_mark,  # type: ignore[no-untyped-call]
                            f"more than {MAX_ALIASES} aliases (`*name`); write the values out",
                        )
                return super().compose_node(parent, index)

        _LOADER.append(Loader)
    return _LOADER[0](text)


_TOO_DEEP = "values nested too deep; flatten them"
MAX_DEPTH = 100

# libyaml's parser and composer, when PyYAML was built with it: ten times the pure-Python
# loader's speed. Its marks are character offsets too, as line surgery needs. `...` until
# PyYAML is first needed.
_CLoader: type[yaml.CSafeLoader] | EllipsisType | None = ...


def _c_loader() -> type[yaml.CSafeLoader] | None:
    global _CLoader
    if _CLoader is ...:
        import yaml

        _CLoader = getattr(yaml, "CSafeLoader", None)
    return _CLoader


def _fast(text: str) -> tuple[Any, yaml.Node | None] | None:
    """Compose and build `text` with libyaml when it is plain: no alias, within the bounds, no
    error. None otherwise (or without libyaml): the pure-Python loader then gives its exact
    account, the bound passed and the line, as it always did."""
    c_loader = _c_loader()
    if c_loader is None:
        return None
    loader = c_loader(text)
    try:
        node = loader.get_single_node()
        if node is not None and not _plain(node):
            return None
        data = loader.construct_document(node) if node is not None else None
    except Exception:  # any error is the pure-Python loader's to report
        return None
    finally:
        loader.dispose()
    return data, node


def _plain(root: yaml.Node) -> bool:
    """True when the node graph is a tree (no alias reached a node twice) of at most
    `MAX_EXPANDED_NODES` values, nested at most `MAX_DEPTH` deep."""
    import yaml

    seen: set[int] = set()
    stack: list[tuple[yaml.Node, int]] = [(root, 0)]
    while stack:
        node, depth = stack.pop()
        if id(node) in seen or depth > MAX_DEPTH or len(seen) >= MAX_EXPANDED_NODES:
            return False
        seen.add(id(node))
        if isinstance(node, yaml.SequenceNode):
            stack.extend((child, depth + 1) for child in node.value)
        elif isinstance(node, yaml.MappingNode):
            stack.extend((child, depth + 1) for pair in node.value for child in pair)
    return True


class _Bounded(Exception):
    """A document past the loader's bounds, at a mark."""

    def __init__(self, mark: yaml.Mark | None, reason: str) -> None:
        super().__init__(reason)
        self.mark = mark
        self.reason = reason


def _check_expansion(root: yaml.Node) -> None:
    """Refuse a node graph whose aliases expand past `MAX_EXPANDED_NODES` values."""
    import yaml

    sizes: dict[int, int] = {}

    def size(node: yaml.Node, depth: int) -> int:
        known = sizes.get(id(node))
        if known is not None:
            return known
        if depth > MAX_DEPTH:
            raise _Bounded(node.start_mark, _TOO_DEEP + f" (more than {MAX_DEPTH} levels)")
        total = 1
        if isinstance(node, yaml.SequenceNode):
            children: list[yaml.Node] = list(node.value)
        elif isinstance(node, yaml.MappingNode):
            children = [n for pair in node.value for n in pair]
        else:
            children = []
        for child in children:
            total += size(child, depth + 1)
            if total > MAX_EXPANDED_NODES:
                raise _Bounded(
                    node.start_mark,
                    f"aliases expand to more than {MAX_EXPANDED_NODES} values; write the "
                    "values out",
                )
        sizes[id(node)] = total
        return total

    size(root, 0)


def load_yaml(text: str, where: str) -> Any:
    """Parse a whole YAML file (not a frontmatter) within the same bounds as documents: at most
    `MAX_ALIASES` aliases and `MAX_EXPANDED_NODES` values, else DocumentError naming `where`.
    Invalid YAML raises `yaml.YAMLError`, for the caller to report."""
    if len(text.encode("utf-8")) > MAX_DOCUMENT_BYTES:
        raise DocumentError(
            [Problem(where, None, "error", f"larger than {MAX_DOCUMENT_BYTES // 1024} KiB")]
        )
    fast = _fast(text)
    if fast is not None:
        return fast[0]
    loader = _loader(text)
    try:
        node = loader.get_single_node()
        if node is None:
            return None
        _check_expansion(node)
        return loader.construct_document(node)
    except _Bounded as exc:
        line = exc.mark.line + 1 if exc.mark is not None else None
        raise DocumentError([Problem(where, line, "error", exc.reason)]) from None
    except RecursionError:
        raise DocumentError([Problem(where, None, "error", _TOO_DEEP)]) from None
    finally:
        loader.dispose()


def _parse_yaml(
    fm_text: str, where: str, fm_offset: int, *, first_line: int
) -> tuple[dict[str, Any], dict[str, Span]]:
    plain = plainyaml.read(fm_text)
    if plain is None:
        loaded = _parse_yaml_loaded(fm_text, where, first_line)
        if loaded is None:
            return {}, {}
        plain = {str(k): v for k, v in loaded[0].items()}, loaded[1]
    data, entries = plain
    spans: dict[str, Span] = {}
    problems: list[Problem] = []
    for key, line0, key_index, value_start, value_end in entries:
        line = first_line + line0
        if key in spans:
            problems.append(Problem(where, line, "error", f"duplicate field {key!r}"))
            continue
        spans[key] = _span(fm_text, fm_offset, key_index, value_start, value_end, line)
    if problems:
        raise DocumentError(problems)
    return data, spans  # its keys are strings: the plain reader's always, YAML's made so above


def _parse_yaml_loaded(
    fm_text: str, where: str, first_line: int
) -> tuple[dict[str, Any], list[plainyaml.Entry]] | None:
    """Read a frontmatter with a YAML loader; return its mapping and its keys' offsets, as
    `plainyaml.read` does, or None when it is empty."""
    import yaml

    fast = _fast(fm_text)
    if fast is not None:
        data, node = fast
        if node is None:
            data = {}  # as the pure-Python path has it: no mapping, refused below
    else:
        data, node = _slow(fm_text, where, first_line)
    if data is None:
        return None
    if not isinstance(data, dict) or not isinstance(node, yaml.MappingNode):
        raise DocumentError(
            [
                Problem(
                    where,
                    first_line,
                    "error",
                    "frontmatter must be a mapping of `key: value` lines",
                )
            ]
        )
    entries = [
        (
            key_node.value,
            key_node.start_mark.line,
            key_node.start_mark.index,
            value_node.start_mark.index,
            value_node.end_mark.index,
        )
        for key_node, value_node in node.value
    ]
    return data, entries


def _slow(fm_text: str, where: str, first_line: int) -> tuple[Any, yaml.Node | None]:
    """Compose and build a frontmatter with the pure-Python loader, every problem on its line."""
    import yaml

    loader = _loader(fm_text)
    node: yaml.Node | None = None
    try:
        node = loader.get_single_node()
        if node is not None:
            _check_expansion(node)
        data = loader.construct_document(node) if node is not None else {}
    except _Bounded as exc:
        line = first_line + exc.mark.line if exc.mark is not None else first_line
        raise DocumentError([Problem(where, line, "error", exc.reason)]) from None
    except RecursionError:  # PyYAML composes nested collections recursively
        raise DocumentError([Problem(where, first_line, "error", _TOO_DEEP)]) from None
    except yaml.MarkedYAMLError as exc:
        mark = exc.problem_mark or exc.context_mark
        line = first_line + mark.line if mark is not None else first_line
        reason = exc.problem or exc.context or "invalid YAML"
        raise DocumentError([Problem(where, line, "error", f"invalid YAML: {reason}")]) from None
    except yaml.YAMLError as exc:
        raise DocumentError([Problem(where, first_line, "error", f"invalid YAML: {exc}")]) from None
    except _BUILD_ERRORS as exc:
        raise DocumentError([_unbuildable(node, where, first_line, exc)]) from None
    finally:
        loader.dispose()
    return data, node


# PyYAML's constructors raise plain Python errors, not YAMLError, for a value its resolver
# matched (or a tag named) but that cannot be built: `2026-02-30` is read as a timestamp and
# `datetime.date` refuses it; `!!int many`, `!!bool maybe`, `!!timestamp soon` likewise.
_BUILD_ERRORS = (ValueError, OverflowError, TypeError, AttributeError, LookupError)
_WHAT = {
    "tag:yaml.org,2002:timestamp": "a calendar date",
    "tag:yaml.org,2002:int": "an integer",
    "tag:yaml.org,2002:float": "a number",
    "tag:yaml.org,2002:bool": "true or false",
}


def _unbuildable(root: yaml.Node | None, where: str, first_line: int, exc: Exception) -> Problem:
    """Return the problem of the first scalar that cannot be built, on its line, by its key."""
    import yaml

    reason = str(exc) or type(exc).__name__
    entries = root.value if isinstance(root, yaml.MappingNode) else []
    for key_node, value_node in entries:
        for scalar in _scalars(key_node, value_node):
            failure = _build_failure(scalar)
            if failure is None:
                continue
            reason = failure
            what = _WHAT.get(scalar.tag, f"a {scalar.tag.rsplit(':', 1)[-1]}")
            return Problem(
                where,
                first_line + scalar.start_mark.line,
                "error",
                f"{key_node.value}: {scalar.value!r} is not {what} ({reason})",
            )
    return Problem(where, first_line, "error", f"a value cannot be read: {reason}")


def _build_failure(node: yaml.ScalarNode) -> str | None:
    """Return why `node` cannot be built, or None when it can."""
    import yaml

    builder = _loader("")
    try:
        builder.construct_object(node, deep=True)
    except _BUILD_ERRORS as exc:
        return str(exc) or type(exc).__name__
    except yaml.YAMLError:
        return None  # reported as invalid YAML where the whole document is built
    finally:
        builder.dispose()
    return None


def _scalars(*nodes: yaml.Node) -> list[yaml.ScalarNode]:
    """Return the scalar nodes under `nodes`, in document order."""
    import yaml

    out: list[yaml.ScalarNode] = []
    for node in nodes:
        if isinstance(node, yaml.ScalarNode):
            out.append(node)
        elif isinstance(node, yaml.SequenceNode):
            out.extend(_scalars(*node.value))
        elif isinstance(node, yaml.MappingNode):
            out.extend(_scalars(*(n for pair in node.value for n in pair)))
    return out


def _span(
    fm_text: str, offset: int, key_index: int, value_start: int, value_end: int, line: int
) -> Span:
    """Return a key's span from the offsets of its key and value (a YAML node's marks)."""
    block_start = fm_text.rfind("\n", 0, key_index) + 1
    one_line = "\n" not in fm_text[key_index:value_end]
    # The block runs to the end of the value's last line. A block collection's end mark sits at
    # the start of the next key, past any blank or comment lines: give those back.
    if value_end > 0 and fm_text[value_end - 1] == "\n":
        end = value_end
    else:
        newline_at = fm_text.find("\n", value_end)
        end = len(fm_text) if newline_at < 0 else newline_at + 1
    while end > block_start:
        prev_start = fm_text.rfind("\n", 0, end - 1) + 1
        if prev_start <= key_index:
            break
        last = fm_text[prev_start:end].strip()
        if last and not last.startswith("#"):
            break
        end = prev_start
    if not one_line:
        value_end = min(value_end, end)
    return Span(
        line=line,
        block_start=offset + block_start,
        block_end=offset + end,
        value_start=offset + value_start,
        value_end=offset + value_end,
        one_line=one_line,
    )


# -- edits ---------------------------------------------------------------------------------


def yaml_scalar(value: Any) -> str:
    """Render one value as inline YAML (a flow collection for lists and mappings)."""
    import yaml

    rendered = yaml.safe_dump(
        value, default_flow_style=True, allow_unicode=True, width=10_000, sort_keys=False
    )
    rendered = rendered.strip()
    if rendered.endswith("\n...") or rendered.endswith("..."):
        rendered = rendered.removesuffix("...").rstrip()
    return rendered


def set_field(doc: Document, key: str, value: Any) -> str:
    """Return the text with `key`'s value replaced; a comment after the value is kept.

    A key that is missing is added as the last line of the frontmatter.
    """
    rendered = yaml_scalar(value)
    span = doc.spans.get(key)
    if span is None:
        return insert_lines(doc, [f"{key}: {rendered}"])
    if span.one_line and span.value_end > span.value_start:
        return doc.text[: span.value_start] + rendered + doc.text[span.value_end :]
    line = f"{key}: {rendered}"
    if span.one_line:
        # No value at all (`key:`): write one after the colon, keeping a comment that follows.
        rest = doc.text[span.block_start : span.block_end].rstrip("\r\n")
        after = rest[rest.find(":") + 1 :]
        if after.strip().startswith("#"):
            line += after
    # A value over several lines, or none at all: the whole key line is rewritten.
    return replace_block(doc, key, [line])


def remove_field(doc: Document, key: str) -> str:
    """Return the text without `key`'s lines."""
    span = doc.spans[key]
    return doc.text[: span.block_start] + doc.text[span.block_end :]


def replace_block(doc: Document, key: str, lines: list[str]) -> str:
    """Return the text with `key`'s whole block replaced by `lines` (joined in the file's style)."""
    span = doc.spans[key]
    new = "".join(line + doc.newline for line in lines)
    return doc.text[: span.block_start] + new + doc.text[span.block_end :]


def insert_lines(doc: Document, lines: list[str], *, after: str | None = None) -> str:
    """Return the text with `lines` added after `after`'s block, or at the frontmatter's end."""
    if after is not None and after in doc.spans:
        at = doc.spans[after].block_end
    else:
        # Just before the closing `---` line.
        at = _closing_index(doc)
    new = "".join(line + doc.newline for line in lines)
    return doc.text[:at] + new + doc.text[at:]


def _closing_index(doc: Document) -> int:
    body_start = len(doc.text) - len(doc.body)
    closing_start = doc.text.rfind("\n", 0, body_start - 1) + 1
    return closing_start


def write_text(path: Path, text: str, *, bom: bool = False) -> None:
    """Atomically replace `path` with `text` (its BOM restored when it had one)."""
    atomic_write(path, ((BOM if bom else "") + text).encode("utf-8"))


def save(doc: Document, text: str) -> None:
    """Atomically write an edited version of `doc`."""
    from pathlib import Path

    write_text(Path(doc.path), text, bom=doc.bom)


def render(meta: dict[str, Any], body: str) -> str:
    """Render a new document: YAML frontmatter in the given key order, then the body."""
    import frontmatter

    post = frontmatter.Post(body, **meta)
    return frontmatter.dumps(post, sort_keys=False) + "\n"


def create(path: Path, meta: dict[str, Any], body: str) -> None:
    """Create a new document; never over an existing file."""
    create_exclusive(path, render(meta, body))
