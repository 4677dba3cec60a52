"""The session a command learns from its environment, and what a plain id is.

`GFH_SESSION` first: the SessionStart hook puts it into the agent's environment where the host
lets it. Else the host's own variables, which the hosts export to every command they run
(Claude Code 2.1.332, Codex 0.171.0; docs/hooks.md). Imports nothing: the hook path uses it.
"""

from __future__ import annotations

# Not `typing.TYPE_CHECKING`: importing typing costs ~2 ms per hook call (mypy reads the name).
TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Mapping

VARIABLE = "GFH_SESSION"
# The hosts' own variables, in the order they are read, with the adapter each one names.
HOST_VARIABLES = (
    ("CLAUDE_CODE_SESSION_ID", "claude"),
    ("CODEX_SESSION_ID", "codex"),
    ("CODEX_THREAD_ID", "codex"),
)

# Ids and names that may be written (session ids, tool names, agent types): one token of safe
# characters. Anything else is treated as absent, so payload text can never ride in on a name.
NAME_CHARS = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_.:/@+-"
MAX_NAME = 128


def name_or_none(value: object) -> str | None:
    """Return `value` if it is a safe id or name, else None."""
    if (
        isinstance(value, str)
        and 0 < len(value) <= MAX_NAME
        and value[0].isascii()
        and value[0].isalnum()
        and not value.strip(NAME_CHARS)  # every character is one of them
    ):
        return value
    return None


def session_from_env(environ: Mapping[str, str] | None = None) -> str | None:
    """Return the agent session `<adapter>:<id>` the environment names, or None.

    A host variable that is not a plain id is ignored: it would be written to the log.
    """
    import os

    env = os.environ if environ is None else environ
    own = env.get(VARIABLE)
    if own:
        return own
    for name, adapter in HOST_VARIABLES:
        ident = name_or_none(env.get(name))
        if ident is not None:
            return f"{adapter}:{ident}"
    return None


def host_variables(adapter: str) -> tuple[str, ...]:
    """The variables a host exports to the agent's commands, in the order they are read."""
    return tuple(name for name, named in HOST_VARIABLES if named == adapter)


def host_session_id(environ: Mapping[str, str], *names: str) -> str | None:
    """Return the first of the host variables `names` that holds a plain id, or None."""
    for name in names:
        ident = name_or_none(environ.get(name))
        if ident is not None:
            return ident
    return None


def missing_session(environ: Mapping[str, str] | None = None) -> str:
    """Say what the environment lacks for a session, naming every variable that was read."""
    import os

    env = os.environ if environ is None else environ
    unusable = [name for name, _ in HOST_VARIABLES if env.get(name)]
    names = [VARIABLE, *(name for name, _ in HOST_VARIABLES)]
    text = "no $" + ", $".join(names[:-1]) + " or $" + names[-1]
    if unusable:
        text += " holding a plain id ($" + ", $".join(unusable) + " is not one)"
    return text
