import Foundation
import SegueCore
import SegueProtocol
import SegueWire

/// The gesture path: `update` at 120 Hz on an interactive pop, and how soon a subscriber sees it.
enum GestureBench {
    struct Result {
        /// Send of each update to the first tick showing its percent or a later update's.
        var reflected: Samples
        /// Only updates whose own percent appeared in a tick (the others were superseded within a frame).
        var shown: Samples
        var sent: Int
        var errors: Int
        var firstError: String?
    }

    /// A distinct percent per update, spread over (0.1, 0.9) so consecutive ticks differ visibly.
    static func percent(_ index: Int) -> Double { 0.1 + 0.8 * Double(index * 7919 % 10007) / 10007 }

    /// The sender's period: `1 / rate` stretched so that its phase against the daemon's frames
    /// (`frameRate`) slides through `sweeps` whole frame periods over `seconds`. A strictly periodic
    /// sender keeps one phase for a whole run, and the delay to the next frame depends on it: the
    /// same build gave p99 10.4, 13.6 and 15.5 ms in three runs. Sliding, every phase counts alike.
    static func sendPeriod(rate: Double, frameRate: Double, seconds: Double, sweeps: Double = 2) -> Int64 {
        let updates = max(1, seconds * rate)
        return Int64((1e9 / rate + sweeps * (1e9 / frameRate) / updates).rounded())
    }

    static func run(
        daemon: DaemonProcess, context: ZMQContext, rate: Double, frameRate: Double, seconds: Double
    ) throws -> Result {
        let subscriber = try ZMQSocket(context, .sub)
        try subscriber.setLinger(.zero)
        try subscriber.subscribe(Topic.ticks(of: "gesture"))
        try subscriber.subscribe(Topic.heartbeatTopic)
        try subscriber.connect(daemon.publishEndpoint)
        try subscriber.setReceiveTimeout(.seconds(3))
        guard try subscriber.receiveMultipart() != nil else { throw BenchError("No heartbeat within 3 s.") }

        let client = try BenchClient(context: context, endpoint: daemon.commandEndpoint)
        try client.call(["cmd": "create", "navigator": "gesture", "root": "Home"])
        try client.call(["cmd": "push", "navigator": "gesture", "screen": "Detail", "animated": false])
        try client.call(["cmd": "begin", "navigator": "gesture", "operation": "pop"])

        var poller = ZMQPoller()
        let subIndex = poller.add(subscriber)
        let clientIndex = poller.add(client.socket)
        var sentAt: [Int64] = []
        var indexOfPercent: [Double: Int] = [:]
        var resolved = 0  // updates before this index have their delay
        var result = Result(reflected: Samples(), shown: Samples(), sent: 0, errors: 0)
        var replies = 0
        let okPrefix = Array(#"{"ok":true"#.utf8)
        let period = sendPeriod(rate: rate, frameRate: frameRate, seconds: seconds)
        let start = Bench.monotonic()
        let end = start + Int64(seconds * 1e9)
        var nextSend = start
        while true {
            let now = Bench.monotonic()
            if now >= end, replies == sentAt.count { break }
            if now >= nextSend, now < end {
                let index = sentAt.count
                let p = percent(index)
                indexOfPercent[p] = index
                sentAt.append(Bench.monotonic())
                try client.socket.send(Array(#"{"cmd":"update","navigator":"gesture","percent":\#(p)}"#.utf8))
                nextSend += period
                continue
            }
            let wait = max(0, min(nextSend, end + 2_000_000_000) - Bench.monotonic())
            let ready = try poller.poll(timeout: .nanoseconds(wait))
            if ready[clientIndex].contains(.readable) {
                while let reply = try client.socket.receive(dontWait: true) {
                    replies += 1
                    if !reply.starts(with: okPrefix) {
                        result.errors += 1
                        if result.firstError == nil { result.firstError = String(decoding: reply, as: UTF8.self) }
                    }
                }
            }
            if ready[subIndex].contains(.readable) {
                while let frames = try subscriber.receiveMultipart(dontWait: true) {
                    let received = Bench.monotonic()
                    guard frames.count == 2, frames[0].starts(with: Array(Topic.tickPrefix.utf8)),
                        let fraction = try JSON.parse(frames[1])["fraction"]?.doubleValue,
                        let index = indexOfPercent[fraction]
                    else { continue }
                    result.shown.add(nanoseconds: received - sentAt[index])
                    while resolved <= index {
                        result.reflected.add(nanoseconds: received - sentAt[resolved])
                        resolved += 1
                    }
                }
            }
            if Bench.monotonic() > end + 5_000_000_000 { throw BenchError("Update replies did not all arrive.") }
        }
        result.sent = sentAt.count
        try client.call(["cmd": "cancel", "navigator": "gesture"])
        return result
    }
}
