import Foundation
import SegueStore
import SegueWire

/// The relay's ZAP handler: with `--publish-key`, admits the subscribers whose public keys were given
/// with `--allow`, and refuses every other key (and every other mechanism).
enum RelayGate {
    static func start(context: ZMQContext, allowed: Set<String>) throws(ZMQError) {
        let socket = try ZMQSocket(context, .rep)
        try socket.bind(ZAPRequest.endpoint)
        let transfer = ZMQSocketTransfer(socket)
        let thread = Thread(named: "segue-relay-zap") {
            let socket = transfer.take()
            // ETERM (the relay stopping) ends the loop.
            while let frames = try? socket.receiveMultipart() {
                _ = try? socket.sendMultipart(reply(to: frames, allowed: allowed))
            }
        }
        thread.start()
    }

    static func reply(to frames: [[UInt8]], allowed: Set<String>) -> [[UInt8]] {
        guard let request = ZAPRequest(frames: frames) else { return ZAPRequest.malformedReply }
        guard let key = request.curveKey, allowed.contains(key) else {
            RelayLog.line(
                "Refused a subscriber: "
                    + (request.curveKey.map { "CURVE key \($0) was not given to --allow." }
                        ?? "it did not authenticate with CURVE (mechanism \(request.mechanism))."))
            return request.reply(status: 400, text: "Unknown client key")
        }
        return request.reply(status: 200, text: "OK")
    }
}
