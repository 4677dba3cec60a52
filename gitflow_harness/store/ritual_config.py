"""The `[ritual]` table's record, apart from the rest of the configuration's schema.

Every Stop builds one from the hook's cached plain data (`ritual.hook.ritual_config`), and the
configuration's module declares its whole schema when imported: a regular expression, every
table's fields and records, the curves' limits. This module is all a Stop needs of it.
`store.config` builds the same record from `.gitflow-harness.toml` and names it there too.
"""

from __future__ import annotations

TYPE_CHECKING = False  # `typing` costs ~2 ms per hook call; mypy reads the name
if TYPE_CHECKING:
    from typing import NamedTuple
else:
    from gitflow_harness.records import NamedTuple


class RitualConfig(NamedTuple):
    enforce: tuple[str, ...]
    require_status: bool
    require_box: bool
    require_task: bool
    # Defaults here too: a record built by hand (tests, the hook's plain data) may omit them.
    max_blocks: int = 3
    chat_turns: str = "free"
