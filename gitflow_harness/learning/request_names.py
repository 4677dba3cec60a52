"""The file names of graduation requests: `<YYYY-MM-DD>-<name>[-again[-N]].md`, and whether a
pill's name can become one.

Apart from `requests.py`, whose schema and rules `gfh pills check` does not need: it asks only
whether each pill's name fits.
"""

from __future__ import annotations

# Not `typing.TYPE_CHECKING`: `gfh pills check` does not import typing (mypy reads the name).
TYPE_CHECKING = False
if TYPE_CHECKING:
    import datetime as dt
    from typing import Final


def file_name(pill_key: str) -> str:
    """Return the request name of a pill key: `/` becomes `__`."""
    return pill_key.replace("/", "__")


def request_id(day: dt.date | str, pill_key: str, again: int) -> str:
    """Return the id of a request of `pill_key` filed on `day`: plain, -again, -again-2, …"""
    base = f"{day if isinstance(day, str) else day.isoformat()}-{file_name(pill_key)}"
    if again == 0:
        return base
    return f"{base}-again" if again == 1 else f"{base}-again-{again}"


MAX_AGAIN: Final = 1000  # names tried for one pill on one day: plain, -again … -again-999
NAME_MAX: Final = 255  # bytes in one file name on the common file systems


def name_problem(pill_key: str) -> str | None:
    """Say why a request of `pill_key` could not be given a file name, or None when the
    longest name filing may try (`<date>-<name>-again-999.md`) fits in `NAME_MAX` bytes."""
    longest = f"{request_id('YYYY-MM-DD', pill_key, MAX_AGAIN - 1)}.md"
    size = len(longest.encode("utf-8"))
    if size <= NAME_MAX:
        return None
    return (
        f"the name is too long to become a request file (`{REQUESTS_NAME}` would take up to "
        f"{size} bytes, over the {NAME_MAX} a file name may have): shorten the slug by "
        f"{size - NAME_MAX} bytes"
    )


REQUESTS_NAME = "requests/<YYYY-MM-DD>-<name>-again-N.md"
