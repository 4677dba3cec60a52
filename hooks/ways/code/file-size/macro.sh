#!/bin/sh
# Names the file that grew too long, ahead of the way's text. The postcheck left only the line
# count and a hash of the path in $GFH_WAY_STATE; the path itself comes from this call's payload
# (stdin), named only when its hash matches. Its output goes to the agent, never to disk.
[ -n "${GFH_WAY_STATE:-}" ] && [ -f "$GFH_WAY_STATE/long-file" ] || exit 0
exec "${PYTHON:-python3}" -c '
import hashlib, json, os, sys

try:
    with open(os.path.join(os.environ["GFH_WAY_STATE"], "long-file")) as fh:
        digest, lines = fh.read().split()
except (OSError, ValueError):
    sys.exit(0)
try:
    payload = json.load(sys.stdin)
except ValueError:
    payload = None
name = None
if isinstance(payload, dict):
    tool_input = payload.get("tool_input")
    path = tool_input.get("file_path") if isinstance(tool_input, dict) else None
    path = path or payload.get("file_path")
    cwd = payload.get("cwd") or os.getcwd()
    if isinstance(path, str) and path and isinstance(cwd, str):
        candidate = os.path.relpath(os.path.join(cwd, path), cwd)
        if hashlib.sha256(candidate.encode()).hexdigest() == digest:
            name = candidate
if name is not None:
    print(f"`{name}` now has {lines} lines.\n")
else:
    print(f"A file you edited now has {lines} lines.\n")
'
