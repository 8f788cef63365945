#!/usr/bin/env python3
"""What the frame lease costs the first tick after an idle stretch, for one segued build.

    scripts/first-tick.py SEGUED [--rounds 30] [--durability full]

Starts SEGUED on a fresh data dir and one navigator, subscribed to its ticks. Each round sends an
animated push or pop (0.1 s) after 0.2 s of idle, when the lease of the transition before still
holds, and another after 3 s, when it has run out and the first tick waits for a lease write behind
the command's events; the order of the two is random per round. Prints, for each idle stretch, the
time from sending the command to its first tick (docs/performance.md, "The frame lease and the
first tick"). The frame's own wait, up to a frame period, is in both. Needs pyzmq.
"""
import argparse, json, random, shutil, statistics, subprocess, tempfile, time
import zmq

from script_support import free_port

IDLE = (0.2, 3.0)


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("segued")
    parser.add_argument("--rounds", type=int, default=30)
    parser.add_argument("--durability", choices=["full", "relaxed"], default="full")
    args = parser.parse_args()

    data = tempfile.mkdtemp(prefix="first-tick-")
    command, publish = f"tcp://127.0.0.1:{free_port()}", f"tcp://127.0.0.1:{free_port()}"
    daemon = subprocess.Popen(
        [args.segued, "--data-dir", data, "--command", command, "--publish", publish,
         "--durability", args.durability], stderr=subprocess.DEVNULL)
    context = zmq.Context()
    client = context.socket(zmq.DEALER)
    client.setsockopt(zmq.LINGER, 0)
    client.connect(command)
    ticks = context.socket(zmq.SUB)
    ticks.setsockopt(zmq.LINGER, 0)
    ticks.setsockopt(zmq.RCVTIMEO, 5_000)
    ticks.setsockopt(zmq.SUBSCRIBE, b"tick/n/")
    ticks.connect(publish)
    counter = 0

    def call(request):
        nonlocal counter
        counter += 1
        request["id"] = f"r{counter}"
        client.send(json.dumps(request).encode())
        while True:
            if client.poll(5_000) == 0:
                raise SystemExit(f"no reply to {request}")
            reply = json.loads(client.recv())
            if reply.get("id") == request["id"]:
                return reply

    try:
        deadline = time.monotonic() + 10
        while True:
            client.send(json.dumps({"cmd": "ping", "id": "p"}).encode())
            if client.poll(200):
                client.recv()
                break
            if time.monotonic() > deadline:
                raise SystemExit("segued did not answer ping within 10 s")
        assert call({"cmd": "create", "navigator": "n", "root": "Home"})["ok"]
        time.sleep(0.5)  # the subscription settles
        waits = {idle: [] for idle in IDLE}
        push = True
        for _ in range(args.rounds):
            for idle in random.sample(IDLE, len(IDLE)):
                time.sleep(idle)
                while ticks.poll(0):
                    ticks.recv_multipart()
                request = {"cmd": "push" if push else "pop", "navigator": "n", "animator": {"duration": 0.1}}
                if push:
                    request["screen"] = "Detail"
                sent = time.perf_counter()
                assert call(request)["ok"]
                ticks.recv_multipart()
                waits[idle].append((time.perf_counter() - sent) * 1000)
                while not json.loads(ticks.recv_multipart()[1]).get("final"):
                    pass
                push = not push
        for idle, values in waits.items():
            print(f"after {idle} s idle: command sent -> its first tick p50 {statistics.median(values):.2f} ms, "
                  f"min {min(values):.2f}, max {max(values):.2f} (n={len(values)})")
    finally:
        daemon.terminate()
        daemon.wait(10)
        context.destroy(0)
        shutil.rmtree(data, ignore_errors=True)


if __name__ == "__main__":
    main()
