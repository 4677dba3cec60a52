#!/bin/sh
# Asks the way to fire when the file an edit just touched has grown past 500 lines.
# stdin: the hook payload (JSON). Exit 0 = fire (through the way's curve); anything else = quiet.
# For macro.sh it leaves in $GFH_WAY_STATE the line count and a SHA-256 of the file's path,
# never the path: a hand-off holds no payload text. The macro reads the path from its own
# payload and names the file only when the hash says it is the same one.
exec "${PYTHON:-python3}" -c '
import hashlib, json, os, sys

LIMIT = 500
SOURCE = (".py", ".pyi", ".md", ".sh", ".js", ".ts", ".go", ".rs", ".rb", ".java")
try:
    payload = json.load(sys.stdin)
except ValueError:
    sys.exit(1)
if not isinstance(payload, dict):
    sys.exit(1)
tool_input = payload.get("tool_input")
tool_input = tool_input if isinstance(tool_input, dict) else {}
path = tool_input.get("file_path") or payload.get("file_path")
cwd = payload.get("cwd") or os.getcwd()
if not isinstance(path, str) or not path or not isinstance(cwd, str):
    sys.exit(1)
full = os.path.join(cwd, path)
if not full.endswith(SOURCE) or not os.path.isfile(full):
    sys.exit(1)
with open(full, "rb") as fh:
    lines = fh.read().count(b"\n")
if lines <= LIMIT:
    sys.exit(1)
state = os.environ.get("GFH_WAY_STATE")
if state and os.path.isdir(state):
    digest = hashlib.sha256(os.path.relpath(full, cwd).encode()).hexdigest()
    with open(os.path.join(state, "long-file"), "w") as out:
        out.write(f"{digest}\t{lines}\n")
'
