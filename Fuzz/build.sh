#!/usr/bin/env bash
# Builds the libFuzzer targets without SwiftPM: the SegueCore and SegueProtocol targets (neither
# needs ZeroMQ) compiled whole from their Sources directories with coverage instrumentation, then
# each target's entry point plus its oracle, which lives in the test targets so `make test` replays
# the same checks.
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
"$SWIFTC" "${FLAGS[@]}" -module-name SegueProtocol -I "$OUT" -emit-module \
    -emit-module-path "$OUT/SegueProtocol.swiftmodule" -emit-library -static -o "$OUT/libSegueProtocol.a" \
    $(find Sources/SegueProtocol -name '*.swift' | sort)

"$SWIFTC" "${FLAGS[@]}" -module-name FuzzCodec -I "$OUT" -L "$OUT" -lSegueProtocol -lSegueCore -lm \
    -o "$OUT/fuzz-codec" Fuzz/codec/Entry.swift Tests/SegueProtocolTests/FuzzCorpusCodecCheck.swift
"$SWIFTC" "${FLAGS[@]}" -module-name FuzzDecider -I "$OUT" -L "$OUT" -lSegueCore -lm \
    -o "$OUT/fuzz-decider" Fuzz/decider/Entry.swift Tests/SegueCoreTests/FuzzCorpusDeciderCheck.swift
echo "Built $OUT/fuzz-codec and $OUT/fuzz-decider"
