#!/usr/bin/env python3
"""Follow every navigator from its events alone and check the daemon's state digests.

Usage: python3 digest_follower.py [--command tcp://127.0.0.1:7400] [--publish tcp://127.0.0.1:7401]
                                  [--drive NAVIGATOR] [--corrupt-after SEQ] [--seconds N]

Folds every event into what a frontend shows (stack and modals, ids and routes), recomputes the
digest of docs/protocol.md, "State digests", and compares it with the event's `digest`, with every
final tick's, and with each heartbeat's fleet digest. It joins as docs/protocol.md, "Late joiners",
says for a global view, but takes the log before it from `history` (every event from seq 1) rather
than from snapshots: then it has folded every navigator, those created before it started included,
and the fleet digest is comparable once its seq cursor reaches a heartbeat's `seq`. Every event
moves the cursor, also one it drops because `history` gave it already; a gap, or a heartbeat past
the cursor, is filled from `history`. It does not follow a daemon restart. `--drive` sends a
session of commands to a new navigator first (a test runs it so); `--corrupt-after SEQ` also runs a
second frontend whose fold is damaged right after event SEQ, which must notice at the next event.
Prints a JSON summary and exits 0 when the honest frontend agreed with the daemon everywhere.
"""
import argparse
import hashlib
import json
import sys
import time
import uuid

import zmq


def canonical(navigator, revision, stack, modals):
    """The canonical encoding: compact JSON, screens as [id, name] pairs (no params)."""
    value = [navigator, revision, [[s["id"], s["name"]] for s in stack], [[m["id"], m["name"]] for m in modals]]
    return json.dumps(value, separators=(",", ":")).encode("utf-8")


class Fold:
    """One navigator as a frontend folds it: the stack changes at `transition.completed` to what its
    `transition.started` said it would be; every event moves the revision."""

    def __init__(self, name):
        self.name = name
        self.revision = 0
        self.stack = []
        self.modals = []
        self.pending = {}

    def apply(self, event):
        self.revision = event["revision"]
        data = event["data"]
        kind = event["type"]
        if kind == "navigator.created":
            self.stack, self.modals = [data["root"]], []
        elif kind == "transition.started":
            self.pending[data["transition"]] = (data["stack"], data["modals"])
        elif kind == "transition.completed":
            target = self.pending.pop(data["transition"], None)
            if target is not None:
                self.stack, self.modals = target
        elif kind == "transition.cancelled":
            self.pending.pop(data["transition"], None)

    def digest(self):
        return hashlib.sha256(canonical(self.name, self.revision, self.stack, self.modals)).hexdigest()


class Frontend:
    """Every navigator's fold, and what it found when comparing with the daemon."""

    def __init__(self):
        self.folds = {}
        self.by_revision = {}
        self.checked = {"events": 0, "finalTicks": 0, "heartbeats": 0}
        self.mismatches = []

    def event(self, event):
        fold = self.folds.setdefault(event["navigator"], Fold(event["navigator"]))
        fold.apply(event)
        mine = fold.digest()
        self.by_revision[(fold.name, fold.revision)] = mine
        self.compare("events", mine, event["digest"], seq=event["seq"], type=event["type"])

    def tick(self, tick):
        if not tick["final"]:
            assert "digest" not in tick, "only final ticks carry a digest"
            return
        mine = self.by_revision.get((tick["navigator"], tick["revision"]))
        self.compare("finalTicks", mine, tick["digest"], frame=tick["frame"], revision=tick["revision"])

    def heartbeat(self, heartbeat):
        """Only for a heartbeat whose `seq` is the last event folded: its fleet digest is as of that seq."""
        if heartbeat.get("digest") is None:
            return
        total = sum(int(fold.digest()[:16], 16) for fold in self.folds.values()) % 2**64
        self.compare("heartbeats", format(total, "016x"), heartbeat["digest"], seq=heartbeat["seq"])

    def compare(self, what, mine, theirs, **where):
        self.checked[what] += 1
        if mine != theirs:
            self.mismatches.append({"what": what, "mine": mine, "daemon": theirs, **where})


class Driver:
    """One DEALER socket: sends a command and waits for its reply."""

    def __init__(self, context, endpoint):
        self.socket = context.socket(zmq.DEALER)
        self.socket.setsockopt(zmq.LINGER, 0)
        self.socket.connect(endpoint)

    def call(self, cmd, **arguments):
        request = {"cmd": cmd, "id": str(uuid.uuid4()), **arguments}
        self.socket.send(json.dumps(request).encode("utf-8"))
        if not self.socket.poll(5000):
            raise TimeoutError(f"no reply to {cmd}")
        reply = json.loads(self.socket.recv())
        if not reply["ok"]:
            raise RuntimeError(f"{cmd}: {reply['error']}")
        return reply


def session(navigator):
    """Commands with what to wait for after each: a final tick (an animation) or nothing."""
    quick = {"duration": 0.1}
    return [
        ({"cmd": "create", "root": "Home"}, None),
        ({"cmd": "push", "screen": "List", "animator": quick}, "final"),
        ({"cmd": "push", "screen": {"name": "Detail", "params": {"item": 7}}, "animated": False}, "final"),
        ({"cmd": "present", "screen": "Sheet", "animator": quick}, "final"),
        ({"cmd": "dismiss", "animator": quick}, "final"),
        ({"cmd": "begin", "operation": "pop"}, None),
        ({"cmd": "update", "percent": 0.3}, None),
        ({"cmd": "cancel", "completionSpeed": 4}, "final"),
        ({"cmd": "begin", "operation": "pop"}, None),
        ({"cmd": "update", "percent": 0.7, "velocity": 1.5}, None),
        ({"cmd": "finish"}, "final"),
        ({"cmd": "setStack", "screens": ["s1", "A", "B"], "animated": False}, "final"),
        ({"cmd": "popToRoot", "animator": quick}, "final"),
        ({"cmd": "push", "screen": "Slow", "animator": {"duration": 0.5}}, None),
        ({"cmd": "pause"}, None),
        ({"cmd": "seek", "fraction": 0.5}, None),
        ({"cmd": "resume"}, "final"),
        ({"cmd": "close"}, None),
    ]


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--command", default="tcp://127.0.0.1:7400")
    parser.add_argument("--publish", default="tcp://127.0.0.1:7401")
    parser.add_argument("--drive", metavar="NAVIGATOR")
    parser.add_argument("--corrupt-after", type=int, metavar="SEQ")
    parser.add_argument("--seconds", type=float, default=3.0, help="how long to follow after the session")
    args = parser.parse_args()

    context = zmq.Context()
    feed = context.socket(zmq.SUB)
    feed.setsockopt(zmq.LINGER, 0)
    feed.connect(args.publish)
    for topic in ("event/", "tick/", "hb/"):
        feed.setsockopt_string(zmq.SUBSCRIBE, topic)

    honest = Frontend()
    damaged = Frontend() if args.corrupt_after is not None else None
    frontends = [f for f in (honest, damaged) if f is not None]
    driver = Driver(context, args.command)
    cursor = 0  # the seq of the last event folded: every event up to it is folded, none after
    finals = 0

    def fold(event):
        nonlocal cursor
        for frontend in frontends:
            frontend.event(json.loads(json.dumps(event)))  # each frontend folds its own copy
        cursor = event["seq"]
        if damaged is not None and event["seq"] == args.corrupt_after:
            # A frontend that got one screen wrong: the route of its top screen.
            damaged_fold = damaged.folds[event["navigator"]]
            top = damaged_fold.modals[-1] if damaged_fold.modals else damaged_fold.stack[-1]
            top["name"] = top["name"] + "X"

    def catch_up():
        """Folds the events after the cursor from `history`, up to the end of the log."""
        while True:
            page = driver.call("history", after=cursor, limit=1000)
            for event in page["events"]:
                fold(event)
            if not page["more"]:
                return

    def receive(timeout):
        """Handles one publication; False when none came within `timeout` seconds."""
        nonlocal finals
        if not feed.poll(int(timeout * 1000)):
            return False
        topic, raw = feed.recv_multipart()
        topic = topic.decode("utf-8")
        body = json.loads(raw)
        if topic.startswith("event/"):
            if body["seq"] > cursor + 1:
                catch_up()  # events were lost: the gap, and this one, come from history
            if body["seq"] == cursor + 1:
                fold(body)
            # An event at or below the cursor is folded already (history gave it first).
        elif topic.startswith("tick/"):
            known = honest.folds.get(body["navigator"])
            if known is None or known.revision < body["revision"]:
                catch_up()  # the tick is ahead of the events folded: some were lost
            for frontend in frontends:
                frontend.tick(body)
            if body["final"]:
                finals += 1
        elif topic == "hb/":
            if body["seq"] > cursor:
                catch_up()  # events up to its seq were published before it: these were lost
            if body["seq"] == cursor:
                for frontend in frontends:
                    frontend.heartbeat(body)
            # A heartbeat below the cursor waited in the queue behind a history page that went further.
        return True

    # A heartbeat first: then the subscriptions are in place (ZeroMQ's slow joiner). Then the log
    # so far: every event published from now on is either in it or after it.
    while True:
        if not feed.poll(5000):
            raise TimeoutError("no heartbeat within 5 s; is segued running?")
        topic, _ = feed.recv_multipart()
        if topic == b"hb/":
            break
    catch_up()

    if args.drive:
        for request, wait in session(args.drive):
            before = finals
            driver.call(navigator=args.drive, **request)
            deadline = time.monotonic() + 5
            while wait == "final" and finals == before and time.monotonic() < deadline:
                receive(0.1)
    end = time.monotonic() + args.seconds
    while time.monotonic() < end:
        receive(0.05)
    driver.socket.close()
    feed.close()
    context.term()

    summary = {"honest": {"checked": honest.checked, "mismatches": honest.mismatches}}
    if damaged is not None:
        summary["damaged"] = {"checked": damaged.checked, "mismatches": damaged.mismatches}
    print(json.dumps(summary))
    return 0 if not honest.mismatches and honest.checked["events"] > 0 else 1


if __name__ == "__main__":
    sys.exit(main())
