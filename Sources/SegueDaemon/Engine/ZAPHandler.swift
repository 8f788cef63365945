import Foundation
import SegueStore
import SegueWire

/// The ZAP handler (RFC 27) on `inproc://zeromq.zap.01`: admits CURVE clients whose public key is
/// listed, and names their role as the ZAP user id, which the engine reads from each request's
/// `User-Id` property. Any other key, or a non-CURVE mechanism, is refused with status 400.
enum ZAPHandler {
    static func start(context: ZMQContext, clients: AdmittedClients, logger: Logger) throws {
        let socket = try ZMQSocket(context, .rep)
        try socket.bind(ZAPRequest.endpoint)
        let transfer = ZMQSocketTransfer(socket)
        let thread = Thread(named: "segue-zap") {
            let socket = transfer.take()
            var refusals = RefusalLog()
            // Wakes at least once a second, to log what a flood of refusals held back.
            try? socket.setReceiveTimeout(.seconds(1))
            while true {
                let frames: [[UInt8]]?
                do { frames = try socket.receiveMultipart() } catch {
                    // ETERM ends it: what the flood held back is said first.
                    if let line = refusals.flush(now: .max) { logger.warning(line) }
                    return
                }
                if let frames {
                    _ = try? socket.sendMultipart(
                        reply(to: frames, clients: clients, refusals: &refusals, logger: logger))
                }
                if let line = refusals.flush(now: WallClock.monotonic()) { logger.warning(line) }
            }
        }
        thread.start()
    }

    /// The reply frames for one ZAP request: version, request id, status code, text, user id, metadata.
    static func reply(
        to frames: [[UInt8]], clients: AdmittedClients, refusals: inout RefusalLog, logger: Logger
    ) -> [[UInt8]] {
        guard let request = ZAPRequest(frames: frames) else { return ZAPRequest.malformedReply }
        func refuse(_ line: String, key: String?) {
            if let line = refusals.refused(line, key: key, now: WallClock.monotonic()) { logger.warning(line) }
        }
        guard let key = request.curveKey else {
            refuse("Refused a client that did not authenticate with CURVE (mechanism \(request.mechanism)).", key: nil)
            return request.reply(status: 400, text: "CURVE required")
        }
        guard let role = clients.role(of: key) else {
            refuse("Refused CURVE client key \(key): not listed in security.curve.clients.", key: key)
            return request.reply(status: 400, text: "Unknown client key")
        }
        return request.reply(status: 200, text: "OK", user: role.rawValue)
    }
}
