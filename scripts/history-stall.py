#!/usr/bin/env python3
"""What long `history` pages cost the frame loop and the other clients of one segued build.

    scripts/history-stall.py SEGUED [--navigators 1000] [--depth 30] [--pages 5]

Starts SEGUED (relaxed durability, a fresh data dir) and builds a log of --navigators navigators
pushed --depth screens deep (about 61,000 events by default). Then it starts a 30-second animated
push, so frames are due, and asks for --pages pages of 10,000 events from the log's tail, the
dearest (every navigator of such a page is folded from its snapshot for the digests). While each
page is read, a second client times a `ping`. Prints the growth of `stats.missedFrames`,
`lateFrames` and `stalls` over the pages, and each ping's round trip (docs/performance.md, "A
`history` page beside the frame loop"). Needs pyzmq.
"""
import argparse, json, shutil, subprocess, tempfile, time
import zmq

from script_support import free_port


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("segued")
    parser.add_argument("--navigators", type=int, default=1000)
    parser.add_argument("--depth", type=int, default=30)
    parser.add_argument("--pages", type=int, default=5)
    args = parser.parse_args()

    data = tempfile.mkdtemp(prefix="history-stall-")
    command = f"tcp://127.0.0.1:{free_port()}"
    daemon = subprocess.Popen(
        [args.segued, "--data-dir", data, "--command", command, "--publish", f"tcp://127.0.0.1:{free_port()}",
         "--durability", "relaxed"], stderr=subprocess.DEVNULL)
    context = zmq.Context()
    asker, pinger = context.socket(zmq.DEALER), context.socket(zmq.DEALER)
    for socket in (asker, pinger):
        socket.setsockopt(zmq.LINGER, 0)
        socket.setsockopt(zmq.RCVTIMEO, 60_000)
        socket.connect(command)

    def call(socket, request):
        socket.send(json.dumps(request).encode())
        return json.loads(socket.recv())

    def pipelined(requests):
        for request in requests:
            asker.send(json.dumps(request).encode())
        for _ in requests:
            reply = json.loads(asker.recv())
            assert reply["ok"], reply

    try:
        deadline = time.monotonic() + 10
        while True:
            try:
                pinger.setsockopt(zmq.RCVTIMEO, 200)
                call(pinger, {"cmd": "ping"})
                pinger.setsockopt(zmq.RCVTIMEO, 60_000)
                break
            except zmq.Again:
                if time.monotonic() > deadline:
                    raise SystemExit("segued did not answer within 10 s")
        names = [f"n{i}" for i in range(args.navigators)]
        pipelined([{"cmd": "create", "navigator": n, "root": "Home"} for n in names])
        for depth in range(args.depth):
            pipelined([{"cmd": "push", "navigator": n, "screen": f"S{depth}", "animated": False} for n in names])
        last = call(asker, {"cmd": "ping"})["seq"]
        call(asker, {"cmd": "create", "navigator": "animating", "root": "Home"})
        call(asker, {"cmd": "push", "navigator": "animating", "screen": "A", "animator": {"duration": 30}})
        before = call(pinger, {"cmd": "stats"})
        pings = []
        for _ in range(args.pages):
            asker.send(json.dumps({"cmd": "history", "after": max(0, last - 10_000), "limit": 10_000}).encode())
            started = time.perf_counter()
            call(pinger, {"cmd": "ping"})
            pings.append((time.perf_counter() - started) * 1000)
            page = json.loads(asker.recv())
            assert page["ok"], page
        after = call(pinger, {"cmd": "stats"})
        growth = {k: after[k] - before[k] for k in ("missedFrames", "lateFrames", "stalls")}
        print(f"log at seq {last}; over {args.pages} pages of 10,000: "
              + ", ".join(f"{k} +{v}" for k, v in growth.items())
              + "; a ping during each page: " + " ".join(f"{p:.1f}" for p in pings) + " ms")
    finally:
        daemon.terminate()
        daemon.wait()
        context.destroy(linger=0)
        shutil.rmtree(data, ignore_errors=True)


if __name__ == "__main__":
    main()
