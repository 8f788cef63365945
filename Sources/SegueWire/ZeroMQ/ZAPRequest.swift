/// One request to a ZAP handler (ZMQ RFC 27) and the frames of its answer.
///
/// libzmq asks the handler bound on `inproc://zeromq.zap.01` of a CURVE server's context whether to
/// admit each new client: version, request id, domain, address, identity, mechanism, then the
/// mechanism's credentials (for CURVE, the client's 32-byte long-term public key).
package struct ZAPRequest: Equatable, Sendable {
    package let version: [UInt8]
    package let requestID: [UInt8]
    package let mechanism: String
    /// The client's public key in Z85, when the mechanism is CURVE and the key is whole.
    package let curveKey: String?

    /// The request in `frames`, or `nil` when they are too few to be one.
    package init?(frames: [[UInt8]]) {
        guard frames.count >= 6 else { return nil }
        version = frames[0]
        requestID = frames[1]
        mechanism = String(decoding: frames[5], as: UTF8.self)
        curveKey =
            mechanism == "CURVE" && frames.count >= 7 && frames[6].count == 32
            ? try? ZMQCurve.z85Encode(frames[6]) : nil
    }

    /// The reply: status `200` admits the client as `user` (its `User-Id`), `400` refuses it.
    package func reply(status: Int, text: String, user: String = "") -> [[UInt8]] {
        [version, requestID, Array(String(status).utf8), Array(text.utf8), Array(user.utf8), []]
    }

    /// The reply to frames that are not a request at all.
    package static let malformedReply: [[UInt8]] = [
        Array("1.0".utf8), [], Array("400".utf8), Array("Malformed ZAP request".utf8), [], [],
    ]

    /// Where libzmq looks for the handler.
    package static let endpoint = "inproc://zeromq.zap.01"
}
