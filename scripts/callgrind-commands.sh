#!/usr/bin/env bash
# Instructions per push/pop command in segued (all threads), counted with callgrind: this VM has no
# hardware counters, and CPU times of identical runs differ by ±10 %, while instruction counts repeat
# within about ±1 k (docs/performance.md, "A relaxed push/pop, stage by stage").
#
# Runs segued under valgrind twice, with 500 and 2,500 commands from one pyzmq DEALER (pushes and
# pops, not animated, no id), and prints the difference per command, so start-up and shutdown cancel.
#   scripts/callgrind-commands.sh [path/to/segued] [full|relaxed]      (default: .build/release, relaxed)
# With CALLGRIND_KEEP=dir, both callgrind outputs are kept there (small.out, large.out), for
# scripts/callgrind-functions.py to give each function's instructions per command.
# With CALLGRIND_STORE_URL=postgresql://…, each run keeps its log in a new schema of that database
# (created with psql) instead of a data dir: the commands' path on PostgreSQL.
# Needs valgrind and python3 with pyzmq. Takes about a minute and a half.
set -euo pipefail
cd "$(dirname "$0")/.."
segued="${1:-.build/release/segued}"
durability="${2:-relaxed}"
command -v valgrind >/dev/null || { echo "valgrind is not installed" >&2; exit 69; }

# The --store-url arguments of one run on PostgreSQL: a schema of its own, so each run starts empty.
store_args() {
    [[ -n "${CALLGRIND_STORE_URL:-}" ]] || return 0
    local schema="callgrind_$$_$RANDOM"
    psql -q "$CALLGRIND_STORE_URL" -c "CREATE SCHEMA $schema" >&2
    local separator='?'
    [[ "$CALLGRIND_STORE_URL" == *\?* ]] && separator='&'
    echo "--store-url ${CALLGRIND_STORE_URL}${separator}options=-csearch_path%3D$schema"
}

run() {
    local commands=$1 port=$((7800 + RANDOM % 100))
    local dir
    dir=$(mktemp -d)
    valgrind --tool=callgrind --callgrind-out-file="$dir/out" "$segued" --data-dir "$dir" \
        --command "tcp://127.0.0.1:$port" --publish "tcp://127.0.0.1:$((port + 100))" \
        --durability "$durability" $(store_args) >"$dir/log" 2>&1 &
    local pid=$!
    python3 - "$port" "$commands" <<'PY'
import json, sys, time, zmq
port, n = sys.argv[1], int(sys.argv[2])
context = zmq.Context()
s = context.socket(zmq.DEALER)
s.setsockopt(zmq.LINGER, 0)
s.connect("tcp://127.0.0.1:" + port)
deadline = time.time() + 60
while True:  # valgrind starts slowly: wait for ping
    s.send(b'{"cmd":"ping"}')
    if s.poll(500):
        s.recv()
        break
    if time.time() > deadline:
        sys.exit("segued did not answer under valgrind")
# The pings sent before the first answer are answered too. On the same socket their replies would
# be read as the next commands' replies, and those commands would go out before their own replies
# came back: several in flight sharing commits. The commands get a socket of their own.
s.close()
s = context.socket(zmq.DEALER)
s.setsockopt(zmq.LINGER, 0)
s.connect("tcp://127.0.0.1:" + port)
def call(body):
    s.send(body)
    reply = s.recv()
    if b'"ok":true' not in reply:
        sys.exit(reply.decode())
call(b'{"cmd":"create","navigator":"cg","root":"Home"}')
push = b'{"cmd":"push","navigator":"cg","screen":"Detail","animated":false}'
pop = b'{"cmd":"pop","navigator":"cg","animated":false}'
for i in range(n):
    call(push if i % 2 == 0 else pop)
PY
    kill -TERM "$pid"
    wait "$pid" || true
    awk '/^(summary|totals):/ {print $2; exit}' "$dir/out"
    if [[ -n "${CALLGRIND_KEEP:-}" ]]; then
        mkdir -p "$CALLGRIND_KEEP"
        cp "$dir/out" "$CALLGRIND_KEEP/$([[ $commands -eq 500 ]] && echo small || echo large).out"
    fi
    rm -rf "$dir"
}

small=$(run 500)
large=$(run 2500)
echo "$segued ($durability): $(((large - small) / 2000)) instructions per command"
