"""Matching a way's lanes against one hook call: pure functions returning the magnitude.

The magnitude of a match is the number of lanes that matched; the ActionPotential curve lets
a stronger match through a burst. Patterns are compiled once per process and kept here, not
in `re`'s own cache, which 500 ways would churn.
"""

from __future__ import annotations

import re

from gitflow_harness.ways.model import Way

TYPE_CHECKING = False  # see firing/curves.py: no `typing` import at run time
if TYPE_CHECKING:
    from collections.abc import Iterable

_COMPILED: dict[tuple[str, int], re.Pattern[str]] = {}


def compiled(pattern: str, flags: int = 0) -> re.Pattern[str]:
    """Return `pattern` compiled with `flags`, from the process-wide cache."""
    key = (pattern, flags)
    found = _COMPILED.get(key)
    if found is None:
        found = _COMPILED[key] = re.compile(pattern, flags)
    return found


def keywords_pattern(keywords: Iterable[str]) -> str:
    """Return a regex matching any keyword as a whole word (or phrase), case-insensitively."""
    words = sorted({k.strip() for k in keywords if k.strip()}, key=lambda k: (-len(k), k))
    alternation = "|".join(r"\s+".join(re.escape(part) for part in w.split()) for w in words)
    return rf"(?<!\w)(?:{alternation})(?!\w)"


def glob_pattern(glob: str) -> str:
    """Translate a files glob into a regex over repo-relative `/`-separated paths.

    `*` and `?` stay within one path segment, `**` crosses segments (`**/` also matches none),
    `[...]` is a character class (`[!...]` negated). A glob without a `/` matches a file name at
    any depth (`*.py`); a leading `/` anchors at the repository root; a trailing `/` matches
    everything below that directory.
    """
    anchored = glob.startswith("/")
    body = glob.lstrip("/")
    if body.endswith("/"):
        body += "**"
    out: list[str] = []
    i, n = 0, len(body)
    while i < n:
        c = body[i]
        if body.startswith("**/", i):
            out.append("(?:.*/)?")
            i += 3
        elif body.startswith("**", i):
            out.append(".*")
            i += 2
        elif c == "*":
            out.append("[^/]*")
            i += 1
        elif c == "?":
            out.append("[^/]")
            i += 1
        elif c == "[":
            close = body.find("]", i + 2 if body[i + 1 : i + 2] in ("!", "]") else i + 1)
            if close < 0:
                out.append(re.escape(c))
                i += 1
                continue
            inner = body[i + 1 : close]
            if inner.startswith("!"):
                inner = "^" + inner[1:]
            out.append("[" + inner.replace("\\", "\\\\") + "]")
            i = close + 1
        else:
            out.append(re.escape(c))
            i += 1
    prefix = "" if anchored or "/" in body.rstrip("*") else "(?:.*/)?"
    return "\\A" + prefix + "".join(out) + "\\Z"


def prompt_lane(way: Way, prompt: str) -> int:
    """Return 1 when the way's `prompt` regex matches the prompt (case-insensitive), else 0."""
    pattern = way.lanes.prompt
    if not pattern:
        return 0
    return 1 if compiled(pattern, re.IGNORECASE).search(prompt) else 0


def keywords_lane(way: Way, prompt: str) -> int:
    """Return 1 when any of the way's keywords appears in the prompt as a word, else 0."""
    if not way.lanes.keywords:
        return 0
    pattern = compiled(keywords_pattern(way.lanes.keywords), re.IGNORECASE)
    return 1 if pattern.search(prompt) else 0


def files_lane(way: Way, paths: Iterable[str]) -> int:
    """Return 1 when any repo-relative path matches any of the way's globs, else 0."""
    if not way.lanes.files:
        return 0
    patterns = [compiled(glob_pattern(g)) for g in way.lanes.files]
    for path in paths:
        rel = path.replace("\\", "/").removeprefix("./")
        if any(p.match(rel) for p in patterns):
            return 1
    return 0


def commands_lane(way: Way, command: str) -> int:
    """Return 1 when the way's `commands` regex is found in the shell command, else 0."""
    pattern = way.lanes.commands
    if not pattern:
        return 0
    return 1 if compiled(pattern).search(command) else 0


def session_start_lane(way: Way) -> int:
    """Return 1 for a way that asks to fire at session start, else 0."""
    return 1 if way.lanes.session_start else 0


def prompt_magnitude(way: Way, prompt: str) -> int:
    """Return how many of the prompt lanes (`prompt`, `keywords`) match a user prompt."""
    return prompt_lane(way, prompt) + keywords_lane(way, prompt)


def magnitude(
    way: Way,
    *,
    prompt: str | None = None,
    files: Iterable[str] = (),
    command: str | None = None,
    session_start: bool = False,
) -> int:
    """Return the number of the way's lanes that match what one hook call carries."""
    total = 0
    if prompt is not None:
        total += prompt_magnitude(way, prompt)
    total += files_lane(way, files)
    if command is not None:
        total += commands_lane(way, command)
    if session_start:
        total += session_start_lane(way)
    return total


def repo_relative(path: str, top: str) -> str | None:
    """Return `path` (absolute, or relative to `top`) relative to the worktree `top`.

    None when it lies outside: a tool that touched another tree matches no files lane.
    """
    import os.path

    full = os.path.normpath(os.path.join(top, path))
    root = os.path.normpath(top)
    if full == root or not full.startswith(root.rstrip(os.sep) + os.sep):
        return None
    return full[len(root.rstrip(os.sep)) + 1 :].replace(os.sep, "/")
