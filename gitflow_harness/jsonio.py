"""`json.loads` and `json.dumps` through the interpreter's own C accelerator, without `json`.

Importing the `json` package costs 1.5 to 2 ms (its decoder and encoder compile six regular
expressions at import), about a tenth of what a hook call adds to the interpreter's start; the
C module both use, `_json`, costs 0.25 ms. `loads` and `dumps` drive that module as `json`
does, so they give what `json.loads` and `json.dumps` give for the arguments they take (the
tests compare them on generated values), and raise `json`'s own errors: `json` is imported only
when there is one to raise. Where `_json` is missing (an interpreter other than CPython), they
are `json`'s.
"""

from __future__ import annotations

TYPE_CHECKING = False  # not `typing`'s: the hook imports this
if TYPE_CHECKING:
    from typing import Any, NoReturn

_SPACE = " \t\n\r"  # what `json` skips around a document
_CONSTANTS = {"-Infinity": float("-inf"), "Infinity": float("inf"), "NaN": float("nan")}
# The first bytes of a document `json.loads` would decode as other than plain UTF-8: a byte
# order mark, or a NUL of UTF-16 or UTF-32.
_NOT_PLAIN_UTF8 = (b"\xef", b"\xfe", b"\xff", b"\x00")


class _Decoding:
    """What `_json.make_scanner` reads off a `json.JSONDecoder`: its defaults."""

    strict = True
    object_hook = None
    object_pairs_hook = None
    parse_float = float
    parse_int = int
    parse_constant = _CONSTANTS.__getitem__


try:
    from _json import encode_basestring, encode_basestring_ascii, make_encoder, make_scanner
except ImportError:  # pragma: no cover - CPython has it
    _scan = None
else:
    _scan = make_scanner(_Decoding())  # type: ignore[arg-type]  # a decoder's attributes do


def loads(data: bytes | str) -> Any:
    """`json.loads(data)`."""
    if _scan is None:  # pragma: no cover - CPython has it
        import json

        return json.loads(data)
    if isinstance(data, str):
        if data.startswith("\ufeff"):
            _fail("Unexpected UTF-8 BOM (decode using utf-8-sig)", data, 0)
        text = data
    elif data[:1] in _NOT_PLAIN_UTF8 or data[1:2] == b"\x00":
        import json

        return json.loads(data)
    else:
        text = data.decode("utf-8", "surrogatepass")
    start = len(text) - len(text.lstrip(_SPACE))
    try:
        obj, end = _scan(text, start)
    except StopIteration as err:
        _fail("Expecting value", text, err.value)
    except SystemError:
        # The scanner raises its errors as `json.decoder.JSONDecodeError`, which it looks up in
        # `sys.modules` alone: without `json` loaded it fails without saying why. Load it and
        # scan again, for `json`'s own error (an error, so off the paths that must be quick).
        import json.decoder

        obj, end = _scan(text, start)
    rest = text[end:]
    if rest and rest.lstrip(_SPACE):
        _fail("Extra data", text, len(text) - len(rest.lstrip(_SPACE)))
    return obj


def dumps(
    obj: object,
    *,
    ensure_ascii: bool = True,
    separators: tuple[str, str] | None = None,
    sort_keys: bool = False,
) -> str:
    """`json.dumps(obj, ensure_ascii=…, separators=…, sort_keys=…)`."""
    if _scan is None:  # pragma: no cover - CPython has it
        import json

        return json.dumps(
            obj, ensure_ascii=ensure_ascii, separators=separators, sort_keys=sort_keys
        )
    quote = encode_basestring_ascii if ensure_ascii else encode_basestring
    if isinstance(obj, str):
        return quote(obj)
    items, key = separators if separators is not None else (", ", ": ")
    encode = make_encoder({}, _unencodable, quote, None, key, items, sort_keys, False, True)
    return "".join(encode(obj, 0))


def _unencodable(obj: object) -> object:
    raise TypeError(f"Object of type {obj.__class__.__name__} is not JSON serializable")


def _fail(message: str, text: str, at: int) -> NoReturn:
    from json import JSONDecodeError

    raise JSONDecodeError(message, text, at) from None
