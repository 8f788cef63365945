#!/usr/bin/env bash
# Builds the release products and runs segue-bench against a real segued.
#   scripts/bench.sh            full run (< 15 min on 2 cores), Markdown table on stdout
#   scripts/bench.sh --quick    smoke run (< 60 s)
#   scripts/bench.sh --json     figures as JSON
# Progress and per-figure lines go to stderr. SCRATCH overrides the build directory.
set -euo pipefail
cd "$(dirname "$0")/.."
scratch="${SCRATCH:-.build}"
swift build -c release --static-swift-stdlib --scratch-path "$scratch" --product segued >&2
swift build -c release --static-swift-stdlib --scratch-path "$scratch" --product segue >&2  # the relay section runs `segue relay`
swift build -c release --static-swift-stdlib --scratch-path "$scratch" --product segue-bench >&2
exec "$scratch/release/segue-bench" "$@"
