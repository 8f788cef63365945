#!/usr/bin/env bash
# Instructions per published tick in segued's frame loop, counted with callgrind (docs/performance.md,
# "The hot paths against their limits"): CPU times on this VM vary by ±10 %, instruction counts do not.
#
# Runs segued under valgrind with 20 navigators animating (60 s pushes) at 60 Hz and one pyzmq SUB on
# `tick/` for 12 s, then divides the inclusive cost of the frame loop's parts by the ticks encoded
# (calls of TickEncoder.encode), so frames that valgrind's slowness skips do not skew the figure.
#   scripts/callgrind-ticks.sh [path/to/segued] [json|frames]   (default: .build/release/segued, json)
# With `frames`, segued also binds a frames socket and the SUB takes frame batches (`frames/`) there
# instead: nobody takes `tick/`, so the ticks are counted as they join a batch (TickBatchWriter.append).
# Needs valgrind, swift demangle and python3 with pyzmq. Takes about a minute.
set -euo pipefail
cd "$(dirname "$0")/.."
segued="${1:-.build/release/segued}"
form="${2:-json}"
[[ "$form" == json || "$form" == frames ]] || { echo "the form is json or frames, not $form" >&2; exit 64; }
command -v valgrind >/dev/null || { echo "valgrind is not installed" >&2; exit 69; }
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
port=$((7800 + RANDOM % 100))
frames=()
[[ "$form" == frames ]] && frames=(--publish-frames "tcp://127.0.0.1:$((port + 200))")
valgrind --tool=callgrind --callgrind-out-file="$dir/out" "$segued" --data-dir "$dir/data" \
    --command "tcp://127.0.0.1:$port" --publish "tcp://127.0.0.1:$((port + 100))" --durability relaxed \
    "${frames[@]}" >"$dir/log" 2>&1 &
pid=$!
python3 - "$port" "$form" <<'PY'
import sys, time, zmq
port, form = int(sys.argv[1]), sys.argv[2]
c = zmq.Context()
s = c.socket(zmq.DEALER)
s.setsockopt(zmq.LINGER, 0)
s.connect("tcp://127.0.0.1:%d" % port)
deadline = time.time() + 60
while True:  # valgrind starts slowly: wait for ping, then drop the other pings' replies
    s.send(b'{"cmd":"ping"}')
    if s.poll(500):
        s.recv()
        break
    if time.time() > deadline:
        sys.exit("segued did not answer under valgrind")
time.sleep(1.5)
while s.poll(0):
    s.recv()
sub = c.socket(zmq.SUB)
sub.setsockopt(zmq.LINGER, 0)
sub.setsockopt(zmq.SUBSCRIBE, b"tick/" if form == "json" else b"frames/")
sub.connect("tcp://127.0.0.1:%d" % (port + (100 if form == "json" else 200)))
def call(body):
    s.send(body)
    reply = s.recv()
    if b'"ok":true' not in reply:
        sys.exit(reply.decode())
for i in range(20):
    call(b'{"cmd":"create","navigator":"n%d","root":"Home"}' % i)
for i in range(20):
    call(b'{"cmd":"push","navigator":"n%d","screen":"D","animator":{"duration":60,"curve":"easeInOut"}}' % i)
end = time.time() + 12
while time.time() < end:
    if sub.poll(100):
        while True:
            try:
                sub.recv(zmq.NOBLOCK)
            except zmq.Again:
                break
PY
kill -TERM "$pid"
wait "$pid" || true
annotated=$(callgrind_annotate --inclusive=yes --threshold=100 "$dir/out" 2>/dev/null | swift demangle --simplified)
encoder='TickEncoder\.encode\(_:\)'
[[ "$form" == frames ]] && encoder='TickBatchWriter\.append\(_:\)'
ticks=$(callgrind_annotate --tree=caller --threshold=100 "$dir/out" 2>/dev/null | swift demangle --simplified |
    sed -nE "s/.*$encoder \\(([0-9,]+)x\\).*/\\1/p" | head -1 | tr -d ,)
cost() { grep -E "^ *[0-9,]+ .*$1 \[" <<<"$annotated" | head -1 | awk '{print $1}' | tr -d ,; }
# closeFrames: the frame's state, curves and ticks; performActions: encoding and sending them.
echo "$segued ($form): $ticks ticks; per tick: encoding $(($(cost "$encoder") / ticks)), " \
    "sendMultipart $(($(cost 'ZMQSocket\.sendMultipart\(_:_:dontWait:\)') / ticks)), closeFrames $(($(cost 'EngineCore\.closeFrames\(now:publishTicks:after:\)') / ticks)), " \
    "performActions $(($(cost 'Engine\.performActions\(\)') / ticks)) instructions"
