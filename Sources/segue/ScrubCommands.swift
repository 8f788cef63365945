import SegueClient
import SegueCommandLine
import SegueCore
import SegueProtocol

/// pause, seek and resume: scrubbing an animated transition.
enum ScrubCommands {
    static func pause(_ inv: Invocation) throws {
        let reply = try inv.client().pause(inv.argument("navigator"), envelope: GestureCommands.envelope(inv))
        inv.print(reply.json, "\(reply.navigator): paused at \(fraction(reply)) (revision \(reply.revision))")
    }

    static func seek(_ inv: Invocation) throws {
        let text = inv.argument("fraction")
        let value = try ArgumentValues.number(text, for: "<fraction>")
        guard (0...1).contains(value) else {
            throw UsageError.invalidValue(text, for: "<fraction>", "expected a fraction in 0...1")
        }
        let reply = try inv.client().seek(
            inv.argument("navigator"), fraction: value, scrubsLinearly: !inv.parsed.flag("along-curve"),
            envelope: GestureCommands.envelope(inv))
        inv.print(reply.json, "\(reply.navigator): at \(fraction(reply)) (revision \(reply.revision))")
    }

    /// With `--wait`, returns when the transition ends, as the last step of a gesture does.
    static func resume(_ inv: Invocation) throws {
        try GestureCommands.ending(inv) { client, navigator, envelope in
            let reply = try client.resume(navigator, envelope: envelope)
            inv.print(reply.json, "\(reply.navigator): \(reply.phase ?? "resumed") (revision \(reply.revision))")
            return reply
        }
    }

    private static func fraction(_ reply: CommandReply) -> String {
        reply.json["fraction"]?.doubleValue.map { String($0) } ?? "?"
    }
}
