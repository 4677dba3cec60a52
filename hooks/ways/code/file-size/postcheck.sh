#!/bin/sh
# Asks the way to fire when the file an edit just touched has grown past 500 lines.
# stdin: the hook payload (JSON). Exit 0 = fire (through the way's curve); anything else = quiet.
# The finding (the file's name and line count) goes to $GFH_WAY_STATE for macro.sh.
limit=500
found=$("${PYTHON:-python3}" -c '
import json, os, sys
try:
    payload = json.load(sys.stdin)
except ValueError:
    sys.exit(1)
tool_input = payload.get("tool_input")
tool_input = tool_input if isinstance(tool_input, dict) else {}
path = tool_input.get("file_path") or payload.get("file_path") or ""
if not isinstance(path, str) or not path:
    sys.exit(1)
cwd = payload.get("cwd") or os.getcwd()
full = os.path.join(cwd, path)
source = (".py", ".pyi", ".md", ".sh", ".js", ".ts", ".go", ".rs", ".rb", ".java")
if not full.endswith(source) or not os.path.isfile(full):
    sys.exit(1)
print(os.path.relpath(full, cwd))
print(full)
') || exit 1
name=$(printf '%s\n' "$found" | sed -n 1p)
full=$(printf '%s\n' "$found" | sed -n 2p)
lines=$(wc -l < "$full") || exit 1
[ "$lines" -gt "$limit" ] || exit 1
if [ -n "${GFH_WAY_STATE:-}" ] && [ -d "$GFH_WAY_STATE" ]; then
    printf '%s\t%s\n' "$name" "$lines" > "$GFH_WAY_STATE/long-file"
fi
exit 0
