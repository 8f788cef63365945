import CZeroMQ

/// Security mechanisms (CURVE, PLAIN) and the ZAP domain (zmq_curve(7), zmq_plain(7), ZMQ RFC 27).
///
/// A CURVE server sets ``setCurveServer(_:)`` and its secret key; a client sets its own key pair and the
/// server's public key. If a ZAP handler is bound on `inproc://zeromq.zap.01` in the same context, libzmq
/// asks it to admit each client (and it names the client's ``ZMQMessage/userID``); without one, any client
/// that knows the server's public key is admitted.
extension ZMQSocket {
    /// `ZMQ_CURVE_SERVER`: this socket is the CURVE server of its connections.
    package func setCurveServer(_ enabled: Bool) throws(ZMQError) {
        try setOption(ZMQ_CURVE_SERVER, "ZMQ_CURVE_SERVER", Int32(enabled ? 1 : 0))
    }

    /// `ZMQ_CURVE_PUBLICKEY`: this socket's long-term public key (clients must set it).
    package func setCurvePublicKey(_ key: ZMQCurve.Key) throws(ZMQError) {
        try setOption(ZMQ_CURVE_PUBLICKEY, "ZMQ_CURVE_PUBLICKEY", bytes: key.bytes)
    }

    /// `ZMQ_CURVE_SECRETKEY`: this socket's long-term secret key (servers and clients).
    package func setCurveSecretKey(_ key: ZMQCurve.Key) throws(ZMQError) {
        try setOption(ZMQ_CURVE_SECRETKEY, "ZMQ_CURVE_SECRETKEY", bytes: key.bytes)
    }

    /// `ZMQ_CURVE_SERVERKEY`: the server's public key; setting it makes this socket a CURVE client.
    package func setCurveServerKey(_ key: ZMQCurve.Key) throws(ZMQError) {
        try setOption(ZMQ_CURVE_SERVERKEY, "ZMQ_CURVE_SERVERKEY", bytes: key.bytes)
    }

    /// ``setCurvePublicKey(_:)-(ZMQCurve.Key)`` from 40 Z85 characters.
    package func setCurvePublicKey(_ z85: String) throws(ZMQError) { try setCurvePublicKey(ZMQCurve.Key(z85: z85)) }

    /// ``setCurveSecretKey(_:)-(ZMQCurve.Key)`` from 40 Z85 characters.
    package func setCurveSecretKey(_ z85: String) throws(ZMQError) { try setCurveSecretKey(ZMQCurve.Key(z85: z85)) }

    /// ``setCurveServerKey(_:)-(ZMQCurve.Key)`` from 40 Z85 characters.
    package func setCurveServerKey(_ z85: String) throws(ZMQError) { try setCurveServerKey(ZMQCurve.Key(z85: z85)) }

    /// `ZMQ_ZAP_DOMAIN`: the domain passed to the ZAP handler, so one handler can serve several policies.
    /// libzmq 4.3 consults ZAP for CURVE and PLAIN whether or not a domain is set.
    package func setZAPDomain(_ domain: String) throws(ZMQError) {
        try setOption(ZMQ_ZAP_DOMAIN, "ZMQ_ZAP_DOMAIN", bytes: Array(domain.utf8))
    }

    /// `ZMQ_PLAIN_SERVER`: accept PLAIN user name/password (clear text; only for trusted networks or tests).
    package func setPlainServer(_ enabled: Bool) throws(ZMQError) {
        try setOption(ZMQ_PLAIN_SERVER, "ZMQ_PLAIN_SERVER", Int32(enabled ? 1 : 0))
    }

    /// `ZMQ_PLAIN_USERNAME` and `ZMQ_PLAIN_PASSWORD`: this socket is a PLAIN client with these credentials.
    package func setPlainCredentials(username: String, password: String) throws(ZMQError) {
        try setOption(ZMQ_PLAIN_USERNAME, "ZMQ_PLAIN_USERNAME", bytes: Array(username.utf8))
        try setOption(ZMQ_PLAIN_PASSWORD, "ZMQ_PLAIN_PASSWORD", bytes: Array(password.utf8))
    }
}
