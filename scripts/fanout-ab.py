#!/usr/bin/env python3
"""Daemon CPU per 1,000 ticks of two segued builds, measured alternately in one run.

    scripts/fanout-ab.py OLD_SEGUED NEW_SEGUED [--navigators 1000] [--rate 60] [--rounds 3] [--window 10]

Each round starts one build on a fresh data dir, creates the navigators, starts a push on each that
outlasts the window, subscribes to every tick, and reads the daemon's CPU time (/proc/PID/stat) and
the ticks received over the window. The builds alternate round by round, so a noisy machine slows
both alike; the ratio new/old of the medians is the figure (docs/performance.md). Needs pyzmq.
"""
import argparse, json, os, shutil, statistics, subprocess, sys, tempfile, time
import zmq

from script_support import free_port


def cpu_seconds(pid):
    with open(f"/proc/{pid}/stat") as f:
        fields = f.read().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def call(sock, request):
    sock.send(json.dumps(request).encode())
    if not sock.poll(10_000):
        sys.exit(f"no reply to {request['cmd']}")
    reply = json.loads(sock.recv())
    if not reply.get("ok"):
        sys.exit(f"{request['cmd']} failed: {reply}")
    return reply


def round_(segued, navigators, rate, window):
    data = tempfile.mkdtemp(prefix="segue-ab-")
    cmd, pub = f"tcp://127.0.0.1:{free_port()}", f"tcp://127.0.0.1:{free_port()}"
    daemon = subprocess.Popen(
        [segued, "--data-dir", data, "--command", cmd, "--publish", pub, "--frame-rate", str(rate),
         "--durability", "relaxed"], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    ctx = zmq.Context()
    try:
        client = ctx.socket(zmq.DEALER)
        client.setsockopt(zmq.LINGER, 0)
        client.connect(cmd)
        deadline = time.time() + 20
        while True:
            client.send(b'{"cmd":"ping"}')
            if client.poll(200):
                client.recv()
                break
            if time.time() > deadline:
                sys.exit(f"{segued} did not answer ping")
        sub = ctx.socket(zmq.SUB)
        sub.setsockopt(zmq.LINGER, 0)
        sub.setsockopt(zmq.RCVHWM, 0)
        sub.setsockopt(zmq.SUBSCRIBE, b"tick/")
        sub.connect(pub)
        time.sleep(0.3)
        for i in range(navigators):
            call(client, {"cmd": "create", "navigator": f"n{i}", "root": "Home"})
        for i in range(navigators):
            call(client, {"cmd": "push", "navigator": f"n{i}", "screen": "Detail",
                          "animator": {"duration": window + 5, "curve": "linear"}})
        time.sleep(1)
        while sub.poll(0):
            sub.recv_multipart()
        start_cpu, start, ticks = cpu_seconds(daemon.pid), time.time(), 0
        while time.time() - start < window:
            if sub.poll(100):
                sub.recv_multipart()
                ticks += 1
                while True:
                    try:
                        sub.recv_multipart(zmq.NOBLOCK)
                        ticks += 1
                    except zmq.Again:
                        break
        used = cpu_seconds(daemon.pid) - start_cpu
        return used * 1000 / (ticks / 1000), ticks / (time.time() - start)
    finally:
        daemon.terminate()
        daemon.wait(10)
        ctx.destroy(linger=0)
        shutil.rmtree(data, ignore_errors=True)


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("old")
    p.add_argument("new")
    p.add_argument("--navigators", type=int, default=1000)
    p.add_argument("--rate", type=int, default=60)
    p.add_argument("--rounds", type=int, default=3)
    p.add_argument("--window", type=float, default=10)
    a = p.parse_args()
    results = {"old": [], "new": []}
    for r in range(a.rounds):
        for name in ("old", "new"):
            ms, rate = round_(getattr(a, name), a.navigators, a.rate, a.window)
            results[name].append(ms)
            print(f"round {r + 1} {name}: {ms:.2f} ms CPU per 1,000 ticks ({rate:,.0f} ticks/s)", file=sys.stderr)
    old, new = statistics.median(results["old"]), statistics.median(results["new"])
    print(f"{a.navigators} navigators at {a.rate} Hz, 1 subscriber, median of {a.rounds}: "
          f"old {old:.2f} ms, new {new:.2f} ms per 1,000 ticks, new/old {new / old:.2f}x")


if __name__ == "__main__":
    main()
