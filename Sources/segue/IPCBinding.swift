import SegueWire

/// What the CLI's binders (`relay`, `replay --publish`) check before binding an endpoint. libzmq's
/// bind replaces whatever is at an ipc path: a file written over would be deleted, and a socket another
/// process listens on (a segued, a relay) taken from it, cutting off whoever connects to it for good.
/// A tcp host name fails the bind with a bare "No such device" (`BindHost`).
enum IPCBinding {
    /// Refuses `endpoint` when binding it would destroy a file or take another listener's socket, or
    /// cannot work (a tcp host name); `likely` names who that listener may be ("another relay?").
    static func refuseUnsafe(_ endpoint: String, likely: String) throws(TransportFailure) {
        if let refusal = IPCSocketFile.refusal(endpoint) ?? BindHost.refusal(endpoint) {
            throw TransportFailure("Cannot bind \(endpoint): it \(refusal).")
        }
        guard IPCSocketFile.isInUse(endpoint) else { return }
        throw TransportFailure(
            "Cannot bind \(endpoint): another process (\(likely)) listens on it, and binding would take "
                + "its socket file and cut off whoever connects to it; stop that process or choose another endpoint.")
    }
}
