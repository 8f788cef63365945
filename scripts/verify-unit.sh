#!/bin/sh
# Checks a systemd unit with `systemd-analyze verify`, strictly: any warning fails.
#
# Usage: scripts/verify-unit.sh [UNIT] [BINARY]
#   UNIT    the unit file (default: config/segued.service next to this script)
#   BINARY  an existing executable to stand in for ExecStart's program (default: a built segued from
#           .build/release or .build/debug, else /bin/true)
#
# Why a copy: `verify` refuses a unit whose ExecStart program does not exist, and the unit names the
# installed path (/usr/local/bin/segued). The copy, in a temporary directory and under the same file
# name, differs only in that path. Why strict: `verify` exits 0 on unknown keys and unparsable values
# ("Unknown key 'ProtectHom'... ignoring"), which are exactly the mistakes worth catching.
set -eu

root=$(cd "$(dirname "$0")/.." && pwd)
unit=${1:-$root/config/segued.service}
binary=${2:-}
if [ -z "$binary" ]; then
    for candidate in "$root/.build/release/segued" "$root/.build/debug/segued" /bin/true; do
        if [ -x "$candidate" ]; then binary=$candidate; break; fi
    done
fi

command -v systemd-analyze >/dev/null 2>&1 || { echo "verify-unit: systemd-analyze not found (apt-get install systemd)" >&2; exit 2; }
[ -r "$unit" ] || { echo "verify-unit: cannot read $unit" >&2; exit 2; }
[ -x "$binary" ] || { echo "verify-unit: $binary is not executable" >&2; exit 2; }

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
copy="$work/$(basename "$unit")"
# Replace the program of every ExecStart= line (keeping its arguments and any -@:+! prefix).
sed -E "s#^(ExecStart=[-@:+!]*)[^ ]+#\\1$binary#" "$unit" > "$copy"

status=0
output=$(cd "$work" && systemd-analyze verify "$copy" 2>&1) || status=$?
if [ -n "$output" ]; then
    printf '%s\n' "$output" >&2
    [ "$status" -ne 0 ] || status=1
fi
[ "$status" -eq 0 ] && echo "verify-unit: $unit OK"
exit "$status"
