import Testing

@testable import SegueWire

/// Shutdown order: terminating a context with sockets open and messages unsent must not hang.
@Suite struct ZMQContextTests {
    /// What the shutdown scenario saw, handed back from its thread.
    struct ShutdownObservations: Sendable {
        var blockedReceive: ZMQError??
        var sendAfterTerminate: ZMQError?
        var terminated: Bool
    }

    @Test func terminateWithOpenSocketsAndUnsentMessagesDoesNotHang() throws {
        // The whole scenario, including the final zmq_close and zmq_ctx_term, runs on its own thread so
        // that a hang fails the test instead of stalling the suite.
        let scenario = ThreadResult { () -> Result<ShutdownObservations, ZMQError> in
            Result { () throws(ZMQError) -> ShutdownObservations in
                let context = try ZMQContext()
                // A DEALER with a message queued for a peer that never answers: infinite linger would hang.
                let stuck = try ZMQSocket(context, .dealer)
                try stuck.connect("tcp://127.0.0.1:1")
                _ = try stuck.send("undeliverable")

                let receiver = ThreadResult { () -> ZMQError? in
                    do throws(ZMQError) {
                        let socket = try ZMQSocket(context, .pull)
                        try socket.bind("inproc://blocked")
                        _ = try socket.receive()  // no timeout: only ETERM ends this
                        return nil
                    } catch {
                        return error
                    }
                }
                context.terminate()
                context.terminate()  // a second call is harmless
                var observations = ShutdownObservations(
                    blockedReceive: receiver.wait(), sendAfterTerminate: nil, terminated: context.isTerminated)
                do throws(ZMQError) { try stuck.send("after") } catch { observations.sendAfterTerminate = error }
                return observations
            }
        }
        let observations = try #require(scenario.wait()).get()
        #expect(observations.terminated)
        let blocked = try #require(observations.blockedReceive, "the blocked receiver did not return")
        #expect(blocked?.isTerminated == true)
        #expect(observations.sendAfterTerminate == ZMQError(code: .terminated, call: "zmq_send"))
    }

    @Test func socketsStartWithTheContextsLinger() throws {
        #expect(try ZMQSocket(ZMQContext(), .push).linger == .zero)
        #expect(try ZMQSocket(ZMQContext(socketLinger: .seconds(1)), .push).linger == .seconds(1))
        #expect(try ZMQSocket(ZMQContext(socketLinger: nil), .push).linger == nil)
    }

    @Test func transferredSocketWorksOnItsNewThread() throws {
        let context = try ZMQContext()
        let reply = try ZMQSocket(context, .rep)
        try reply.setReceiveTimeout(arrivalTimeout)
        try reply.bind("inproc://worker")
        let transfer = ZMQSocketTransfer(reply)
        let worker = ThreadResult { () -> Bool in
            let socket = transfer.take()
            guard let request = try? socket.receive() else { return false }
            return (try? socket.send(request + bytes("!"))) == true
        }
        let request = try ZMQSocket(context, .req)
        try request.setReceiveTimeout(arrivalTimeout)
        try request.connect("inproc://worker")
        try request.send("hello")
        #expect(try request.receive() == bytes("hello!"))
        #expect(worker.wait() == true)
    }

    @Test func versionIsTheLinkedLibrary() {
        #expect(ZMQ.version >= ZMQ.Version(major: 4, minor: 3, patch: 0))
        #expect(ZMQ.version.description.split(separator: ".").count == 3)
        #expect(ZMQ.has("curve"))
    }
}
