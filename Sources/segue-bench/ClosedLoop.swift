import Foundation
import SegueWire

/// N clients, each a DEALER with exactly one request in flight, driven from one thread by a poller.
///
/// One thread for all clients keeps the load generator cheap on a two-core machine, and the same
/// harness drives both the raw echo server and the daemon, so their throughputs compare like for like.
enum ClosedLoop {
    struct Result {
        var replies: Int
        var ok: Int
        var seconds: Double
        var firstError: String?
        var perSecond: Double { Double(replies) / seconds }
        var okPerSecond: Double { Double(ok) / seconds }
    }

    /// Runs for `seconds` after a short warm-up; `next(client, n)` is client's n-th request body.
    static func run(
        context: ZMQContext, endpoint: String, clients: Int, seconds: Double,
        next: (_ client: Int, _ n: Int) -> [UInt8]
    ) throws -> Result {
        let sockets = try (0..<clients).map { _ in try BenchClient(context: context, endpoint: endpoint).socket }
        var poller = ZMQPoller()
        for socket in sockets { _ = poller.add(socket) }
        var counts = [Int](repeating: 0, count: clients)
        let okPrefix = Array(#"{"ok":true"#.utf8)
        for (index, socket) in sockets.enumerated() {
            try socket.send(next(index, 0))
        }
        let warmup = Bench.monotonic() + 300_000_000
        var start: Int64 = 0
        var end: Int64 = 0
        var replies = 0
        var ok = 0
        var firstError: String?
        var measuring = false
        while true {
            let now = Bench.monotonic()
            if !measuring, now >= warmup {
                measuring = true
                start = now
                end = now + Int64(seconds * 1e9)
            }
            if measuring, now >= end { break }
            let ready = try poller.poll(timeout: .milliseconds(100))
            for (index, events) in ready.enumerated() where events.contains(.readable) {
                while let reply = try sockets[index].receive(dontWait: true) {
                    if measuring {
                        replies += 1
                        if reply.starts(with: okPrefix) {
                            ok += 1
                        } else if firstError == nil {
                            firstError = String(decoding: reply.prefix(300), as: UTF8.self)
                        }
                    }
                    counts[index] += 1
                    try sockets[index].send(next(index, counts[index]))
                }
            }
        }
        let elapsed = Double(Bench.monotonic() - start) / 1e9
        // Collect the requests still in flight so the next measurement starts clean.
        for socket in sockets {
            try socket.setReceiveTimeout(.seconds(10))
            _ = try socket.receive()
        }
        return Result(replies: replies, ok: ok, seconds: elapsed, firstError: firstError)
    }
}
