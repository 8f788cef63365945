#!/usr/bin/env python3
"""A live `segue view` tab in headless Chromium while many navigators animate at once.

    scripts/view-load.py BINDIR [--navigators 1000] [--animating 200] [--seconds 30]

Starts BINDIR/segued (relaxed durability, a fresh data dir) with --navigators navigators, of which
--animating push and pop with 3 s animations back to back, and BINDIR/segue view, and opens the page
in headless Chromium (selenium + chromedriver, as scripts/viewer_probe.py). Every 5 s it prints, as
one JSON line, what the page received: its EventSource's opens (1 means never cut off), messages by
name, megabytes, and the lag of the ticks it got (the page's clock when a message arrives minus the
newest tick's `time`), median and maximum of the latest 100 samples. At 60 Hz the fleet publishes
--animating × 60 ticks a second (docs/performance.md, "segue view at scale").
"""
import argparse, json, shutil, subprocess, tempfile, threading, time
import zmq

from script_support import free_port
from viewer_probe import browser

# Counts what the page's own EventSource receives, without touching the page's handlers.
PROBE = r"""
window.__load = {opens: 0, counts: {}, lags: [], bytes: 0};
const Original = window.EventSource;
window.EventSource = function (url) {
  const source = new Original(url);
  const p = window.__load;
  source.addEventListener("open", () => p.opens++);
  for (const name of ["hello", "navigator", "event", "ticks", "status", "reset"]) {
    source.addEventListener(name, (e) => {
      p.counts[name] = (p.counts[name] || 0) + 1;
      p.bytes += e.data.length;
      if (name === "ticks" && p.counts[name] % 3 === 0) {
        const ticks = JSON.parse(e.data);
        if (ticks.length) p.lags.push(Date.now() - Math.max(...ticks.map((t) => t.time)) / 1e6);
      }
    });
  }
  return source;
};
"""


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("bindir")
    parser.add_argument("--navigators", type=int, default=1000)
    parser.add_argument("--animating", type=int, default=200)
    parser.add_argument("--seconds", type=float, default=30)
    args = parser.parse_args()
    if args.animating > args.navigators:
        parser.error("--animating cannot exceed --navigators")

    data = tempfile.mkdtemp(prefix="view-load-")
    command, publish = f"tcp://127.0.0.1:{free_port()}", f"tcp://127.0.0.1:{free_port()}"
    listen = f"127.0.0.1:{free_port()}"
    daemon = subprocess.Popen([f"{args.bindir}/segued", "--data-dir", data, "--command", command, "--publish",
                               publish, "--durability", "relaxed", "--log-level", "warning"])
    context = zmq.Context()
    viewer = driver = None
    stop = threading.Event()
    try:
        socket = context.socket(zmq.DEALER)
        socket.connect(command)
        socket.send(b'{"cmd":"ping"}')
        if not socket.poll(10_000):
            raise SystemExit("segued did not answer a ping within 10 s")
        socket.recv()
        names = [f"n{i}" for i in range(args.navigators)]
        for name in names:
            socket.send(json.dumps({"cmd": "create", "navigator": name, "root": "Home"}).encode())
        for _ in names:
            socket.recv()
        threading.Thread(target=animate, args=(context, command, names[:args.animating], stop), daemon=True).start()
        viewer = subprocess.Popen([f"{args.bindir}/segue", "view", "--endpoint", command, "--publish-endpoint",
                                   publish, "--listen", listen], stdout=subprocess.DEVNULL)
        time.sleep(1)
        driver = browser(1200, 1000)
        driver.execute_cdp_cmd("Page.addScriptToEvaluateOnNewDocument", {"source": PROBE})
        start = time.monotonic()
        driver.get(f"http://{listen}/")
        while time.monotonic() - start < args.seconds:
            time.sleep(5)
            p = driver.execute_script("return window.__load")
            lags = sorted(p["lags"][-100:])
            print(json.dumps({
                "seconds": round(time.monotonic() - start), "opens": p["opens"], "messages": p["counts"],
                "MB": round(p["bytes"] / 1e6, 1), "lag_ms_p50": round(lags[len(lags) // 2]) if lags else None,
                "lag_ms_max": round(lags[-1]) if lags else None}), flush=True)
    finally:
        stop.set()
        if driver:
            driver.quit()
        for process in (viewer, daemon):
            if process:
                process.terminate()
                process.wait(10)
        shutil.rmtree(data, ignore_errors=True)


def animate(context, command, names, stop):
    """Pushes, then pops, every navigator in `names` with 3 s animations, back to back."""
    socket = context.socket(zmq.DEALER)
    socket.connect(command)
    pushed = dict.fromkeys(names, False)
    while not stop.is_set():
        for name in names:
            request = {"cmd": "pop" if pushed[name] else "push", "navigator": name, "animator": {"duration": 3.0}}
            if not pushed[name]:
                request["screen"] = "Detail"
            socket.send(json.dumps(request).encode())
        for name in names:
            reply = json.loads(socket.recv())
            if reply.get("ok"):
                pushed[reply["navigator"]] = not pushed[reply["navigator"]]
        stop.wait(3.1)
    socket.close()



if __name__ == "__main__":
    main()
