import SegueClient

/// `timeline` and `view`: the two pictures of a log (docs/cli.md, "Pictures: timeline and view").
extension CommandTree {
    static let windowOptions: [OptionSpec] = [
        OptionSpec("navigator", value: "name", help: "Only this navigator."),
        OptionSpec(
            "from", value: "seq|time",
            help: "Start at this seq, at this time (2025-06-01T12:00:00.5Z), or this long after the log's first "
                + "event (+2.5s)."),
        OptionSpec("to", value: "seq|time", help: "Stop after this seq, or at this time (as --from)."),
        OptionSpec("frame-rate", value: "hz", help: "The daemon's frame rate (default: inferred from the log)."),
    ]

    static let pictures: [CommandConfiguration] = [
        CommandConfiguration(
            name: "timeline", abstract: "Draw a log as a timeline: an SVG, or an HTML page with zoom and a seq cursor.",
            discussion: "One lane per navigator, time across (idle stretches left out), each transition a band with "
                + "its fraction and its animator's progress frame by frame, a gesture's updates, release velocity, "
                + "the end rule's verdict and threshold, and every event as a marker whose tooltip is its JSON. "
                + "Computed by the same core as replay. Without -o the SVG goes to stdout.",
            arguments: [ArgumentSpec("log", help: "A data dir or a JSON Lines export.")],
            options: windowOptions + [
                OptionSpec("output", short: "o", value: "file", help: "Write here: a .svg or .html file."),
                OptionSpec(
                    "scale", value: "px-per-second",
                    help: "Horizontal scale inside busy stretches (default 600: 10 px a frame at 60 Hz)."),
            ],
            examples: [
                "segue timeline ./.segue -o session.svg",
                "segue timeline session.jsonl --navigator main --from 40 --to 80 -o main.html",
                "segue timeline ./.segue --from +10s --to +20s > ten-seconds.svg",
            ]),
        CommandConfiguration(
            name: "view",
            abstract: "A browser view of navigators: cards drawn from the ticks, live or replaying a log.",
            discussion: "Serves a page on --listen (default 127.0.0.1:7480) that draws each navigator's stack and its "
                + "transitions exactly from the ticks' views. Live, it follows the daemon (every tab shows the same "
                + "frames); with --replay it plays a log with play/pause, speed, one-frame steps and a scrubber. "
                + "Status 69 when the port is in use.",
            arguments: [
                ArgumentSpec(
                    "navigator", optional: true, variadic: true, help: "Live: navigators to show (default all).")
            ],
            options: [
                OptionSpec("listen", value: "host:port", help: "Where to serve the page (default 127.0.0.1:7480)."),
                OptionSpec(
                    "replay", value: "log", help: "Replay this data dir or export instead of following a daemon."),
            ] + windowOptions,
            examples: [
                "segue view   # then open http://127.0.0.1:7480/",
                "segue view --replay ./.segue --navigator main",
                "segue view --replay session.jsonl --listen 127.0.0.1:8080",
            ]),
    ]
}
