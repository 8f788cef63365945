import Foundation
import SegueCore
import SegueWire

/// A plain DEALER (or REQ) client for tests: one request, one reply, with a timeout.
final class TestClient {
    let context: ZMQContext
    let socket: ZMQSocket
    let kind: ZMQSocket.Kind

    init(endpoint: String, kind: ZMQSocket.Kind = .dealer) throws {
        context = try ZMQContext()
        socket = try ZMQSocket(context, kind)
        self.kind = kind
        try socket.setLinger(.zero)
        try socket.connect(endpoint)
    }

    deinit {
        socket.close()
        context.terminate()
    }

    struct Timeout: Error {}

    /// Sends `request` and waits for the reply body.
    func call(_ request: JSON, timeout: Duration = .seconds(5)) throws -> JSON {
        try send(raw: request.serializedBytes())
        return try receive(timeout: timeout)
    }

    func send(raw: [UInt8]) throws {
        try socket.send(raw)
    }

    func send(frames: [[UInt8]]) throws {
        try socket.sendMultipart(frames)
    }

    func receive(timeout: Duration = .seconds(5)) throws -> JSON {
        let frames = try receiveFrames(timeout: timeout)
        return try JSON.parse(frames.last!)
    }

    func receiveFrames(timeout: Duration = .seconds(5)) throws -> [[UInt8]] {
        try socket.setReceiveTimeout(timeout)
        guard let frames = try socket.receiveMultipart() else { throw Timeout() }
        return frames
    }
}

/// A SUB socket that collects `(topic, body)` messages.
final class TestSubscriber {
    let context: ZMQContext
    let socket: ZMQSocket

    init(endpoint: String, topics: [String] = [""]) throws {
        context = try ZMQContext()
        socket = try ZMQSocket(context, .sub)
        try socket.setLinger(.zero)
        try socket.setReceiveHighWaterMark(0)
        for t in topics { try socket.subscribe(t) }
        try socket.connect(endpoint)
    }

    deinit {
        socket.close()
        context.terminate()
    }

    /// The live messages (raw bodies) that `replayed` (one body per line, as `segue replay --json`
    /// prints them) does not hold byte for byte.
    static func missing(_ live: [(topic: String, body: JSON, raw: [UInt8])], from replayed: String) -> [String] {
        let lines = Set(replayed.split(separator: "\n").map { Array($0.utf8) })
        return live.filter { !lines.contains($0.raw) }.map { String(decoding: $0.raw, as: UTF8.self) }
    }

    /// Receives until `timeout` passes with nothing new, or `until` says stop.
    func collect(
        idle: Duration = .milliseconds(300), max: Duration = .seconds(10), until: ((String, JSON) -> Bool)? = nil
    )
        throws -> [(topic: String, body: JSON, raw: [UInt8])]
    {
        var out: [(String, JSON, [UInt8])] = []
        try socket.setReceiveTimeout(idle)
        let deadline = ContinuousClock.now + max
        while ContinuousClock.now < deadline {
            guard let frames = try socket.receiveMultipart(), frames.count == 2 else { break }
            let topic = String(decoding: frames[0], as: UTF8.self)
            let body = try JSON.parse(frames[1])
            out.append((topic, body, frames[1]))
            if let until, until(topic, body) { break }
        }
        return out
    }
}
