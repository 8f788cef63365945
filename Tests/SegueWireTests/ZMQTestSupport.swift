import Foundation
import Testing

@testable import SegueWire

/// The transports the socket tests run over; each binds in a way that needs no fixed port or path.
enum ZMQTransport: String, CaseIterable, CustomTestStringConvertible {
    case inproc, ipc, tcp

    var testDescription: String { rawValue }

    /// Binds `socket` and returns the endpoint a peer connects to (the resolved port for `tcp://…:*`).
    func bind(_ socket: ZMQSocket, name: String, directory: String) throws -> String {
        switch self {
        case .inproc: try socket.bind("inproc://\(name)")
        case .ipc: try socket.bind("ipc://\(directory)/\(name)")
        case .tcp: try socket.bind("tcp://127.0.0.1:*")
        }
        return try socket.lastEndpoint
    }
}

/// Generous limit for anything that should arrive: it only stops a broken test from hanging.
let arrivalTimeout: Duration = .seconds(2)

func bytes(_ text: String) -> [UInt8] { Array(text.utf8) }

func text(_ bytes: [UInt8]?) -> String? { bytes.map { String(decoding: $0, as: UTF8.self) } }

/// Runs `body` with a fresh directory for ipc endpoints and removes it afterwards.
func withTemporaryDirectory<R>(_ body: (String) throws -> R) throws -> R {
    let path = FileManager.default.temporaryDirectory.appendingPathComponent("segue-zmq-\(UUID().uuidString.prefix(8))")
    try FileManager.default.createDirectory(at: path, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(at: path) }
    return try body(path.path)
}

/// Creates a server bound on `transport` and a client connected to it, both with a receive timeout.
func connectedPair(
    _ context: ZMQContext, server serverKind: ZMQSocket.Kind, client clientKind: ZMQSocket.Kind,
    over transport: ZMQTransport, directory: String
) throws -> (server: ZMQSocket, client: ZMQSocket) {
    let server = try ZMQSocket(context, serverKind)
    let client = try ZMQSocket(context, clientKind)
    try server.setReceiveTimeout(arrivalTimeout)
    try client.setReceiveTimeout(arrivalTimeout)
    let endpoint = try transport.bind(server, name: "server", directory: directory)
    try client.connect(endpoint)
    return (server, client)
}

/// Reads monitor events until one of `kinds` arrives; `nil` if none does within the monitor's timeout.
func awaitMonitorEvent(_ monitor: ZMQSocket, _ kinds: ZMQMonitorEvent.Kind) throws -> ZMQMonitorEvent? {
    while let frames = try monitor.receiveMultipart() {
        if let event = ZMQMonitorEvent(frames: frames), !event.kind.isDisjoint(with: kinds) { return event }
    }
    return nil
}

/// Attaches a monitor to `socket` and returns the PAIR that receives its events (connect before use).
func attachMonitor(to socket: ZMQSocket, name: String, events: ZMQMonitorEvent.Kind) throws -> ZMQSocket {
    try socket.monitor("inproc://\(name)", events: events)
    let pair = try ZMQSocket(socket.context, .pair)
    try pair.setReceiveTimeout(arrivalTimeout)
    try pair.connect("inproc://\(name)")
    return pair
}

/// Waits on a background thread's result, so that a hang fails the test instead of stalling the suite.
final class ThreadResult<Value: Sendable>: @unchecked Sendable {
    // @unchecked: `value` is written before `done.signal()` and read only after `done.wait` succeeds.
    private var value: Value?
    private let done = DispatchSemaphore(value: 0)

    init(_ body: @escaping @Sendable () -> Value) {
        Thread.detachNewThread { [self] in
            value = body()
            done.signal()
        }
    }

    /// The thread's result, or `nil` if it has not finished within `timeout`.
    func wait(timeout: Duration = .seconds(5)) -> Value? {
        let (seconds, attoseconds) = timeout.components
        let deadline = DispatchTime.now() + .nanoseconds(Int(seconds * 1_000_000_000 + attoseconds / 1_000_000_000))
        return done.wait(timeout: deadline) == .success ? value : nil
    }
}
