import SegueCommandLine

/// The commands that ask the daemon about itself or send it requests as they are: `ping`, `stats`
/// and `raw` (docs/cli.md).
extension CommandTree {
    static let ping = CommandConfiguration(
        name: "ping", abstract: "Ask the daemon for its version, frame rate and position.",
        discussion: "With --count N, N pings --interval apart (default 1s), each reply's round-trip time and "
            + "clock offset, then min/avg/max like ping(8) and the daemon's clock offset from this host's "
            + "(Cristian's method, from the ping with the shortest round trip, right within half of it); "
            + "status 3 if any got no reply.",
        options: [
            OptionSpec(
                "count", short: "c", value: "n", help: "Ping N times; print round trips and the clock offset."),
            OptionSpec(
                "interval", short: "i", value: "seconds", help: "Between pings with --count (default 1s)."),
        ],
        examples: [
            "segue ping", "segue ping --count 5 --interval 0.2",
            "segue ping --server-key /etc/segue/server.pub --client-key ~/.segue/ops   # CURVE",
        ])

    static let stats = CommandConfiguration(
        name: "stats", abstract: "Print the daemon's counters.",
        arguments: [
            ArgumentSpec("interval", optional: true, help: "With --watch: seconds between updates (default 2).")
        ],
        options: [.flag("watch", short: "w", help: "Print them again every interval, in place on a terminal.")],
        examples: ["segue stats --json", "segue stats --watch 1"])

    static let raw = CommandConfiguration(
        name: "raw",
        abstract: "Send requests as JSON (or 'cmd [navigator] [key=value...]') and print the replies.",
        discussion: "One request from the argument, or one per line of stdin; with neither, on a terminal, a "
            + "prompt whose lines the up and down arrows recall, kept in $SEGUE_HISTORY (default "
            + "~/.segue_history, mode 0600; empty or /dev/null keeps none). Ctrl-C while a reply is awaited "
            + "gives up waiting for it; at the prompt it drops the line typed, and on an empty line ends the "
            + "session. Status 1 if any reply was ok: false; 64 if a line did not parse; the prompt goes on "
            + "after a request that got no answer, and ends with 3 (or 69).",
        arguments: [
            ArgumentSpec("request", optional: true, help: "A request as JSON, e.g. '{\"cmd\": \"ping\"}'.")
        ],
        examples: [
            "segue raw '{\"cmd\": \"state\", \"navigator\": \"main\"}'", "segue raw 'history main limit=5'",
            "jq -c '.[]' requests.json | segue raw", "segue raw   # interactive",
        ])
}
