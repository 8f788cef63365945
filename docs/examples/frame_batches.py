#!/usr/bin/env python3
"""Reads Segue's frame batches (the frames socket) in plain Python and checks them against tick/.

Usage: python3 frame_batches.py --command ENDPOINT --publish ENDPOINT --frames ENDPOINT

Subscribes to tick/ on the publish socket and to frames/ on the frames socket (segued
--publish-frames), animates two navigators, decodes every batch with the layout of docs/protocol.md
("Frame batches"), and checks that the batches hold exactly the ticks published as JSON. Exits 0 and
prints OK when they do, 1 otherwise.
"""
import argparse
import json
import struct
import sys
import time

import zmq

OPERATIONS = ["push", "pop", "present", "dismiss"]
PHASES = ["animating", "interactive", "finishing", "cancelling", "completed", "cancelled", "paused"]
EDGES = ["left", "right", "top", "bottom", "none"]
VIEW = ["x", "y", "alpha", "scale", "rotation", "rotationY", "mask", "anchorX", "anchorY"]


def decode_batch(body):
    """One frame batch as a list of ticks shaped like the JSON ticks of tick/<navigator>/."""
    version, frame, t, present_at, count = struct.unpack_from("<BqqqI", body, 0)
    if version != 1:
        raise ValueError(f"frame batch version {version} is not known")
    at = struct.calcsize("<BqqqI")

    def take(fmt):
        nonlocal at
        values = struct.unpack_from("<" + fmt, body, at)
        at += struct.calcsize("<" + fmt)
        return values

    def text():
        (length,) = take("H")
        (raw,) = take(f"{length}s")
        return raw.decode("utf-8")

    def view():
        screen = text()
        numbers = dict(zip(VIEW, take("9d")))
        (z,) = take("i")
        anchor = [numbers.pop("anchorX"), numbers.pop("anchorY")]
        return {"screen": screen, **numbers, "z": z, "anchor": anchor}

    ticks = []
    for _ in range(count):
        navigator = text()
        transition, operation, phase, flags, fraction, progress, revision = take("qBBBddq")
        tick = {
            "navigator": navigator, "transition": transition, "operation": OPERATIONS[operation],
            "frame": frame, "time": t, "presentAt": present_at, "phase": PHASES[phase],
            "fraction": fraction, "progress": progress, "revision": revision, "final": bool(flags & 1),
            "views": {"from": view(), "to": view()},
        }
        if flags & 2:
            (velocity,) = take("d")
            gesture = {}
            if flags & 8:
                x, y = take("dd")
                gesture["touch"] = {"x": x, "y": y}
            if flags & 16:
                (edge,) = take("B")
                gesture["edge"] = EDGES[edge]
            gesture["velocity"] = velocity
            tick["gesture"] = gesture
        if flags & 4:
            (digest,) = take("32s")
            tick["digest"] = digest.hex()
        ticks.append(tick)
    if at != len(body):
        raise ValueError(f"{len(body) - at} bytes after the last tick")
    return ticks


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--command", default="tcp://127.0.0.1:7400")
    parser.add_argument("--publish", default="tcp://127.0.0.1:7401")
    parser.add_argument("--frames", required=True)
    args = parser.parse_args()
    context = zmq.Context()
    command = context.socket(zmq.DEALER)
    command.connect(args.command)
    ticks = context.socket(zmq.SUB)
    ticks.setsockopt(zmq.SUBSCRIBE, b"tick/")
    ticks.connect(args.publish)
    frames = context.socket(zmq.SUB)
    frames.setsockopt(zmq.SUBSCRIBE, b"frames/")
    frames.connect(args.frames)
    time.sleep(0.5)  # the frames socket has no heartbeat to wait for (slow joiner)

    def call(request):
        command.send(json.dumps(request).encode())
        reply = json.loads(command.recv())
        if not reply.get("ok"):
            sys.exit(f"{request['cmd']} failed: {reply}")
        return reply

    names = [f"fb{int(time.time() * 1000) % 100000}", f"fb{int(time.time() * 1000) % 100000}x"]
    for name in names:
        call({"cmd": "create", "navigator": name, "root": "Home"})
    call({"cmd": "push", "navigator": names[0], "screen": "A", "animator": {"duration": 0.2}})
    call({"cmd": "present", "navigator": names[1], "screen": "B", "animator": {"duration": 0.15}})

    def receive(socket, count_finals):
        messages, finals = [], 0
        poller = zmq.Poller()
        poller.register(socket, zmq.POLLIN)
        while finals < 2:
            if not poller.poll(5000):
                sys.exit(f"no message for 5 s after {len(messages)}")
            topic, body = socket.recv_multipart()
            messages.append((topic, body))
            finals += count_finals(topic, body)
        return messages

    published = receive(ticks, lambda topic, body: json.loads(body)["final"])
    batches = receive(frames, lambda topic, body: sum(t["final"] for t in decode_batch(body)))
    from_json = [json.loads(body) for _, body in published]
    from_batches = [tick for topic, body in batches for tick in decode_batch(body)]
    for tick in from_json:  # the JSON form writes the anchor as a pair
        for side in ("from", "to"):
            tick["views"][side]["anchor"] = list(tick["views"][side]["anchor"])
    if any(topic != b"frames/" for topic, _ in batches):
        sys.exit("a frame batch came on another topic")
    if from_batches != from_json:
        for a, b in zip(from_batches, from_json):
            if a != b:
                sys.exit(f"first difference:\n  batch {a}\n  json  {b}")
        sys.exit(f"{len(from_batches)} ticks in batches, {len(from_json)} on tick/")
    print(f"OK: {len(from_batches)} ticks in {len(batches)} frame batches, the same as on tick/")


if __name__ == "__main__":
    main()
