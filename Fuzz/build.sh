#!/usr/bin/env bash
# Builds the libFuzzer targets without SwiftPM: SegueCore (and SegueWire's codec, which needs no
# ZeroMQ) compiled straight from Sources with coverage instrumentation, then each target's entry
# point plus its oracle, which lives in the test targets so `make test` replays the same checks.
#
#   Fuzz/build.sh [OUT]        -> OUT/fuzz-codec, OUT/fuzz-decider   (OUT defaults to /tmp/segue-fuzz)
set -euo pipefail
cd "$(dirname "$0")/.."
OUT=${1:-/tmp/segue-fuzz}
SWIFTC=${SWIFTC:-swiftc}
mkdir -p "$OUT"
FLAGS=(-O -g -sanitize=fuzzer -parse-as-library -swift-version 6)

"$SWIFTC" "${FLAGS[@]}" -module-name SegueCore -emit-module -emit-module-path "$OUT/SegueCore.swiftmodule" \
    -emit-library -static -o "$OUT/libSegueCore.a" $(find Sources/SegueCore -name '*.swift' | sort)
"$SWIFTC" "${FLAGS[@]}" -module-name SegueWire -I "$OUT" -emit-module -emit-module-path "$OUT/SegueWire.swiftmodule" \
    -emit-library -static -o "$OUT/libSegueWire.a" Sources/SegueWire/Codec/*.swift

"$SWIFTC" "${FLAGS[@]}" -module-name FuzzCodec -I "$OUT" -L "$OUT" -lSegueWire -lSegueCore -lm \
    -o "$OUT/fuzz-codec" Fuzz/codec/Entry.swift Tests/SegueWireTests/FuzzCorpusCodecCheck.swift
"$SWIFTC" "${FLAGS[@]}" -module-name FuzzDecider -I "$OUT" -L "$OUT" -lSegueCore -lm \
    -o "$OUT/fuzz-decider" Fuzz/decider/Entry.swift Tests/SegueCoreTests/FuzzCorpusDeciderCheck.swift
echo "Built $OUT/fuzz-codec and $OUT/fuzz-decider"
