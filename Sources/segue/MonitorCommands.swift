import Foundation
import SegueClient
import SegueCommandLine
import SegueCore
import SegueProtocol

/// ping (once, or `--count N` with round-trip times like ping(8) and the clock offset by Cristian's
/// method) and stats (once, or `--watch`).
enum MonitorCommands {
    static func ping(_ inv: Invocation) throws {
        let interval =
            try inv.parsed.value("interval").map { (t: String) throws(UsageError) in
                try ArgumentValues.seconds(t, for: "--interval")
            } ?? 1
        let count = try inv.parsed.value("count").map { (text: String) throws(UsageError) in
            try ArgumentValues.positive(text, for: "--count", "how many pings to send")
        }
        // A pace for one ping would be ignored: a mistyped command must not look as if it worked.
        if count == nil, inv.parsed.value("interval") != nil {
            throw UsageError("Option '--interval' needs '--count <n>'.")
        }
        let client = try inv.client()
        guard let count else {
            let reply = try client.call("ping")
            let pong = try SegueClientError.decoding { () throws(WireError) in try Pong(reply) }
            inv.print(
                reply,
                "segued \(pong.version) at \(client.endpoint): \(pong.frameRate) Hz, frame \(pong.frame), seq \(pong.seq)"
            )
            return
        }
        var times: [Double] = []
        var samples: [ClockSample] = []
        // Ctrl-C ends the pings, not the statistics: they are printed for the pings sent, as ping(8)
        // does, and then segue ends by the signal.
        // A ping waiting on a silent daemon is given up at once too, and not counted.
        let signals = NotedSignals()
        defer { signals.restore() }
        client.interruption = { signals.caught != nil }
        var sent = 0
        for sequence in 1...count where signals.caught == nil {
            let start = ContinuousClock.now
            let sentAt = ClockSample.readClocks().monotonic
            let reply = try answer(client)
            if signals.caught != nil, reply == nil { break }
            sent = sequence
            if let reply {
                let (received, wall) = ClockSample.readClocks()
                let ms = Double(received - sentAt) / 1e6
                times.append(ms)
                var line = reply
                line["time"] = .double(rounded(ms))
                line["sequence"] = .int(sequence)
                var offset = ""
                // The daemon's clock (an older daemon gives none): its offset from this host's.
                if let clock = reply["clock"]?.int64Value {
                    let sample = ClockSample(sent: sentAt, received: received, receivedWall: wall, daemonClock: clock)
                    samples.append(sample)
                    line["offset"] = .double(rounded(Double(sample.offset) / 1e6))
                    offset = " offset=\(signed(Double(sample.offset) / 1e6)) ms"
                }
                inv.print(
                    line,
                    "reply from \(client.endpoint): sequence=\(sequence) seq=\(reply["seq"]?.int64Value ?? 0) "
                        + "time=\(fixed(ms)) ms" + offset)
            } else if !inv.json {
                Output.line("no reply from \(client.endpoint): sequence=\(sequence)")
            }
            if sequence < count, signals.caught == nil {
                GestureCommands.sleep(until: start + .nanoseconds(Int64(interval * 1e9)))
            }
        }
        let clock = ClockEstimate(samples: samples)
        let lost = sent - times.count
        let percent = sent == 0 ? 0 : Int((Double(lost) / Double(sent) * 100).rounded())
        let summary = "\(sent) sent, \(times.count) received, \(percent)% lost"
        // Lost pings fail the command (status 3): said on stderr, and under --json in the summary
        // object, as every failure's `error`.
        let failure = lost == 0 ? nil : "No reply to \(lost) of \(sent.counted("ping")) from \(client.endpoint)."
        if let failure { Output.error("error: \(failure)") }
        if inv.json {
            var object: JSONObject = [
                "ok": .bool(failure == nil), "sent": .int(sent), "received": .int(Int64(times.count)),
            ]
            if let failure { object["error"] = ["code": "timeout", "message": .string(failure)] }
            if let min = times.min(), let max = times.max() {
                object["min"] = .double(min)
                object["avg"] = .double(times.reduce(0, +) / Double(times.count))
                object["max"] = .double(max)
            }
            if let clock {
                object["offset"] = .double(rounded(Double(clock.offset) / 1e6))
                object["offsetError"] = .double(rounded(Double(clock.uncertainty) / 1e6))
                object["offsetRoundTrip"] = .double(rounded(Double(clock.roundTrip) / 1e6))
            }
            Output.line(JSON.object(object).serialized())
        } else {
            Output.line("--- \(inv.endpoint) ping statistics ---\n" + summary)
            if let min = times.min(), let max = times.max() {
                let avg = times.reduce(0, +) / Double(times.count)
                Output.line("round-trip min/avg/max = \(fixed(min))/\(fixed(avg))/\(fixed(max)) ms")
            }
            if let clock {
                let best = Double(clock.roundTrip) / 1e6
                Output.line(
                    "clock offset = \(signed(Double(clock.offset) / 1e6)) ms ± \(fixed(best / 2)) ms "
                        + "(daemon minus this host, from the best of \(clock.roundTrips.count): round trip \(fixed(best)) ms)"
                )
            }
        }
        if let signal = signals.caught { NotedSignals.die(of: signal) }
        if lost > 0 { throw Exit(.timeout) }
    }

    /// A ping's reply, or nil for no answer in time (a lost ping, counted as ping(8) does).
    static func answer(_ client: SegueClient) throws -> JSONObject? {
        switch Result(catching: { () throws(SegueClientError) -> JSONObject in try client.call("ping") }) {
        case .success(let reply): return reply
        case .failure(let error) where error.kind == .timeout || error.kind == .interrupted: return nil
        case .failure(let error): throw error
        }
    }

    /// Three decimals, as ping(8) prints times.
    static func fixed(_ ms: Double) -> String { String(format: "%.3f", ms) }

    /// Three decimals with the sign always shown: an offset either way.
    static func signed(_ ms: Double) -> String { String(format: "%+.3f", ms) }

    /// To the microsecond, for JSON.
    static func rounded(_ ms: Double) -> Double { (ms * 1000).rounded() / 1000 }

    static func stats(_ inv: Invocation) throws {
        let client = try inv.client()
        let given = inv.parsed.argument("interval")
        guard inv.parsed.flag("watch") else {
            // An interval means nothing without --watch: taken silently, `stats 5` would look like it watched.
            if let given {
                throw UsageError.invalidValue(
                    given, for: "<interval>", "an interval is the time between updates of --watch; add --watch")
            }
            return printStats(try client.stats(), inv)
        }
        let interval =
            try given.map { (t: String) throws(UsageError) in try ArgumentValues.seconds(t, for: "<interval>") } ?? 2
        let terminal = !inv.json && Terminal.screenCapable
        var first = true
        while true {
            let start = ContinuousClock.now
            let reply = try client.stats()
            if terminal {
                // A screen that updates in place, like watch(1), drawn over the last in one write so that
                // it never shows half drawn. What does not fit is cut, since a screen taller than the
                // terminal would scroll at each update.
                let header = "segue stats --watch \(ReadCommands.format(interval))  \(client.endpoint)  (Ctrl-C quits)"
                let size = Terminal.size()
                // The header, a blank line, the counters in aligned columns, and the line the cursor
                // rests on; each line cut to the width: one that wraps would push the screen down.
                let counters = fitted(columned(statsPairs(reply), width: size.columns), rows: size.rows - 3)
                let screen = ([header, ""] + counters + [""]).prefix(size.rows).map { $0.cut(to: size.columns) }
                Terminal.draw(screen, clearing: first)
                first = false
            } else {
                if !inv.json { Output.line("--- \(ISO8601DateFormatter().string(from: Date()))") }
                printStats(reply, inv)
            }
            GestureCommands.sleep(until: start + .nanoseconds(Int64(interval * 1e9)))
        }
    }

    /// One `dotted.name<TAB>value` line per counter, at any depth, strings unquoted: easy to read and
    /// to grep or cut; the reply itself under `--json`.
    static func printStats(_ reply: JSONObject, _ inv: Invocation) {
        guard !inv.json else { return Output.line(JSON.object(reply).serialized()) }
        for line in statsLines(reply) { Output.line(line) }
    }

    static func statsLines(_ reply: JSONObject) -> [String] { statsPairs(reply).map { "\($0.name)\t\($0.value)" } }

    /// Every counter, at any depth, as its dotted name and its value (strings unquoted).
    static func statsPairs(_ reply: JSONObject) -> [(name: String, value: String)] {
        var out: [(name: String, value: String)] = []
        func pairs(_ prefix: String, _ value: JSON) {
            if let object = value.objectValue {
                for (key, member) in object.members { pairs(prefix.isEmpty ? key : "\(prefix).\(key)", member) }
            } else {
                out.append((prefix, value.stringValue ?? value.serialized()))
            }
        }
        for (key, value) in reply.members where key != "ok" && key != "id" { pairs(key, value) }
        return out
    }

    /// Each counter as its name, padded so the values line up, and its value, in `width` columns: where
    /// a line would not fit, its name is cut (with an ellipsis) rather than its value.
    static func columned(_ pairs: [(name: String, value: String)], width: Int) -> [String] {
        let names = pairs.map(\.name.count).max() ?? 0
        let values = pairs.map(\.value.count).max() ?? 0
        let room = min(names, max(1, width - 2 - values))
        return pairs.map { pair in
            let name = pair.name.cut(to: room)
            return name + String(repeating: " ", count: room + 2 - name.count) + pair.value
        }
    }

    /// `lines` in at most `rows` lines, the last of them then saying how many were left out.
    static func fitted(_ lines: [String], rows: Int) -> [String] {
        guard rows > 0 else { return [] }
        guard lines.count > rows else { return lines }
        let shown = max(0, rows - 1)
        return Array(lines.prefix(shown)) + ["… \(lines.count - shown) more (a taller terminal shows them all)"]
    }
}
