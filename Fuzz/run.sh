#!/usr/bin/env bash
# Builds and runs both libFuzzer targets side by side for FUZZ_SECONDS each (default 600), starting
# from the checked-in corpus, then (FUZZ_MERGE=1) minimizes what they found back into
# Fuzz/corpus/<target> with -merge=1. Prints each run's executions and exits 1 if any target crashed;
# the crashing input is left as $OUT/<target>-crash-*.
#
#   FUZZ_SECONDS=60 Fuzz/run.sh          # or: make fuzz FUZZ_SECONDS=60
set -uo pipefail
cd "$(dirname "$0")/.."
SECONDS_EACH=${FUZZ_SECONDS:-600}
OUT=${FUZZ_OUT:-/tmp/segue-fuzz}
TARGETS=(codec decider)
Fuzz/build.sh "$OUT" || exit 2
# The Swift runtime's backtracer would catch the trap before libFuzzer could save the input.
export SWIFT_BACKTRACE=enable=no
pids=()
for t in "${TARGETS[@]}"; do
    mkdir -p "$OUT/work-$t"
    "$OUT/fuzz-$t" -max_total_time="$SECONDS_EACH" -max_len=2048 -print_final_stats=1 -artifact_prefix="$OUT/$t-" \
        "$OUT/work-$t" "Fuzz/corpus/$t" > "$OUT/$t.log" 2>&1 &
    pids+=($!)
done
status=0
for i in "${!TARGETS[@]}"; do
    t=${TARGETS[$i]}
    if wait "${pids[$i]}"; then result="no crash"; else result="CRASHED (see $OUT/$t.log)"; status=1; fi
    runs=$(grep -o 'stat::number_of_executed_units: *[0-9]*' "$OUT/$t.log" | grep -o '[0-9]*$')
    secs=$(grep -o 'Done [0-9]* runs in [0-9]* second' "$OUT/$t.log" | grep -o 'in [0-9]*' | grep -o '[0-9]*')
    echo "fuzz-$t: ${runs:-?} executions in ${secs:-$SECONDS_EACH} s, corpus $(ls "$OUT/work-$t" | wc -l) inputs: $result"
done
# Minimizing: a set cover over edges (no hit counters) of inputs cut to 160 bytes, then at most the
# 190 smallest, so the checked-in corpus stays under 200 files and a few KiB.
if [ "${FUZZ_MERGE:-0}" = 1 ] && [ $status = 0 ]; then
    for t in "${TARGETS[@]}"; do
        rm -rf "$OUT/merged-$t" && mkdir -p "$OUT/merged-$t"
        "$OUT/fuzz-$t" -set_cover_merge=1 -use_counters=0 -max_len=160 "$OUT/merged-$t" "Fuzz/corpus/$t" "$OUT/work-$t" \
            > "$OUT/$t-merge.log" 2>&1
        rm -f Fuzz/corpus/$t/*
        ls -S -r "$OUT/merged-$t" | head -190 | while read -r f; do cp "$OUT/merged-$t/$f" "Fuzz/corpus/$t/"; done
        echo "corpus $t: $(ls Fuzz/corpus/$t | wc -l) files, $(cat Fuzz/corpus/$t/* | wc -c) bytes"
    done
fi
exit $status
