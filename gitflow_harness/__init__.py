"""gitflow-harness: a git-native harness for coding agents."""

from __future__ import annotations

TYPE_CHECKING = False  # not `typing`'s: every process imports this
if TYPE_CHECKING:
    from types import MappingProxyType as MappingProxyType
    from types import ModuleType
else:
    # `types.MappingProxyType` (defined there the same way), without importing `types`: 1.4M
    # instructions at a session's start and in `gfh status`, for the read-only tables they hold.
    MappingProxyType = type(type.__dict__)

# A literal on purpose: reading it through importlib.metadata costs ~50 ms per start.
__version__ = "0.1.0"


def import_module(name: str) -> ModuleType:
    """`importlib.import_module` of an absolute name, without `importlib`: 2M instructions to
    import where no editable-install finder has loaded it (a user's install), on every hook."""
    import sys

    __import__(name)
    return sys.modules[name]
