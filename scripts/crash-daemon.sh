#!/usr/bin/env bash
# Crash safety end to end (docs/reliability.md): runs segued under 16 clients sending a mix of
# commands, SIGKILLs it at a random moment, restarts it on the same data dir, and checks after each
# round that
#   - every command answered `ok` is in the log (an event with its request id; the reply's seq holds
#     an event of its navigator at the reply's revision),
#   - every event a subscriber saw before the kill is in the log, byte-identical,
#   - seqs and per-navigator revisions are gapless,
#   - each navigator's live state equals the fold of its log (`state` vs `state` with `at`),
#   - no interactive transition survives a restart, and each one that was interactive at the kill
#     ended with `transition.cancelled` reason `recovery` (docs/design.md, "Recovery").
# Prints one line per round and a summary; exits 0 only with zero losses and zero violations.
#
#   scripts/crash-daemon.sh [ROUNDS]            (default 100; SEGUED=path/to/segued, default .build/debug)
#   CRASH_SEED=7 CRASH_CLIENTS=16 CRASH_SNAPSHOT_EVERY=150 scripts/crash-daemon.sh 10
#   CRASH_DURABILITY=relaxed scripts/crash-daemon.sh 100   (events in the WAL, not fsynced, when `ok`
#                                                          goes out: a SIGKILL must still lose none)
#
# On PostgreSQL: CRASH_STORE_URL=postgresql://… runs segued with --store-url. With CRASH_PG_DIR (a
# server of scripts/pg-test-server.sh) and CRASH_SERVER_KILLS=N, N of the rounds kill the PostgreSQL
# server instead (`pg_ctl stop -m immediate`) under load and start it again: commands during the
# outage must get `unavailable`, service must resume without restarting segued, and nothing
# acknowledged may be lost.
#   scripts/pg-test-server.sh start /tmp/pg && CRASH_PG_DIR=/tmp/pg CRASH_SERVER_KILLS=10 \
#     CRASH_STORE_URL="postgresql:///postgres?host=/tmp/pg&port=$(cat /tmp/pg/port)&user=segue" \
#     scripts/crash-daemon.sh 100
set -euo pipefail
cd "$(dirname "$0")/.."
export CRASH_ROUNDS=${1:-100}
export SEGUED=${SEGUED:-.build/debug/segued}
[ -x "$SEGUED" ] || { echo "crash-daemon: no segued at $SEGUED (build it, or set SEGUED)" >&2; exit 2; }
python3 -c 'import zmq' 2>/dev/null || { echo "crash-daemon: needs pyzmq (python3 -m pip install pyzmq)" >&2; exit 2; }
exec python3 - <<'PYTHON'
import json, os, random, shutil, signal, subprocess, sys, tempfile, threading, time
import zmq

sys.path.insert(0, "scripts")  # run from the repository root (the cd above)
from script_support import free_port

ROUNDS = int(os.environ["CRASH_ROUNDS"])
SEGUED = os.environ["SEGUED"]
CLIENTS = int(os.environ.get("CRASH_CLIENTS", "16"))
SEED = int(os.environ.get("CRASH_SEED", str(int(time.time()))))
DURABILITY = os.environ.get("CRASH_DURABILITY", "full")
STORE_URL = os.environ.get("CRASH_STORE_URL", "")
PG_DIR = os.environ.get("CRASH_PG_DIR", "")
SERVER_KILLS = int(os.environ.get("CRASH_SERVER_KILLS", "0"))
if SERVER_KILLS and not (PG_DIR and STORE_URL):
    sys.exit("crash-daemon: CRASH_SERVER_KILLS needs CRASH_PG_DIR and CRASH_STORE_URL")
if DURABILITY not in ("full", "relaxed"):
    sys.exit(f"crash-daemon: CRASH_DURABILITY must be full or relaxed, not {DURABILITY!r}")
rng = random.Random(SEED)
ctx = zmq.Context()


data_dir = tempfile.mkdtemp(prefix="segue-crash-")
command = f"tcp://127.0.0.1:{free_port()}"
publish = f"tcp://127.0.0.1:{free_port()}"
log_file = open(os.path.join(data_dir, "segued.log"), "ab")
# Frequent checkpoints, so kills land before, during and after snapshot writes and restarts fold
# from snapshots plus a tail, not only from the start of the log.
config_path = os.path.join(data_dir, "segued.json")
with open(config_path, "w") as f:
    json.dump({"snapshotEvery": int(os.environ.get("CRASH_SNAPSHOT_EVERY", "150")), "durability": DURABILITY}, f)


request_counter = [0]


def call(sock, request, timeout_ms=2000, raw=False):
    """Sends `request` and returns the reply with its id (a stale reply to an earlier, timed-out
    request is skipped); None on timeout."""
    if "id" not in request:
        request_counter[0] += 1
        request = dict(request, id=f"q{request_counter[0]}")
    sock.send(json.dumps(request).encode())
    deadline = time.time() + timeout_ms / 1000
    while True:
        left = int((deadline - time.time()) * 1000)
        if left <= 0 or sock.poll(left) == 0:
            return None
        body = sock.recv()
        reply = json.loads(body)
        if reply.get("id") == request["id"]:
            return (reply, body) if raw else reply


def start_daemon():
    proc = subprocess.Popen(
        [SEGUED, "--config", config_path, "--data-dir", data_dir, "--command", command, "--publish", publish, "--log-level", "notice"]
        + (["--store-url", STORE_URL] if STORE_URL else []),
        stdout=log_file, stderr=log_file)
    sock = ctx.socket(zmq.DEALER)
    sock.setsockopt(zmq.LINGER, 0)
    sock.connect(command)
    deadline = time.time() + 20
    try:
        while time.time() < deadline:
            if proc.poll() is not None:
                sys.exit(f"segued exited during start-up (status {proc.returncode}); see {data_dir}/segued.log")
            reply = call(sock, {"cmd": "ping"}, 200)
            if reply and reply.get("ok"):
                # The rounds must test the durability asked for, not whatever the config defaulted to.
                stats = call(sock, {"cmd": "stats"}, 2000)
                running = ((stats or {}).get("store") or {}).get("durability")
                if running != DURABILITY:
                    sys.exit(f"crash-daemon: segued runs with durability {running!r}, not {DURABILITY!r}")
                return proc, sock
    except Exception:
        sock.close()
        raise
    sys.exit("segued did not answer ping within 20 s")


def split_events(raw):
    """The raw bytes of each event object in a history reply, so bodies compare byte for byte."""
    marker = raw.find(b'"events":[')
    if marker < 0:
        sys.exit(f"history reply without events: {raw[:300]!r}")
    start = marker + len(b'"events":[')
    out, depth, in_string, escape, begin = [], 0, False, False, None
    for i in range(start, len(raw)):
        c = raw[i]
        if in_string:
            if escape:
                escape = False
            elif c == 0x5C:
                escape = True
            elif c == 0x22:
                in_string = False
        elif c == 0x22:
            in_string = True
        elif c == 0x7B:
            if depth == 0:
                begin = i
            depth += 1
        elif c == 0x7D:
            depth -= 1
            if depth == 0:
                out.append(raw[begin:i + 1])
        elif c == 0x5D and depth == 0:
            break
    return out


def history_after(sock, after):
    """Every durable event after `after`: (parsed, raw bytes) in seq order."""
    events = []
    while True:
        answer = call(sock, {"cmd": "history", "after": after, "limit": 10000}, 10000, raw=True)
        if answer is None:
            sys.exit("history timed out")
        reply, raw = answer
        assert reply["ok"], reply
        pieces = split_events(raw)
        assert len(pieces) == len(reply["events"])
        events += list(zip(reply["events"], pieces))
        after = reply["next"]
        if not reply["more"]:
            return events


class Client(threading.Thread):
    """Sends one command at a time to its own two navigators and records every `ok` reply."""

    def __init__(self, index, round_no, stop, outlive_timeouts=False):
        super().__init__(daemon=True)
        self.index, self.round_no, self.stop = index, round_no, stop
        # In a server round segued stays up: a command without a reply in time is left unknown
        # and the client goes on.
        self.outlive_timeouts = outlive_timeouts
        self.acked = {}  # request id -> (cmd, reply)
        self.sent = 0
        self.errors = {}  # error code -> count (busy, cannot_pop_root, ... are expected)
        self.rng = random.Random(rng.random())

    def run(self):
        sock = ctx.socket(zmq.DEALER)
        sock.setsockopt(zmq.LINGER, 0)
        sock.connect(command)
        navs = [f"c{self.index}n{k}" for k in range(2)]
        owner = f"owner{self.index}"
        n = 0
        try:
            while not self.stop.is_set():
                nav = self.rng.choice(navs)
                n += 1
                rid = f"r{self.round_no}c{self.index}i{n}"
                duration = self.rng.choice([0.05, 0.1, 0.2, 0.4])
                choice = self.rng.randrange(12)
                base = {"id": rid, "navigator": nav}
                if choice == 0:
                    req = {"cmd": "create", "root": "Home", "interactionTimeout": 30}
                elif choice in (1, 2):
                    req = {"cmd": "push", "screen": self.rng.choice(["List", "Detail", {"name": "P", "params": {"n": n}}]),
                           "animated": True, "animator": {"duration": duration}}
                elif choice == 3:
                    req = {"cmd": "push", "screen": "Flat", "animated": False}
                elif choice == 4:
                    req = {"cmd": "pop", "animated": True, "animator": {"duration": duration}}
                elif choice == 5:
                    req = {"cmd": "pop", "animated": False}
                elif choice == 6:
                    req = {"cmd": "begin", "operation": self.rng.choice(["pop", "push"]), "screen": "Swipe",
                           "owner": owner}
                elif choice in (7, 8):
                    req = {"cmd": "update", "percent": round(self.rng.random(), 3), "owner": owner}
                elif choice == 9:
                    req = {"cmd": "end", "percent": round(self.rng.random(), 3), "owner": owner}
                elif choice == 10:
                    req = {"cmd": "present", "screen": "Sheet", "animator": {"duration": duration}}
                else:
                    req = {"cmd": "dismiss", "animated": self.rng.random() < 0.5}
                if req["cmd"] == "begin" and req["operation"] == "pop":
                    del req["screen"]
                req.update(base)
                self.sent += 1
                try:
                    reply = call(sock, req, 1000)
                except zmq.ZMQError:
                    return
                if reply is None:
                    if self.outlive_timeouts:
                        continue
                    return  # the daemon is gone; this command's outcome is unknown
                assert reply.get("id") == rid, (req, reply)
                if reply.get("ok"):
                    self.acked[rid] = (req["cmd"], reply)
                else:
                    code = reply["error"]["code"]
                    self.errors[code] = self.errors.get(code, 0) + 1
                    if code in ("busy", "not_interactive"):
                        time.sleep(self.rng.uniform(0.005, 0.03))  # a transition is in flight: let it run
        finally:
            sock.close()


class Subscriber(threading.Thread):
    """Collects every event published on `event/` until the daemon dies."""

    def __init__(self, stop):
        super().__init__(daemon=True)
        self.stop = stop
        self.events = []  # (seq, raw body)
        self.ready = threading.Event()

    def run(self):
        sock = ctx.socket(zmq.SUB)
        sock.setsockopt(zmq.LINGER, 0)
        sock.setsockopt(zmq.RCVHWM, 0)
        sock.setsockopt(zmq.SUBSCRIBE, b"event/")
        sock.setsockopt(zmq.SUBSCRIBE, b"hb/")
        sock.connect(publish)
        while not self.stop.is_set():
            if sock.poll(100) == 0:
                continue
            topic, body = sock.recv_multipart()
            if topic == b"hb/":
                self.ready.set()
            else:
                self.events.append((json.loads(body)["seq"], body))
        sock.close()


totals = {"acked": 0, "sent": 0, "subscriber_events": 0, "losses": 0, "violations": 0, "recovery_cancels": 0,
          "events": 0, "states_compared": 0}
revisions = {}  # navigator -> last revision verified
interactive = {}  # navigator -> transition id that is interactive in the verified log
verified_seq = 0
errors = {}


def violation(message):
    totals["violations"] += 1
    print(f"  VIOLATION: {message}", flush=True)


def verify(sock, acked, seen, round_no, restarted=True):
    """Checks the log of the restarted daemon against what clients and the subscriber saw."""
    global verified_seq
    events = history_after(sock, verified_seq)
    by_seq = {}
    by_command = {}
    for event, raw in events:
        seq = event["seq"]
        if seq != verified_seq + 1:
            violation(f"seq {seq} follows {verified_seq}")
        verified_seq = seq
        by_seq[seq] = (event, raw)
        nav = event["navigator"]
        if event["revision"] != revisions.get(nav, 0) + 1:
            violation(f"{nav} revision {event['revision']} follows {revisions.get(nav, 0)} at seq {seq}")
        revisions[nav] = event["revision"]
        if event["command"] is not None:
            by_command.setdefault(event["command"], []).append(seq)
        kind, data = event["type"], event["data"]
        if kind == "transition.started" and data.get("interactive"):
            interactive[nav] = data["transition"]
        elif kind == "transition.interrupted":
            interactive[nav] = data["transition"]
        elif kind in ("transition.finishing", "transition.cancelling", "transition.completed", "navigator.closed"):
            interactive.pop(nav, None)
        elif kind == "transition.cancelled":
            if data.get("reason") == "recovery":
                totals["recovery_cancels"] += 1
                if interactive.get(nav) != data["transition"]:
                    violation(f"{nav}: recovery cancelled transition {data['transition']}, which was not interactive")
            interactive.pop(nav, None)
    totals["events"] += len(events)
    if interactive and restarted:
        violation(f"interactive transitions survived the restart: {interactive}")
    # Every acknowledged command is in the log.
    lost = 0
    for rid, (cmd, reply) in acked.items():
        seqs = by_command.get(rid)
        at = by_seq.get(reply["seq"])
        if not seqs or at is None or at[0]["navigator"] != reply["navigator"] or at[0]["revision"] != reply["revision"]:
            lost += 1
            print(f"  LOST: {cmd} {rid} acknowledged at seq {reply['seq']} is not in the log", flush=True)
    # Every event a subscriber saw is in the log, byte for byte, state digest included (history
    # folds it from the log again).
    for seq, body in seen:
        stored = by_seq.get(seq)
        if stored is None or stored[1] != body:
            lost += 1
            print(f"  LOST: published event {seq} is {'missing' if stored is None else 'different'} after restart",
                  flush=True)
    totals["losses"] += lost
    totals["acked"] += len(acked)
    totals["subscriber_events"] += len(seen)
    # Live state equals the fold of the log, for every navigator this round touched.
    for nav in sorted({e["navigator"] for e, _ in events}):
        live = call(sock, {"cmd": "state", "navigator": nav}, 5000)
        folded = call(sock, {"cmd": "state", "navigator": nav, "at": live["seq"]}, 5000)
        keys = ("revision", "status", "stack", "modals")
        if any(live[k] != folded[k] for k in keys) or \
                (live["transition"] or {}).get("id") != (folded["transition"] or {}).get("id") or \
                (live["transition"] or {}).get("phase") != (folded["transition"] or {}).get("phase"):
            violation(f"{nav}: live state {live} differs from the fold {folded}")
        if restarted and live["transition"] and live["transition"]["phase"] == "interactive":
            violation(f"{nav}: transition {live['transition']['id']} is interactive after a restart")
        totals["states_compared"] += 1
    return lost


def pg_server(*arguments):
    subprocess.run(["bash", "scripts/pg-test-server.sh", *arguments, ], check=True, stdout=subprocess.DEVNULL)


def server_outage(sock, round_no):
    """Kills the PostgreSQL server under load, starts it again, and waits until segued stores a
    command again by itself. Returns the probe's acknowledgement (checked like the clients')."""
    pg_server("stop", PG_DIR, "immediate")
    time.sleep(rng.uniform(0.3, 0.8))  # the outage: every command in it must get `unavailable`
    pg_server("restart", PG_DIR)
    came_back = time.time()
    probe = {"cmd": "create", "id": f"probe{round_no}", "navigator": f"probe{round_no}", "root": "Home"}
    while time.time() - came_back < 30:
        reply = call(sock, probe, 2000)
        if reply and reply.get("ok"):
            totals["resume_seconds"] = max(totals["resume_seconds"], time.time() - came_back)
            return {probe["id"]: ("create", reply)}
        time.sleep(0.05)
    violation(f"round {round_no}: segued did not store a command within 30 s of the server's restart")
    return {}


server_rounds = set(rng.sample(range(2, ROUNDS + 1), min(SERVER_KILLS, ROUNDS - 1))) if SERVER_KILLS else set()
totals.update(server_rounds=len(server_rounds), outage_unavailable=0, resume_seconds=0.0)
started = time.time()
proc, sock = start_daemon()
print(f"crash-daemon: {ROUNDS} rounds, {CLIENTS} clients, seed {SEED}, data {data_dir}"
      + (f", store {STORE_URL}, server killed in rounds {sorted(server_rounds)}" if STORE_URL else ""), flush=True)
for round_no in range(1, ROUNDS + 1):
    server_round = round_no in server_rounds
    stop = threading.Event()
    subscriber = Subscriber(stop)
    subscriber.start()
    subscriber.ready.wait(3)
    clients = [Client(i, round_no, stop, outlive_timeouts=server_round) for i in range(CLIENTS)]
    for c in clients:
        c.start()
    time.sleep(rng.uniform(0.15, 0.9))
    acked = {}
    if server_round:
        acked.update(server_outage(sock, round_no))
        time.sleep(0.2)  # load on the resumed store
    else:
        proc.send_signal(signal.SIGKILL)
        proc.wait()
        time.sleep(0.05)
    stop.set()
    for c in clients:
        c.join()
    subscriber.join()
    if server_round:
        unavailable = sum(c.errors.get("unavailable", 0) for c in clients)
        totals["outage_unavailable"] += unavailable
        if unavailable == 0:
            violation(f"round {round_no}: no command got `unavailable` while the server was down")
    else:
        sock.close()
        proc, sock = start_daemon()
    for c in clients:
        acked.update(c.acked)
        totals["sent"] += c.sent
        for code, n in c.errors.items():
            errors[code] = errors.get(code, 0) + n
    lost = verify(sock, acked, subscriber.events, round_no, restarted=not server_round)
    print(f"round {round_no}{' (server killed)' if server_round else ''}: {len(acked)} acked of {sum(c.sent for c in clients)} sent, "
          f"{len(subscriber.events)} published events checked, log at seq {verified_seq}, losses {lost}", flush=True)

proc.send_signal(signal.SIGTERM)
status = proc.wait(10)
sock.close()
elapsed = time.time() - started
print(f"SUMMARY rounds={ROUNDS} durability={DURABILITY} acked={totals['acked']} sent={totals['sent']} "
      f"subscriber_events={totals['subscriber_events']} events={totals['events']} "
      f"states_compared={totals['states_compared']} recovery_cancels={totals['recovery_cancels']} "
      f"losses={totals['losses']} violations={totals['violations']} final_exit={status} seconds={elapsed:.1f}"
      + (f" server_rounds={totals['server_rounds']} outage_unavailable={totals['outage_unavailable']} "
         f"resume_seconds={totals['resume_seconds']:.2f}" if STORE_URL else ""),
      flush=True)
print(f"refused commands by error code: {dict(sorted(errors.items()))}", flush=True)
ok = totals["losses"] == 0 and totals["violations"] == 0 and status == 0
if ok:
    shutil.rmtree(data_dir, ignore_errors=True)
else:
    print(f"crash-daemon: FAILED; data dir kept at {data_dir}", flush=True)
ctx.term()
sys.exit(0 if ok else 1)
PYTHON
