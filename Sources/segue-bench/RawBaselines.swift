import Foundation
import SegueStore
import SegueWire

/// The limits the daemon's figures are judged against, measured in the same run on the same machine.
enum RawBaselines {
    /// A 256 KiB file rewritten 4 KiB at a time at rotating offsets, each write followed by
    /// `fdatasync`: the floor under any durable commit (no size change, so no metadata to sync).
    final class SyncFile {
        let path: String
        let fd: Int32
        let page = [UInt8](repeating: 0x5a, count: 4096)

        init(path: String) throws {
            self.path = path
            fd = open(path, O_CREAT | O_WRONLY | O_TRUNC, 0o644)
            guard fd >= 0 else { throw BenchError("Cannot create \(path): errno \(errno)") }
            for index in 0..<64 { _ = page.withUnsafeBytes { pwrite(fd, $0.baseAddress, 4096, off_t(index * 4096)) } }
            fsync(fd)
        }

        deinit {
            close(fd)
            unlink(path)
        }

        /// One write + fdatasync; returns nanoseconds.
        func sync(index: Int) -> Int64 {
            let start = Bench.monotonic()
            _ = page.withUnsafeBytes { pwrite(fd, $0.baseAddress, 4096, off_t(index % 64 * 4096)) }
            fdatasync(fd)
            return Bench.monotonic() - start
        }
    }

    static func fdatasyncLatency(directory: String, count: Int) throws -> Samples {
        let file = try SyncFile(path: directory + "/raw-fdatasync.bin")
        var samples = Samples()
        for index in 0..<count { samples.add(nanoseconds: file.sync(index: index)) }
        return samples
    }

    /// A ROUTER that sends every message straight back, on its own thread and context (one I/O thread,
    /// as the daemon has), until `stop` is set.
    final class EchoServer {
        let stop = Flag()
        let joiner: Bench.Joiner
        let endpoint: String
        /// The serving thread's id, for its CPU time (`threadCPU`); 0 if `/proc` did not say.
        private let threadID = Box<Int32>(0)

        init(endpoint: String) throws {
            self.endpoint = endpoint
            let stop = self.stop
            let bound = DispatchSemaphore(value: 0)
            let failure = Box<String?>(nil)
            let threadID = self.threadID
            joiner = Bench.thread {
                threadID.set(BackgroundThread.currentThreadID() ?? 0)
                do {
                    let context = try ZMQContext(ioThreads: 1, socketLinger: .zero)
                    let router = try ZMQSocket(context, .router)
                    try router.setSendHighWaterMark(10_000)
                    try router.setReceiveHighWaterMark(10_000)
                    try router.bind(endpoint)
                    bound.signal()
                    var poller = ZMQPoller()
                    _ = poller.add(router)
                    while !stop.isSet {
                        guard try poller.poll(timeout: .milliseconds(50))[0].contains(.readable) else { continue }
                        for _ in 0..<256 {
                            guard let message = try router.receiveMessage(dontWait: true, metadata: []) else { break }
                            try router.sendMultipart(message.frames, dontWait: true)
                        }
                    }
                    router.close()
                    context.terminate()
                } catch {
                    failure.set("\(error)")
                    bound.signal()
                }
            }
            bound.wait()
            if let message = failure.get { throw BenchError("Echo server on \(endpoint): \(message)") }
        }

        func shutdown() {
            stop.set()
            joiner.join()
        }

        /// User and system CPU seconds of the serving thread so far.
        func threadCPU() -> (user: Double, system: Double) {
            threadID.get == 0 ? (0, 0) : ProcessCPU.thread(threadID.get, of: getpid())
        }
    }

    /// Round trips of `message` through the echo server from one DEALER, one at a time.
    static func echoLatency(context: ZMQContext, endpoint: String, message: [UInt8], count: Int) throws -> Samples {
        let server = try EchoServer(endpoint: endpoint)
        defer { server.shutdown() }
        let client = try BenchClient(context: context, endpoint: endpoint)
        for _ in 0..<200 { _ = try client.request(message, timeout: .seconds(5)) }
        var samples = Samples()
        for _ in 0..<count {
            let start = Bench.monotonic()
            guard try client.request(message, timeout: .seconds(5)) != nil else {
                throw BenchError("The echo server did not answer.")
            }
            samples.add(nanoseconds: Bench.monotonic() - start)
        }
        return samples
    }

    /// Echoes per second with `clients` closed-loop DEALERs, one request in flight each.
    static func echoThroughput(
        context: ZMQContext, endpoint: String, message: [UInt8], clients: Int, seconds: Double
    ) throws -> Double {
        let server = try EchoServer(endpoint: endpoint)
        defer { server.shutdown() }
        return try ClosedLoop.run(context: context, endpoint: endpoint, clients: clients, seconds: seconds) { _, _ in
            message
        }.perSecond
    }
}
