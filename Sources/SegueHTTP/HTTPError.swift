/// What can go wrong starting an HTTP server: the module's one error type. `code` is stable (callers
/// branch on it); `message` is a sentence for a person, naming the address.
package struct HTTPError: Error, Equatable, Sendable, CustomStringConvertible {
    package enum Code: String, Sendable {
        /// The text is not `HOST:PORT` with a numeric address (or `localhost`) and a port 0...65535.
        case invalidAddress = "invalid_address"
        /// Another socket listens on that address and port.
        case addressInUse = "address_in_use"
        /// The address is not one of this machine's.
        case addressUnavailable = "address_unavailable"
        /// The port needs privileges (below 1024), or a policy forbids the bind.
        case permissionDenied = "permission_denied"
        /// Any other socket or libmicrohttpd failure.
        case startFailed = "start_failed"
    }

    package var code: Code
    package var message: String

    package init(_ code: Code, _ message: String) {
        self.code = code
        self.message = message
    }

    package var description: String { message }
}
