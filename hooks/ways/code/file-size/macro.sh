#!/bin/sh
# Names the file that grew too long (the postcheck's finding), ahead of the way's text.
[ -n "${GFH_WAY_STATE:-}" ] && [ -f "$GFH_WAY_STATE/long-file" ] || exit 0
tab=$(printf '\t')
IFS="$tab" read -r name lines < "$GFH_WAY_STATE/long-file" || exit 0
printf '`%s` now has %s lines.\n\n' "$name" "$lines"
