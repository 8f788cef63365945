import SegueClient
import SegueCommandLine
import SegueCore

/// The `segue` command tree: every subcommand's configuration, in one place so `--help` and the
/// parser read the same declarations.
enum CommandTree {
    /// The command `argv` names and the words left for it. Requests piped into a bare `segue`
    /// (redis-cli's habit), or into `segue` with options only (`--endpoint X`), would be dropped after
    /// the help or a missing-command error: a usage error that names `segue raw` instead.
    static func resolve(_ argv: [String], stdinIsTerminal: Bool) throws(UsageError) -> (
        path: [CommandConfiguration], rest: [String]
    ) {
        let noCommandPiped = UsageError(
            "No command given. To send requests from stdin, one per line, use segue raw.", command: "segue")
        if argv.isEmpty, !stdinIsTerminal { throw noCommandPiped }
        do {
            return try root.resolve(argv)
        } catch {
            let optionsOnly = UsageError.missingCommand("segue", among: root.subcommands.map(\.name))
            throw !stdinIsTerminal && error == optionsOnly ? noCommandPiped : error
        }
    }

    static let global: [OptionSpec] = [
        OptionSpec(
            "endpoint", value: "endpoint", help: "Command endpoint (default $SEGUE_ENDPOINT or tcp://127.0.0.1:7400)."),
        OptionSpec(
            "publish-endpoint", value: "endpoint",
            help:
                "Publish endpoint for --wait, log --follow, watch and view (default $SEGUE_PUBLISH_ENDPOINT or tcp://127.0.0.1:7401)."
        ),
        .flag("json", help: "Print JSON (one object per line) for scripts."),
        OptionSpec(
            "timeout", value: "seconds", help: "How long to wait for the daemon (default 5s; retries included)."),
        OptionSpec(
            "server-key", value: "key|file",
            help: "For a CURVE daemon: its public key, 40 Z85 characters or a file holding them (its NAME.pub; "
                + "default $SEGUE_SERVER_KEY)."),
        OptionSpec(
            "client-key", value: "name",
            help: "For a CURVE daemon: this client's key pair, NAME.key and NAME.pub as 'segue keygen --out NAME' "
                + "wrote them (default $SEGUE_CLIENT_KEY)."),
    ]

    static let animator: [OptionSpec] = [
        .flag("no-animate", help: "Change at once: a transition that starts and completes in one frame."),
        OptionSpec(
            "style", value: "style", completion: .list(TransitionStyle.named.map(\.name)),
            help: "slide, cover, reveal, push, fade, crossfade, flip, zoom, iris or none."),
        OptionSpec(
            "edge", value: "edge", completion: .list(Edge.allCases.map(\.rawValue)),
            help: "right, left, top or bottom."),
        OptionSpec("duration", value: "seconds", help: "Animator duration, e.g. 0.35 or 350ms."),
        OptionSpec(
            "curve", value: "curve", completion: .list(TimingCurve.namedCurves.map(\.name)),
            help: "linear, easeIn, easeOut, easeInOut, default, bezier:x1,y1,x2,y2, spring:damping,velocity, "
                + "spring:mass,stiffness,damping,velocity or spring-response:response,dampingFraction."),
        OptionSpec("preset", value: "name", help: "A named animator from the seed gallery (e.g. simpleOver.push)."),
    ]

    static let mutation: [OptionSpec] = [
        OptionSpec("expect", value: "revision", help: "Fail with conflict unless the navigator is at this revision."),
        OptionSpec("id", value: "id", help: "Idempotency key: a retry with the same id is applied once."),
    ]

    static let wait: OptionSpec = .flag(
        "wait", help: "Return when the transition ends: exit 0 if it completed, 2 if it was cancelled.")

    /// `--wait` on the steps that end an interactive transition, and on `swipe`.
    static let gestureWait: OptionSpec = .flag(
        "wait",
        help: "Return when the finishing or cancelling animation ends: exit 0 if the transition completed, 2 if it "
            + "was cancelled.")

    static let param = OptionSpec(
        "param", value: "key=value", repeats: true,
        help: "A screen parameter; the value is JSON if it parses, else a string.")

    static func navigation(
        _ name: String, _ abstract: String, screen: String? = nil, variadic: Bool = false, discussion: String = "",
        examples: [String]
    ) -> CommandConfiguration {
        var arguments = [ArgumentSpec("navigator", help: "The navigator's name.")]
        if let screen { arguments.append(ArgumentSpec(screen, variadic: variadic, help: screenHelp(screen))) }
        var options = animator + mutation + [wait]
        if screen == "screen" { options.append(param) }
        return CommandConfiguration(
            name: name, abstract: abstract, discussion: discussion, arguments: arguments, options: options,
            examples: examples)
    }

    static func screenHelp(_ name: String) -> String {
        switch name {
        case "target": return "A screen id (s3) or a route name (its topmost match)."
        case "screens": return "The new stack, root first: ids keep screens, names make new ones."
        default: return "The route name of the new screen."
        }
    }

    static let gestureOwner = OptionSpec(
        "owner", value: "owner", help: "The gesture's owner; later steps must name it.")
    /// `--owner` on the steps after `begin`.
    static let gestureStepOwner = OptionSpec(
        "owner", value: "owner", help: "The owner begin named, when it named one.")
    static let completion: [OptionSpec] = [
        OptionSpec(
            "completion-speed", value: "speed",
            help: "Speed of the finishing or cancelling animation (default 1)."),
        OptionSpec(
            "completion-curve", value: "curve", completion: .list(TimingCurve.namedCurves.map(\.name)),
            help: "Its timing curve (a name or bezier:..., default easeInOut)."),
    ]

    static let gesture = CommandConfiguration(
        name: "gesture", abstract: "Drive an interactive transition one step at a time.",
        discussion: "Like UIPercentDrivenInteractiveTransition: begin, update the percent, then finish, cancel or end "
            + "(the daemon decides by its end rule).",
        examples: [
            "segue gesture begin main --operation pop --owner pan-1",
            "segue gesture update main --percent 0.4 --velocity 0.8 --owner pan-1",
            "segue gesture end main --owner pan-1 --wait",
        ],
        subcommands: [
            CommandConfiguration(
                name: "begin", abstract: "Begin an interactive transition, or interrupt the one animating.",
                discussion:
                    "Without --operation, the transition in flight becomes interactive at its current fraction.",
                arguments: [
                    ArgumentSpec("navigator", help: "The navigator's name."),
                    ArgumentSpec("screen", optional: true, help: "The route to push or present."),
                ],
                options: [
                    OptionSpec(
                        "operation", value: "operation", completion: .list(["pop", "push", "dismiss", "present"]),
                        help: "pop, push, dismiss or present."), gestureOwner,
                ] + GestureOptions.geometry + animator.dropFirst() + mutation,
                examples: [
                    "segue gesture begin main --operation pop --owner pan-1", "segue gesture begin main   # interrupt",
                    "segue gesture begin main --operation pop --touch 0.02,0.4 --swipe-edge left --time 81234000000",
                ]),
            CommandConfiguration(
                name: "update", abstract: "Move the interactive transition to a percent.",
                arguments: [ArgumentSpec("navigator", help: "The navigator's name.")],
                options: [
                    OptionSpec("percent", value: "fraction", required: true, help: "0...1 (clamped)."),
                    OptionSpec("velocity", value: "per-second", help: "Fraction per second, + toward completion."),
                    gestureStepOwner,
                ] + GestureOptions.geometry + mutation,
                examples: [
                    "segue gesture update main --percent 0.4 --velocity 0.8 --owner pan-1",
                    "segue gesture update main --percent 0.3 --touch 0.31,0.42 --time 81250000000",
                ]),
            CommandConfiguration(
                name: "finish", abstract: "Animate the interactive transition to completion.",
                arguments: [ArgumentSpec("navigator", help: "The navigator's name.")],
                options: [OptionSpec("velocity", value: "per-second", help: "Release velocity."), gestureStepOwner]
                    + completion + GestureOptions.animator + mutation + [gestureWait],
                examples: [
                    "segue gesture finish main --completion-speed 2", "segue gesture finish main --wait",
                    "segue gesture finish main --velocity 1.4 --animator-curve spring-response:0.4,0.85",
                ]),
            CommandConfiguration(
                name: "cancel", abstract: "Animate the interactive transition back; the stack stays as it was.",
                discussion: "On a navigator that create made with retarget, an animating, finishing or paused "
                    + "transition given neither --completion-curve nor --animator-curve reverses: it turns back "
                    + "from where it is, keeping its velocity.",
                arguments: [ArgumentSpec("navigator", help: "The navigator's name.")],
                options: [OptionSpec("velocity", value: "per-second", help: "Release velocity."), gestureStepOwner]
                    + completion + GestureOptions.animator + mutation + [gestureWait],
                examples: [
                    "segue gesture cancel main", "segue gesture cancel main --velocity -0.8",
                    "segue gesture cancel main --animator-curve spring:0.9,0 --duration-factor 2",
                ]),
            CommandConfiguration(
                name: "end", abstract: "Let the daemon decide finish or cancel by the end rule; prints the decision.",
                arguments: [ArgumentSpec("navigator", help: "The navigator's name.")],
                options: [
                    OptionSpec("percent", value: "fraction", help: "A last percent."),
                    OptionSpec("velocity", value: "per-second", help: "Release velocity."), gestureStepOwner,
                ] + GestureOptions.geometry + GestureOptions.animator + mutation + [gestureWait],
                examples: [
                    "segue gesture end main --velocity 1.2", "segue gesture end main --wait && echo completed",
                    "segue gesture end main --percent 0.62 --time 81266000000",
                    "segue gesture end main --animator-curve spring-response:0.4,0.85",
                ]),
        ])

    static let root = CommandConfiguration(
        name: "segue", abstract: "Drive and observe segued, the navigation coordinator daemon.",
        discussion: "segue --version prints the version. segue raw, with no request, is an interactive prompt "
            + "(as redis-cli is), and reads requests from stdin, one per line, when it is not a terminal.\n\n"
            + "The options commands share (\(global.map { "--\($0.name)" }.joined(separator: ", "))) may also come "
            + "before or between the command's words: segue --endpoint tcp://10.0.0.5:7400 push main Detail.\n\n"
            + "Exit status: 0 ok, 1 the daemon said no (code and message on stderr) or a log read is wrong or "
            + "damaged, 2 --wait saw a cancel, "
            + "3 no answer in time (or nothing listens at the endpoint), 64 usage, 69 endpoint unusable or handshake refused (CURVE keys), 74 file, key "
            + "file or data dir error.\n\nA daemon with CURVE needs --server-key (its public key) and --client-key "
            + "(a pair from 'segue keygen' that it lists), or SEGUE_SERVER_KEY and SEGUE_CLIENT_KEY.\n\n"
            + "Under --json every outcome, failures included, is JSON on stdout, one object per line; a failure "
            + "is {\"ok\": false, \"error\": {\"code\", \"message\"}} with the same exit status.",
        examples: [
            "segue create main Home", "segue push main Detail --param id=42 --wait", "segue watch",
            "segue log --navigator main --since 10m", "segue help push",
        ],
        subcommands: withGlobals(
            [
                CommandConfiguration(
                    name: "create", abstract: "Create a navigator with a root screen.",
                    arguments: [
                        ArgumentSpec("navigator", help: "The new navigator's name ([A-Za-z0-9._-]{1,64})."),
                        ArgumentSpec("root", help: "The root screen's route name."),
                    ],
                    options: [
                        param,
                        OptionSpec(
                            "busy", value: "policy", completion: .list(["reject", "queue"]),
                            help: "reject (default) or queue: what commands meet while a transition runs."),
                        OptionSpec("queue-limit", value: "n", help: "Most queued commands under busy queue."),
                        OptionSpec("container", value: "WxH", help: "Container size in points, e.g. 390x844."),
                        OptionSpec(
                            "threshold", value: "fraction", help: "End rule: finish above this percent (default 0.5)."),
                        OptionSpec("velocity-impact", value: "k", help: "End rule: weight of velocity (default 0.3)."),
                        OptionSpec(
                            "fling-velocity", value: "v",
                            help: "End rule: finish at or above this velocity (default 1)."),
                        OptionSpec(
                            "interaction-timeout", value: "seconds",
                            help: "Cancel a gesture idle this long (default 10)."),
                        OptionSpec("animators", value: "json", help: "Animator rules as JSON."),
                        .flag(
                            "retarget",
                            help: "Reversals keep the motion: cancel, and pop during a push, turn it back where it is."),
                    ] + mutation,
                    examples: [
                        "segue create main Home", "segue create inbox List --busy queue --container 390x844",
                        "segue create main Home --retarget",
                    ]),
                CommandConfiguration(
                    name: "close", abstract: "Close a navigator for good (its name is never reused).",
                    arguments: [ArgumentSpec("navigator", help: "The navigator's name.")], options: mutation,
                    examples: ["segue close main"]),
                navigation(
                    "push", "Push a screen.", screen: "screen",
                    examples: [
                        "segue push main Detail --param id=42",
                        "segue push main Detail --style fade --duration 0.3s --wait",
                        "segue push main Detail --curve spring-response:0.5,0.8",
                    ]),
                navigation("pop", "Pop the top screen.", examples: ["segue pop main", "segue pop main --no-animate"]),
                navigation(
                    "pop-to", "Pop to a screen below the top.", screen: "target", examples: ["segue pop-to main s2"]),
                navigation("pop-to-root", "Pop to the root screen.", examples: ["segue pop-to-root main --wait"]),
                navigation(
                    "set", "Replace the stack (UIKit setViewControllers).", screen: "screens", variadic: true,
                    examples: ["segue set main s1 Detail Settings"]),
                navigation(
                    "present", "Present a screen modally.", screen: "screen", examples: ["segue present main Compose"]),
                navigation("dismiss", "Dismiss the top modal.", examples: ["segue dismiss main"]),
                gesture, pause, seek, resume,
                CommandConfiguration(
                    name: "swipe", abstract: "Play a whole interactive gesture from a script.",
                    discussion:
                        "begin, then one update per frame (the daemon's frame rate) moving the percent from 0 to --to "
                        + "over --over (linearly, or shaped by --curve), each with its velocity, then --then. Prints the decision. "
                        + "--completion-speed and --completion-curve need --then finish or cancel. Ctrl-C, SIGTERM or "
                        + "SIGHUP during the gesture cancels the transition, then ends segue as the signal would.",
                    arguments: [
                        ArgumentSpec("navigator", help: "The navigator's name."),
                        ArgumentSpec(
                            "operation", completion: .list(["pop", "dismiss", "push", "present"]),
                            help: "pop, dismiss, push or present."),
                        ArgumentSpec("screen", optional: true, help: "The route for push or present."),
                    ],
                    options: [
                        OptionSpec("to", value: "fraction", help: "Where the finger stops (default 0.7)."),
                        OptionSpec("over", value: "seconds", help: "How long the finger moves (default 0.4s)."),
                        OptionSpec(
                            "then", value: "step", completion: .list(["end", "finish", "cancel"]),
                            help: "end (default), finish or cancel."),
                        OptionSpec(
                            "curve", value: "curve", completion: .list(TimingCurve.namedCurves.map(\.name)),
                            help: "Shape of the finger's motion (default linear)."),
                        gestureOwner,
                    ] + completion + [gestureWait],
                    examples: [
                        "segue swipe main pop --to 0.7 --over 0.4s --then end",
                        "segue swipe main pop --to 0.3 --over 0.2s --then cancel",
                        "segue swipe main pop --wait; segue swipe main pop --wait   # the second begins once the first is over",
                    ]),
                CommandConfiguration(
                    name: "state", abstract: "Show a navigator: stack, modals, transition.",
                    arguments: [ArgumentSpec("navigator", help: "The navigator's name.")],
                    options: [OptionSpec("at", value: "seq", help: "Time travel: the state as of this seq.")],
                    examples: ["segue state main", "segue state main --at 12 --json"]),
                CommandConfiguration(name: "ls", abstract: "List navigators.", examples: ["segue ls"]),
                log, export, `import`, verify,
                ping, stats, raw,
                CommandConfiguration(
                    name: "help", abstract: "Show help for a command ('segue help push'); --man prints the man page.",
                    arguments: [
                        ArgumentSpec(
                            "command", optional: true, variadic: true, completion: .commands,
                            help: "The command, e.g. push or gesture end.")
                    ],
                    options: [.flag("man", help: "Print the man page (roff), as installed as segue.1.")],
                    examples: ["segue help", "segue help gesture end", "segue help --man | man -l -"]),
                CommandConfiguration(
                    name: "completion", abstract: "Print a shell completion script: bash, zsh or fish.",
                    arguments: [
                        ArgumentSpec("shell", completion: .list(["bash", "zsh", "fish"]), help: "bash, zsh or fish.")
                    ],
                    examples: [
                        "source <(segue completion bash)", "segue completion zsh > ~/.zfunc/_segue",
                        "segue completion fish > ~/.config/fish/completions/segue.fish",
                    ]),
                CommandConfiguration(
                    name: "keygen", abstract: "Write a CURVE key pair: NAME.key (secret, mode 0600) and NAME.pub.",
                    options: [
                        OptionSpec(
                            "out", value: "path", required: true, completion: .file,
                            help: "Path and base name, e.g. /etc/segue/keys/client.")
                    ],
                    examples: [
                        "segue keygen --out ./keys/server   # the daemon's: server.key goes in serverSecretKeyFile",
                        "segue keygen --out ./keys/ops      # a client's: list ops.pub in security.curve.clients",
                        "segue state main --server-key ./keys/server.pub --client-key ./keys/ops",
                    ]),
                CommandConfiguration(
                    name: "watch", abstract: "A live view of navigators: stacks and transition progress.",
                    discussion:
                        "Redraws on a terminal as events and ticks arrive, fitted to its size (q or Ctrl-C restores "
                        + "it; j/k, the arrows or PgUp/PgDn scroll; / filters by name, any case, Esc clears it); prints "
                        + "one plain line per change when stdout is not a terminal; --json "
                        + "prints events and ticks as JSON lines. With no command socket at --endpoint (a 'segue "
                        + "replay --publish'), it shows what --publish-endpoint publishes; --replay LOG replays a log "
                        + "in the view itself (space pauses, . steps a frame, + and - change the speed).",
                    arguments: [
                        ArgumentSpec(
                            "navigator", optional: true, variadic: true, help: "Navigators to show (default all).")
                    ],
                    options: [
                        OptionSpec(
                            "replay", value: "log", completion: .file,
                            help: "Watch a data dir or JSON Lines export replayed here, instead of a daemon."),
                        OptionSpec(
                            "speed", value: "x", help: "With --replay: playback speed (default 1; + and - change it)."),
                    ],
                    examples: [
                        "segue watch", "segue watch main inbox", "segue watch --json | jq .",
                        "segue watch --replay session.jsonl --speed 0.25",
                        "segue watch --publish-endpoint tcp://127.0.0.1:7501   # a 'segue replay --publish'",
                    ]),
                CommandConfiguration(
                    name: "replay", abstract: "Regenerate the ticks a log produced, bit for bit.",
                    discussion:
                        "LOG is a data dir, a postgresql:// URL or a JSON Lines export (- reads it from standard "
                        + "input), read one event at a time, so a log of any length replays in the memory of its "
                        + "state. --json prints each tick body "
                        + "exactly as segued published it (a segued of this build: an older one's ticks lack the "
                        + "members added since); --publish re-publishes ticks and events on a PUB socket in real time "
                        + "(or --speed).",
                    arguments: [
                        ArgumentSpec(
                            "log", completion: .file,
                            help: "A data dir, a postgresql:// URL or an export file (- for standard input).")
                    ],
                    options: [
                        OptionSpec("navigator", value: "name", help: "Only this navigator's ticks."),
                        OptionSpec("from", value: "seq", help: "Start at the frame of this seq."),
                        OptionSpec(
                            "to", value: "seq",
                            help: "Stop after this seq: its ticks run up to the frame of the next event in the log."),
                        OptionSpec(
                            "frame-rate", value: "hz",
                            help:
                                "The daemon's frame rate, for a log that cannot tell (default: read from the log; a rate it contradicts is refused)."
                        ),
                        OptionSpec(
                            "presentation-delay", value: "duration",
                            help: "The daemon's presentationDelay, which ticks' presentAt carry and the log does not "
                                + "record (default 0)."),
                        OptionSpec("publish", value: "endpoint", help: "Re-publish on a PUB socket bound here."),
                        OptionSpec("speed", value: "x", help: "Playback speed for --publish (default 1)."),
                        OptionSpec(
                            "max-gap", value: "duration",
                            help: "With --publish: the longest wait between two frames; idle stretches (nothing "
                                + "animating) are shortened to it. Default 2s; off keeps them."),
                        .flag(
                            "wait-subscriber",
                            help: "With --publish: send nothing until a subscriber has subscribed; otherwise sending "
                                + "starts after 0.3 s and a subscriber that joins later misses what went before."),
                    ],
                    examples: [
                        "segue replay ./.segue --json > ticks.jsonl",
                        "segue replay log.jsonl --publish tcp://127.0.0.1:7501",
                        "segue replay log.jsonl --publish tcp://127.0.0.1:7501 --speed 0.25 --wait-subscriber",
                    ]),
            ] + pictures + [MigrateCommand.configuration, RelayCommand.configuration]),
        globalOptions: global)

    /// The man page's sections after the commands.
    static let manSections: [(title: String, body: String)] = [
        (
            "Exit status",
            "0 done. 1 the daemon said no (or a log read, by verify or any other command, is wrong or damaged). 2 "
                + "--wait saw the transition cancelled. 3 no "
                + "answer in time, or nothing listens at the endpoint. 64 the command line does not parse. 69 the "
                + "endpoint cannot be used, or refused the handshake. 74 a file, key file or data dir could not be "
                + "read or written."
        ),
        (
            "Environment",
            "SEGUE_ENDPOINT, SEGUE_PUBLISH_ENDPOINT: the daemon's endpoints. SEGUE_SERVER_KEY, SEGUE_CLIENT_KEY: "
                + "CURVE keys. SEGUE_HISTORY: the history file of segue raw. NO_COLOR: no colour in segue watch."
        ),
        ("See also", "segued(8); docs/cli.md, docs/protocol.md and docs/operations.md in the documentation."),
    ]

    /// `--data-dir` of the store commands, which take a PostgreSQL log too.
    static let storeHelp = "The daemon's data directory, or its PostgreSQL database as a postgresql:// URL."

    /// The commands that read or write files and never talk to a daemon: they take `--json` only
    /// of the shared options, so their help does not offer endpoints, keys or a timeout.
    static let offline: Set<String> = [
        "export", "import", "verify", "keygen", "replay", "help", "completion", "timeline", "migrate",
    ]

    /// Adds the shared options to every leaf command.
    static func withGlobals(_ commands: [CommandConfiguration]) -> [CommandConfiguration] {
        commands.map { command in
            var c = command
            if c.subcommands.isEmpty {
                var shared = offline.contains(c.name) ? global.filter { $0.name == "json" } : global
                if c.name == "relay" { shared = global.filter { RelayCommand.sharedOptions.contains($0.name) } }
                if withoutJSON.contains(c.name) { shared.removeAll { $0.name == "json" } }
                c.options += shared.filter { g in !c.options.contains { $0.name == g.name } }
            } else {
                c.subcommands = withGlobals(c.subcommands)
            }
            return c
        }
    }
}
