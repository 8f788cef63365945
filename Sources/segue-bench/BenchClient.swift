import Foundation
import SegueCore
import SegueWire

/// A DEALER on the daemon's command socket: one request frame out, one reply frame back.
final class BenchClient {
    let socket: ZMQSocket

    init(context: ZMQContext, endpoint: String) throws {
        socket = try ZMQSocket(context, .dealer)
        try socket.setLinger(.zero)
        try socket.setSendHighWaterMark(0)
        try socket.setReceiveHighWaterMark(0)
        try socket.connect(endpoint)
    }

    /// Sends one request and waits for its reply; `nil` on timeout.
    func request(_ body: [UInt8], timeout: Duration = .seconds(30)) throws -> [UInt8]? {
        try socket.send(body)
        try socket.setReceiveTimeout(timeout)
        return try socket.receive()
    }

    /// A request as JSON, its reply parsed; throws on timeout or `ok: false`.
    @discardableResult
    func call(_ request: JSON, timeout: Duration = .seconds(30)) throws -> JSON {
        guard let bytes = try self.request(request.serializedBytes(), timeout: timeout) else {
            throw BenchError("No reply to \(request.serialized()) within \(timeout).")
        }
        let reply = try JSON.parse(bytes)
        guard reply["ok"]?.boolValue == true else {
            throw BenchError("\(request.serialized()) failed: \(reply.serialized())")
        }
        return reply
    }

    /// Sends every request with at most `window` in flight; returns how many replies were `ok` and
    /// the first failure body, if any.
    func pipeline(_ requests: [[UInt8]], window: Int = 1000) throws -> (ok: Int, firstError: String?) {
        var sent = 0
        var received = 0
        var ok = 0
        var firstError: String?
        let okPrefix = Array(#"{"ok":true"#.utf8)
        try socket.setReceiveTimeout(.seconds(60))
        while received < requests.count {
            while sent < requests.count, sent - received < window {
                try socket.send(requests[sent])
                sent += 1
            }
            guard let reply = try socket.receive() else {
                throw BenchError("Pipelined requests: no reply within 60 s after \(received) of \(requests.count).")
            }
            received += 1
            if reply.starts(with: okPrefix) {
                ok += 1
            } else if firstError == nil {
                firstError = String(decoding: reply, as: UTF8.self)
            }
        }
        return (ok, firstError)
    }

    /// The daemon's `stats` reply.
    func stats() throws -> JSON { try call(["cmd": "stats"]) }
}

extension JSON {
    /// A number at a path of object keys, as Double (0 when absent).
    func number(_ keys: String...) -> Double {
        var value: JSON? = self
        for key in keys { value = value?[key] }
        return value?.doubleValue ?? value?.int64Value.map(Double.init) ?? 0
    }
}
