import Foundation
import SegueWire

/// The ZAP handler (RFC 27) on `inproc://zeromq.zap.01`: admits CURVE clients whose public key is
/// listed, and names their role as the ZAP user id, which the engine reads from each request's
/// `User-Id` property. Any other key, or a non-CURVE mechanism, is refused with status 400.
enum ZAPHandler {
    static func start(context: ZMQContext, clients: AdmittedClients, logger: Logger) throws {
        let socket = try ZMQSocket(context, .rep)
        try socket.bind("inproc://zeromq.zap.01")
        let transfer = ZMQSocketTransfer(socket)
        let thread = Thread {
            let socket = transfer.take()
            while true {
                guard let frames = try? socket.receiveMultipart() else { return }  // ETERM ends it
                _ = try? socket.sendMultipart(reply(to: frames, clients: clients, logger: logger))
            }
        }
        thread.name = "segue-zap"
        thread.start()
    }

    /// The reply frames for one ZAP request: version, request id, status code, text, user id, metadata.
    static func reply(to frames: [[UInt8]], clients: AdmittedClients, logger: Logger) -> [[UInt8]] {
        guard frames.count >= 6 else {
            return [Array("1.0".utf8), [], Array("400".utf8), Array("Malformed ZAP request".utf8), [], []]
        }
        let version = frames[0]
        let requestID = frames[1]
        let mechanism = String(decoding: frames[5], as: UTF8.self)
        func answer(_ code: String, _ text: String, user: String = "") -> [[UInt8]] {
            [version, requestID, Array(code.utf8), Array(text.utf8), Array(user.utf8), []]
        }
        guard mechanism == "CURVE", frames.count >= 7, frames[6].count == 32,
            let key = try? ZMQCurve.z85Encode(frames[6])
        else {
            logger.warning("Refused a client that did not authenticate with CURVE (mechanism \(mechanism)).")
            return answer("400", "CURVE required")
        }
        guard let role = clients.role(of: key) else {
            logger.warning("Refused CURVE client key \(key): not listed in security.curve.clients.")
            return answer("400", "Unknown client key")
        }
        return answer("200", "OK", user: role.rawValue)
    }
}
