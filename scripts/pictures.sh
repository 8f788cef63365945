#!/usr/bin/env bash
# Redraws the README's pictures (docs/images/viewer.png and docs/images/timeline.png) from a session
# recorded here and now: a segued on free loopback ports, two navigators, a slide push alongside a
# flip, a fade with a spring, a swipe back that finishes and one that cancels, a queued push, a
# modal presented and dismissed with an iris. Needs chromium, chromium-driver and selenium (as the
# viewer tests do). Usage: scripts/pictures.sh [OUT_DIR]   (default docs/images)
set -euo pipefail
cd "$(dirname "$0")/.."
out="${1:-docs/images}"
mkdir -p "$out"
swift build --product segued >/dev/null
swift build --product segue >/dev/null
bin="$(swift build --show-bin-path)"
work="$(mktemp -d)"
pids=()
cleanup() { for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; done; rm -rf "$work"; }
trap cleanup EXIT
port() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'; }
export SEGUE_ENDPOINT="tcp://127.0.0.1:$(port)" SEGUE_PUBLISH_ENDPOINT="tcp://127.0.0.1:$(port)"
"$bin/segued" --data-dir "$work/data" --command "$SEGUE_ENDPOINT" --publish "$SEGUE_PUBLISH_ENDPOINT" \
  >"$work/segued.log" 2>&1 &
pids+=($!)
segue() { "$bin/segue" "$@" >/dev/null; }
for _ in $(seq 50); do "$bin/segue" ping >/dev/null 2>&1 && break; sleep 0.1; done

segue create main Home
segue create inbox List --busy queue
# Both at once: the viewer picture is taken mid-way through these two.
segue push main Detail --param id=42 --duration 0.6 --curve easeInOut --wait &
first=$!
segue push inbox Mail --style flip --duration 0.6 --curve easeInOut --wait &
second=$!
wait "$first" "$second"
segue push main Settings --style fade --curve spring-response:0.5,0.5 --wait
segue swipe main pop --to 0.7 --over 0.3s --then end --wait
segue swipe main pop --to 0.2 --over 0.25s --then end --wait || [ $? = 2 ]   # 2: cancelled, as meant
segue push inbox Thread --id first
segue push inbox Reply --id queued --wait
sleep 0.4
segue present main Compose --wait
segue dismiss main --style iris --duration 0.45 --wait
kill "${pids[0]}"; wait "${pids[0]}" 2>/dev/null || true

# The timeline: the SVG, drawn by Chromium at its own size.
"$bin/segue" timeline "$work/data" --scale 300 -o "$work/timeline.svg"
size=$(python3 -c 'import re,sys; t=open(sys.argv[1]).read(2000); w,h=re.search(r"width=\"([\d.]+)\" height=\"([\d.]+)\"",t).groups(); print(f"{int(float(w))},{int(float(h))}")' "$work/timeline.svg")
chromium --headless --no-sandbox --disable-gpu --hide-scrollbars --force-device-scale-factor=1 \
  --window-size="$size" --screenshot="$out/timeline.png" "file://$work/timeline.svg" 2>/dev/null

# The viewer, paused at the frame where main's push is 30 % through.
frame=$("$bin/segue" replay "$work/data" --json --navigator main | python3 -c '
import json, sys
ticks = [json.loads(line) for line in sys.stdin]
print(next(t["frame"] for t in ticks if t["transition"] == 1 and t["fraction"] >= 0.3))')
listen="127.0.0.1:$(port)"
"$bin/segue" view --replay "$work/data" --listen "$listen" >"$work/view.log" 2>&1 &
pids+=($!)
for _ in $(seq 100); do grep -q http:// "$work/view.log" && break; sleep 0.1; done
python3 scripts/viewer_probe.py shot "http://$listen/" --frame "$frame" --out "$out/viewer.png" \
  --width 700 --height 900 --timeout 60 >/dev/null
echo "Wrote $out/timeline.png and $out/viewer.png ($(du -ch "$out"/*.png | tail -1 | cut -f1))"
