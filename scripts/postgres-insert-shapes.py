#!/usr/bin/env python3
"""What the server spends on segued's insert beyond the benchmark limit's, shape by shape.

    scripts/postgres-insert-shapes.py [--rounds 3000] [shape,...]

Creates one table per shape in the database that the libpq environment names (PGHOST, PGPORT,
PGUSER, PGDATABASE; e.g. `eval "$(scripts/pg-test-server.sh env /tmp/pg)"`), then inserts into each
in turn, round by round, each insert its own transaction with `synchronous_commit = on`, prepared,
and prints each shape's p50 round trip. Rounds alternate the shapes, so the machine's drift hits all
alike. Shapes: limit (segue-bench's raw table and row), events (segued's table as schema version 2
had it, a push's two rows), nocheck (without the CHECKs), text (data as text), both, noindex
(without the (navigator, revision) key), onerow (one row). Drops its tables at the end. Needs
psycopg (docs/performance.md, "The server's share of a commit").
"""
import argparse, json, statistics, time
import psycopg

STARTED = json.dumps(
    {"transition": 1, "operation": "push", "from": {"id": "s1", "name": "Home"}, "to": {"id": "s2", "name": "Detail"},
     "popped": [], "stack": [{"id": "s1", "name": "Home"}, {"id": "s2", "name": "Detail"}], "modals": [],
     "animator": {"style": "slide", "edge": None, "duration": 0.35, "curve": "default", "parallax": 0.3,
                  "scale": 0.8, "offset": {"x": 0.0, "y": 0.0}, "fade": False},
     "animated": False, "interactive": False, "nextScreen": 3}, separators=(",", ":"))
COMPLETED = '{"transition":1}'


def events(checks=True, data="json", key=True):
    return (f"seq bigint PRIMARY KEY {'CHECK (seq > 0)' if checks else ''}, navigator text COLLATE \"C\" NOT NULL, "
            f"revision bigint NOT NULL {'CHECK (revision > 0)' if checks else ''}, type text NOT NULL, "
            f"version integer NOT NULL, frame bigint NOT NULL, time bigint NOT NULL, command bytea, "
            f"data {data} NOT NULL" + (", UNIQUE (navigator, revision)" if key else ""))


SHAPES = {
    "limit": ("seq bigint PRIMARY KEY, data json", 0),
    "events": (events(), 2),
    "nocheck": (events(checks=False), 2),
    "text": (events(data="text"), 2),
    "both": (events(checks=False, data="text"), 2),
    "noindex": (events(key=False), 2),
    "onerow": (events(), 1),
}


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--rounds", type=int, default=3000)
    parser.add_argument("shapes", nargs="?", default=",".join(SHAPES))
    args = parser.parse_args()
    shapes = args.shapes.split(",")
    unknown = [shape for shape in shapes if shape not in SHAPES]
    if unknown:
        raise SystemExit("postgres-insert-shapes.py: unknown shape %s (known: %s)" % (unknown[0], ", ".join(SHAPES)))
    with psycopg.connect(autocommit=True) as connection:
        cursor = connection.cursor()
        cursor.execute("SET synchronous_commit = on")
        for shape in shapes:
            cursor.execute(f"DROP TABLE IF EXISTS shape_{shape}")
            cursor.execute(f"CREATE TABLE shape_{shape} ({SHAPES[shape][0]})")
        times = {shape: [] for shape in shapes}
        try:
            for round_ in range(1, args.rounds + 1):
                seq = 2 * round_
                for shape in shapes:
                    rows = SHAPES[shape][1]
                    if rows == 0:
                        sql, values = "INSERT INTO shape_limit (seq, data) VALUES (%s, %s)", (
                            seq, '{"transition":1,"from":"a","to":"b"}')
                    elif rows == 1:
                        sql = f"INSERT INTO shape_{shape} VALUES (%s, 'n', %s, 'transition.started', 1, %s, %s, NULL, %s)"
                        values = (seq, seq, seq, seq, STARTED)
                    else:
                        sql = (f"INSERT INTO shape_{shape} VALUES (%s, 'n', %s, 'transition.started', 1, %s, %s, NULL, %s), "
                               "(%s, 'n', %s, 'transition.completed', 1, %s, %s, NULL, %s)")
                        values = (seq - 1, seq - 1, seq, seq, STARTED, seq, seq, seq, seq, COMPLETED)
                    start = time.perf_counter_ns()
                    cursor.execute(sql, values, prepare=True)
                    times[shape].append(time.perf_counter_ns() - start)
        finally:
            for shape in shapes:
                cursor.execute(f"DROP TABLE IF EXISTS shape_{shape}")
    warm = args.rounds // 10
    limit = statistics.median(times["limit"][warm:]) if "limit" in times else None
    for shape in shapes:
        p50 = statistics.median(times[shape][warm:]) / 1000
        over = "" if limit is None or shape == "limit" else "  (%+.1f µs over limit)" % (p50 - limit / 1000)
        print("%-8s p50 %7.1f µs%s" % (shape, p50, over))


if __name__ == "__main__":
    main()
