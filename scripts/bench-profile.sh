#!/usr/bin/env bash
# Profiles segued under one segue-bench section with perf (call graphs), then prints the daemon's
# hottest symbols. perf follows the child processes, so segued (spawned by segue-bench) is included.
#   scripts/bench-profile.sh fanout|latency|throughput|gesture|scale [more segue-bench args]
# Needs linux-perf (Debian package) and permission to profile (root, or perf_event_paranoid <= 1).
set -euo pipefail
cd "$(dirname "$0")/.."
section="${1:?section: fanout, latency, throughput, gesture or scale}"
shift
scratch="${SCRATCH:-.build}"
swift build -c release --static-swift-stdlib --scratch-path "$scratch" --product segued >&2
swift build -c release --static-swift-stdlib --scratch-path "$scratch" --product segue-bench >&2
out="${PERF_OUT:-/tmp/segue-bench-$section.perf}"
perf record -F 999 -g -o "$out" -- "$scratch/release/segue-bench" --quick --only "$section" "$@" >/dev/null
perf report -i "$out" --comm segued --no-children --sort symbol --stdio 2>/dev/null | grep -v '^$' | head -60
