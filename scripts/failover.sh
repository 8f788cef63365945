#!/usr/bin/env bash
# Failover of shard leadership on a shared PostgreSQL log, more rounds than `make test` runs:
#
#   scripts/failover.sh [ROUNDS]        default 50
#
# Runs FailoverTests' kill test (three segued on one PostgreSQL database, 16 clients following
# `moved` on the navigators of one busy shard) with ROUNDS rounds of SIGKILL of that shard's
# leader, then checks the log: every acknowledged command present once, seq gapless, the fold
# equal to `state`. Prints the takeover times (kill to the first command a standby acknowledged),
# p50 and p99, and fails if a round took 3 s or more or the median 1 s or more. Needs
# postgresql-15 (the test starts its own server) and a test build (made here if missing);
# SEGUE_TEST_BINARIES=DIR runs another build's segued (a release build, for its figures).
set -euo pipefail
cd "$(dirname "$0")/.."
rounds=${1:-50}
case "$rounds" in ''|*[!0-9]*) echo "usage: $0 [ROUNDS]" >&2; exit 64;; esac
swift build --build-tests >/dev/null
output=$(SEGUE_FAILOVER_ROUNDS=$rounds swift test --skip-build \
  --filter 'FailoverTests/killingTheLeaderOfABusyShardLosesNothingAcknowledged' 2>&1) || status=$?
echo "$output" | grep -E '^failover:|✘|Expectation failed' || true
if [ "${status:-0}" -ne 0 ] || ! echo "$output" | grep -q '^failover:'; then
  echo "$output" | tail -40 >&2
  exit "${status:-1}"
fi
echo "$output" | grep -q 'passed after' && echo "failover: $rounds rounds passed"
