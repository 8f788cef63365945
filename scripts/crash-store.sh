#!/usr/bin/env bash
# Crash the event store ROUNDS times (default 200) with SIGKILL under group-commit load and check,
# with nothing but the sqlite3 shell, that after every kill the log holds every acknowledged event,
# whole units only, and gapless seq and revisions. The quick version runs in `swift test`
# (CrashTests); this is the long soak.
#
# usage: [SCRATCH=DIR] scripts/crash-store.sh [ROUNDS] [PRODUCERS] [full|relaxed]
set -euo pipefail
rounds=${1:-200}
producers=${2:-8}
durability=${3:-full}
case "$durability" in full | relaxed) ;; *) echo "durability must be full or relaxed, not $durability" >&2; exit 64 ;; esac
cd "$(dirname "$0")/.."
# SCRATCH: an optional --scratch-path for swift build.
build=(swift build -c release --static-swift-stdlib ${SCRATCH:+--scratch-path "$SCRATCH"})
"${build[@]}" --product segue-store-crasher >/dev/null
crasher="$("${build[@]}" --show-bin-path)/segue-store-crasher"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
db="$work/events.db"

fail() { echo "round $1: $2" >&2; exit 1; }

for round in $(seq 1 "$rounds"); do
    "$crasher" "$db" "$producers" "$durability" >"$work/out" &
    pid=$!
    # The load starts at the first acknowledgement: opening the log (its quick_check) takes longer
    # as it grows, and a kill timed from the start would land before any append in later rounds
    # (half of rounds 120-200 did). CrashTests does the same.
    for _ in $(seq 1 3000); do
        grep -q '^ack' "$work/out" 2>/dev/null && break
        kill -0 "$pid" 2>/dev/null || break
        sleep 0.01
    done
    grep -q '^ack' "$work/out" || { kill -9 "$pid" 2>/dev/null; fail "$round" "the crasher acknowledged nothing in 30 s"; }
    # Random load between 50 and 250 ms.
    sleep "0.$(printf '%03d' $((50 + RANDOM % 200)))"
    kill -9 "$pid"
    wait "$pid" 2>/dev/null || true
    grep -q '^fail\|^error' "$work/out" && fail "$round" "crasher reported: $(grep -m1 '^fail\|^error' "$work/out")"
    acked=$(awk '$1 == "ack" && $3 > m { m = $3 } END { print m + 0 }' "$work/out")
    check=$(sqlite3 "$db" "PRAGMA quick_check;
        SELECT COUNT(*) = COALESCE(MAX(seq), 0) AND COALESCE(MIN(seq), 1) = 1 FROM events;
        SELECT COUNT(*) FROM (SELECT navigator FROM events GROUP BY navigator
            HAVING COUNT(*) != MAX(revision) OR MIN(revision) != 1);
        SELECT COUNT(*) FROM (SELECT command FROM events GROUP BY command
            HAVING COUNT(*) != CAST(substr(command, instr(command, 'x') + 1) AS INTEGER)
                OR MIN(seq) != CAST(substr(command, 2, instr(command, 'x') - 2) AS INTEGER));
        SELECT COALESCE(MAX(seq), 0) FROM events;")
    mapfile -t lines <<<"$check"
    [ "${lines[0]}" = ok ] || fail "$round" "quick_check: ${lines[0]}"
    [ "${lines[1]}" = 1 ] || fail "$round" "seq is not gapless from 1"
    [ "${lines[2]}" = 0 ] || fail "$round" "a navigator's revisions have a gap"
    [ "${lines[3]}" = 0 ] || fail "$round" "a unit is only partly stored"
    [ "$acked" -le "${lines[4]}" ] || fail "$round" "acknowledged seq $acked lost (log ends at ${lines[4]})"
    printf 'round %d: %d acknowledged, log at seq %d\n' "$round" "$(grep -c '^ack' "$work/out" || true)" "${lines[4]}"
done
echo "ok: $rounds rounds, durability $durability"
