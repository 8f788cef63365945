import SegueCommandLine

/// The typed options of `timeline` and `view` (docs/cli.md, "Pictures: `timeline` and `view`"): each
/// declares its spelling and help for the command tree and reads its value with its type's message.
enum PictureOptions {
    static let navigator = Option<String>("navigator", value: "name", help: "Only this navigator.")
    static let from = Option<LogWindow.Bound>(
        "from", value: "seq|time",
        help: "Start at this seq, at this time (2025-06-01T12:00:00.5Z, or local 2025-06-01T14:00), or this long "
            + "after the log's first event (+2.5s, +10m).")
    static let to = Option<LogWindow.Bound>(
        "to", value: "seq|time",
        help: "Stop after this seq (drawn up to the frame of the next event), or at this time (as --from).")
    static let frameRate = Option<FrameRate>(
        "frame-rate", value: "hz",
        help:
            "The daemon's frame rate, for a log that cannot tell (default: read from the log; a rate it contradicts is refused)."
    )
    static let output = Option<PictureFile>(
        "output", short: "o", value: "file", completion: .file, help: "Write here: a .svg or .html file.")
    static let scale = Option<PixelsPerSecond>(
        "scale", value: "px-per-second",
        help: "Horizontal scale inside busy stretches (default 600: 10 px a frame at 60 Hz).")
    static let listen = Option<String>(
        "listen", value: "host:port", help: "Where to serve the page (default 127.0.0.1:7480).")
    static let replay = Option<String>(
        "replay", value: "log", completion: .file,
        help: "Replay this data dir, postgresql:// URL or export instead of following a daemon.")

    /// The window of the log shown: `timeline`'s and `view --replay`'s.
    static let window = [navigator.spec, from.spec, to.spec, frameRate.spec]
}

/// `timeline` and `view`: the two pictures of a log.
extension CommandTree {
    static let pictures: [CommandConfiguration] = [
        CommandConfiguration(
            name: "timeline", abstract: "Draw a log as a timeline: an SVG, or an HTML page with zoom and a seq cursor.",
            discussion: "One lane per navigator, time across (idle stretches left out), each transition a band with "
                + "its fraction and its animator's progress frame by frame, a gesture's updates, release velocity, "
                + "the end rule's verdict and threshold, and every event as a marker whose tooltip is its JSON. "
                + "Computed by the same core as replay. Without -o the SVG goes to stdout.",
            arguments: [
                ArgumentSpec("log", completion: .file, help: "A data dir, a postgresql:// URL or a JSON Lines export.")
            ],
            options: PictureOptions.window + [PictureOptions.output.spec, PictureOptions.scale.spec],
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
                + "--navigator, --from, --to and --frame-rate need --replay. Runs until Ctrl-C; status 69 when "
                + "the port is in use.",
            arguments: [
                ArgumentSpec(
                    "navigator", optional: true, variadic: true, help: "Live: navigators to show (default all).")
            ],
            options: [PictureOptions.listen.spec, PictureOptions.replay.spec] + PictureOptions.window,
            examples: [
                "segue view   # then open http://127.0.0.1:7480/",
                "segue view main inbox --listen 127.0.0.1:8080",
                "segue view --replay ./.segue --navigator main --from +10s",
            ]),
    ]

    /// The commands whose output is a picture, a page or a script: they take no `--json` (help does
    /// not offer it, and the parser refuses it as it refuses any option a command does not have).
    static let withoutJSON: Set<String> = ["timeline", "view", "completion"]
}
