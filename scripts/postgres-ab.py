#!/usr/bin/env python3
"""Durable push round trips of two segued builds on one PostgreSQL server, interleaved command by command.

    scripts/postgres-ab.py OLD_SEGUED NEW_SEGUED [--rounds 3000] [--gap-us 300]

Both builds run at once, each on a database of its own on the server that PGHOST and PGPORT name
(e.g. `eval "$(scripts/pg-test-server.sh start /tmp/pg)"`; PGUSER must be allowed to create
databases). One pyzmq DEALER per daemon sends non-animated push/pop pairs, waiting for each reply
and --gap-us after it, alternating between the daemons every command (which goes first swaps every
round). So the server's and the machine's drift hit both builds alike, which `segue-bench`'s
separate runs cannot promise: there the limit moves by more than a few microseconds between runs.
Prints each build's push p50 and the difference (docs/performance.md). The second daemon comes out
a few microseconds ahead even against itself (-4.8 and -3.1 us here), so run each comparison both
ways round and take the mean. The first 200 rounds warm up and are not counted. Needs pyzmq and psql.
"""
import argparse, json, os, statistics, subprocess, time
import zmq

from script_support import free_port


def psql(sql):
    subprocess.run(["psql", "-q", "-d", "postgres", "-c", sql], check=True)


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("old")
    parser.add_argument("new")
    parser.add_argument("--rounds", type=int, default=3000)
    parser.add_argument("--gap-us", type=int, default=300)
    args = parser.parse_args()
    host, port = os.environ.get("PGHOST"), os.environ.get("PGPORT", "5432")
    if not host:
        raise SystemExit("postgres-ab.py: set PGHOST and PGPORT (scripts/pg-test-server.sh env DIR prints them)")
    user = os.environ.get("PGUSER", "")
    context = zmq.Context()
    daemons, sockets = [], []
    try:
        for index, binary in enumerate([args.old, args.new]):
            database = "segue_ab_%d_%d" % (os.getpid(), index)
            psql("CREATE DATABASE " + database)
            url = "postgresql:///%s?host=%s&port=%s" % (database, host, port) + ("&user=" + user if user else "")
            endpoint = "tcp://127.0.0.1:%d" % free_port()
            daemon = subprocess.Popen(
                [binary, "--store-url", url, "--command", endpoint,
                 "--publish", "tcp://127.0.0.1:%d" % free_port(), "--log-level", "warning"])
            daemons.append((daemon, database))
            dealer = context.socket(zmq.DEALER)
            dealer.setsockopt(zmq.RCVTIMEO, 10000)
            dealer.connect(endpoint)
            sockets.append(dealer)

        def call(dealer, body):
            dealer.send_multipart([b"", body])
            return dealer.recv_multipart()[-1]

        for dealer in sockets:
            for attempt in range(100):
                try:
                    call(dealer, json.dumps({"cmd": "create", "navigator": "ab", "root": "Home"}).encode())
                    break
                except zmq.Again:
                    if attempt == 99:
                        raise SystemExit("postgres-ab.py: a daemon did not answer")
        push = json.dumps({"cmd": "push", "navigator": "ab", "screen": "Detail", "animated": False}).encode()
        pop = json.dumps({"cmd": "pop", "navigator": "ab", "animated": False}).encode()
        times = [[], []]
        for round_ in range(args.rounds + 200):
            for index in ([0, 1] if round_ % 2 == 0 else [1, 0]):
                for body in (push, pop):
                    time.sleep(args.gap_us / 1e6)
                    start = time.perf_counter_ns()
                    reply = call(sockets[index], body)
                    elapsed = time.perf_counter_ns() - start
                    if not reply.startswith(b'{"ok":true'):
                        raise SystemExit("postgres-ab.py: %s" % reply[:200].decode(errors="replace"))
                    if round_ >= 200 and body is push:
                        times[index].append(elapsed / 1000)
    finally:
        for daemon, _ in daemons:
            daemon.terminate()
            daemon.wait()
        for _, database in daemons:
            psql("DROP DATABASE IF EXISTS " + database)
    old, new = statistics.median(times[0]), statistics.median(times[1])
    print("old p50 %.1f µs, new p50 %.1f µs, new - old %+.1f µs (%d pushes each)" % (old, new, new - old, len(times[0])))


if __name__ == "__main__":
    main()
