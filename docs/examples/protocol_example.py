#!/usr/bin/env python3
"""A complete Segue client in plain pyzmq: push a screen, drive an interactive pop, check the ticks.

Usage: python3 protocol_example.py [--command tcp://127.0.0.1:7400] [--publish tcp://127.0.0.1:7401]

Exits 0 when everything the daemon said and published is as docs/protocol.md describes, 1 otherwise.
"""
import argparse
import json
import sys
import time
import uuid

import zmq


class SegueError(Exception):
    """An error reply: `code` is the stable snake_case code, the message says what to do."""

    def __init__(self, code, message):
        super().__init__(f"{code}: {message}")
        self.code = code


class Client:
    """One DEALER socket for commands and one SUB socket for events and ticks."""

    def __init__(self, command, publish, timeout=5.0):
        self.context = zmq.Context()
        self.commands = self.context.socket(zmq.DEALER)
        self.commands.setsockopt(zmq.LINGER, 0)
        self.commands.connect(command)
        self.feed = self.context.socket(zmq.SUB)
        self.feed.setsockopt(zmq.LINGER, 0)
        self.feed.connect(publish)
        self.timeout = timeout
        self.navigator = None  # the navigator followed, once subscribed
        self.instance = None  # the run of segued this client follows, from ping
        self.seq = 0  # the seq of the navigator's last event received
        self.revision = 0  # and its revision
        self.known = 0  # how far the log is known: that event, or a heartbeat already looked into
        self.backlog = []  # events read back with history, to hand out before the feed's

    def call(self, cmd, **arguments):
        """Sends one request (one frame of JSON) and returns the reply, raising SegueError on ok: false."""
        request = {"cmd": cmd, "id": str(uuid.uuid4()), **arguments}
        self.commands.send(json.dumps(request).encode("utf-8"))
        if not self.commands.poll(int(self.timeout * 1000)):
            raise TimeoutError(f"no reply to {cmd} within {self.timeout} s; is segued running?")
        reply = json.loads(self.commands.recv())
        assert reply["id"] == request["id"], "a DEALER gets its replies in request order"
        if not reply["ok"]:
            raise SegueError(reply["error"]["code"], reply["error"]["message"])
        if cmd == "ping":
            self.instance = reply["instance"]
        return reply

    def subscribe(self, navigator):
        """Subscribes to the navigator's events and ticks and to heartbeats, then waits for a heartbeat:
        once one arrives, every earlier subscription is in place (ZeroMQ's slow joiner: messages
        published before a subscription reaches the daemon are not sent). `hb/` stays subscribed."""
        self.navigator = navigator
        for topic in (f"event/{navigator}/", f"tick/{navigator}/", "hb/"):
            self.feed.setsockopt_string(zmq.SUBSCRIBE, topic)
        while self.next_message()[0] != "hb/":
            pass

    def next_message(self):
        if not self.feed.poll(int(self.timeout * 1000)):
            raise TimeoutError(f"nothing published within {self.timeout} s")
        topic, body = self.feed.recv_multipart()
        return topic.decode("utf-8"), json.loads(body)

    def receive(self):
        """The navigator's next event or tick as (topic, body); events in order, none twice. Heartbeats
        are checked here (docs/protocol.md, "Late joiners"): another `instance` means segued restarted
        (start over as a late joiner); a `seq` past the last event received means events were lost."""
        while True:
            if self.backlog:
                return "event/", self.backlog.pop(0)
            topic, body = self.next_message()
            if topic == "hb/":
                self.heartbeat(body)
            elif topic.startswith("tick/"):
                return topic, body
            elif body["seq"] <= self.seq:
                pass  # history gave it already
            elif body["revision"] > self.revision + 1:
                self.catch_up()  # a revision was skipped: read the gap, and this event, back
            else:
                self.seq, self.revision = body["seq"], body["revision"]
                self.known = max(self.known, self.seq)
                return topic, body

    def heartbeat(self, heartbeat):
        assert heartbeat["instance"] == self.instance, "segued restarted: start over as a late joiner"
        if heartbeat["seq"] > self.known:
            # Every event up to its seq was published before it, so events were lost, or moved other
            # navigators: it cannot say whose, so ask, once per heartbeat.
            self.catch_up()
            self.known = max(self.known, heartbeat["seq"])

    def catch_up(self):
        """Reads the navigator's events after the last one received back with history."""
        while True:
            page = self.call("history", navigator=self.navigator, after=self.seq)
            self.backlog += page["events"]
            if page["events"]:
                self.seq, self.revision = page["next"], page["events"][-1]["revision"]
                self.known = max(self.known, self.seq)
            if not page["more"]:
                return

    def close(self):
        self.commands.close()
        self.feed.close()
        self.context.term()


def run(client, navigator):
    """Returns the ticks seen per transition id, after a push and an interactive pop, and how many
    frames the daemon skipped meanwhile."""
    print("daemon", client.call("ping")["version"])
    missed_before = client.call("stats")["missedFrames"]
    client.subscribe(navigator)
    client.call("create", navigator=navigator, root="Home")

    # 1. An animated push; the reply comes once its start is durable, the completion is an event.
    push = client.call("push", navigator=navigator, screen={"name": "Detail", "params": {"item": 42}},
                       animator={"style": "slide", "duration": 0.3, "curve": "easeInOut"})
    print("push started: transition", push["transition"], "screen", push["screen"]["id"])
    ticks = {}
    wait_for_end(client, navigator, push["transition"], ticks)

    # 2. An interactive pop, as an edge-pan gesture would drive it: begin, updates, finish.
    pop = client.call("begin", navigator=navigator, operation="pop", owner="example-script")
    for step in range(1, 8):
        reply = client.call("update", navigator=navigator, owner="example-script", percent=step / 10)
        assert abs(reply["percent"] - step / 10) < 1e-9, reply
        time.sleep(1 / 60)
    finish = client.call("finish", navigator=navigator, owner="example-script", velocity=0.5)
    assert finish["decision"] == "finish", finish
    wait_for_end(client, navigator, pop["transition"], ticks)

    state = client.call("state", navigator=navigator)
    assert [s["name"] for s in state["stack"]] == ["Home"], state
    assert state["transition"] is None, state
    client.call("close", navigator=navigator)
    return ticks, client.call("stats")["missedFrames"] - missed_before


def wait_for_end(client, navigator, transition, ticks):
    """Reads events and ticks until the transition's final tick; collects every tick by transition."""
    while True:
        topic, body = client.receive()
        if topic.startswith("tick/"):
            assert body["navigator"] == navigator, body
            ticks.setdefault(body["transition"], []).append(body)
            if body["transition"] == transition and body["final"]:
                return
        elif body["type"] in ("transition.completed", "transition.cancelled"):
            print(body["type"], "transition", body["data"]["transition"], "at frame", body["frame"])


def check(ticks, skipped):
    """The tick invariants of docs/protocol.md: one tick per frame but for the frames the daemon
    skipped (stats' missedFrames), frames going forward, only the last tick final, with fraction 1."""
    problems = []
    lacking = 0
    for transition, seq in sorted(ticks.items()):
        frames = [t["frame"] for t in seq]
        if any(b <= a for a, b in zip(frames, frames[1:])):
            problems.append(f"transition {transition}: frames do not go forward: {frames}")
        lacking += frames[-1] - frames[0] + 1 - len(frames)
        if any(not 0 <= t["fraction"] <= 1 for t in seq):
            problems.append(f"transition {transition}: a fraction left [0, 1]")
        if [t["final"] for t in seq] != [False] * (len(seq) - 1) + [True]:
            problems.append(f"transition {transition}: only the last tick may be final")
        if seq[-1]["fraction"] != 1 or seq[-1]["phase"] != "completed":
            problems.append(f"transition {transition}: the final tick is {seq[-1]}")
        print(f"transition {transition}: {len(seq)} ticks, frames {frames[0]}..{frames[-1]}, "
              f"phases {sorted(set(t['phase'] for t in seq))}")
    if len(ticks) != 2:
        problems.append(f"expected ticks of 2 transitions, got {sorted(ticks)}")
    if lacking > skipped:
        problems.append(f"{lacking} frames lack their tick, but the daemon skipped only {skipped}")
    return problems


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--command", default="tcp://127.0.0.1:7400", help="segued's command endpoint")
    parser.add_argument("--publish", default="tcp://127.0.0.1:7401", help="segued's publish endpoint")
    args = parser.parse_args()
    client = Client(args.command, args.publish)
    try:
        problems = check(*run(client, "example-" + uuid.uuid4().hex[:8]))
    except (SegueError, TimeoutError, AssertionError) as error:
        problems = [f"{type(error).__name__}: {error}"]
    finally:
        client.close()
    for problem in problems:
        print("FAIL", problem, file=sys.stderr)
    print("OK" if not problems else "FAILED")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
