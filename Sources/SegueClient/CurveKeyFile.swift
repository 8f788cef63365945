import Glibc
import SegueWire

/// A CURVE key read from a file in the form `segue keygen` writes and segued's config reads: 40 Z85
/// characters, optionally followed by whitespace (a trailing newline).
///
/// Reading is careful because one of these files is a secret: the file is opened once and examined
/// through that descriptor (no check-then-open race), it must be a regular file (a FIFO or a device
/// named by mistake would block or stream forever), it is read up to a small bound, and no error
/// message ever quotes its contents.
public struct CurveKeyFile: Equatable, Sendable {
    public var path: String
    /// The 40 Z85 characters.
    public var key: String
    /// The permission bits (`st_mode & 0o7777`).
    public var mode: UInt32

    /// A key file is 41 bytes; anything much longer is the wrong file.
    static let maxBytes = 4096

    /// Reads and checks the key in `path`.
    public static func read(_ path: String) throws(SegueClientError) -> CurveKeyFile {
        func failure(_ problem: String) -> SegueClientError { .keyFile(path: path, problem: problem) }
        let fd = open(path, O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK)
        guard fd >= 0 else { throw failure("cannot be opened: \(errorText(errno)).") }
        defer { close(fd) }
        var info = stat()
        guard fstat(fd, &info) == 0 else { throw failure("cannot be examined: \(errorText(errno)).") }
        guard info.st_mode & S_IFMT == S_IFREG else { throw failure("is not a regular file.") }
        guard info.st_size <= maxBytes else {
            throw failure("is \(info.st_size) bytes; a key file holds one 40-character Z85 key.")
        }
        var bytes = [UInt8](repeating: 0, count: maxBytes + 1)
        var count = 0
        while count < bytes.count {
            let n = bytes.withUnsafeMutableBytes { Glibc.read(fd, $0.baseAddress! + count, $0.count - count) }
            if n == 0 { break }
            if n < 0 {
                if errno == EINTR { continue }
                throw failure("cannot be read: \(errorText(errno)).")
            }
            count += n
        }
        guard count <= maxBytes else { throw failure("grew past \(maxBytes) bytes while it was read.") }
        var text = bytes[..<count]
        while let last = text.last, last == 0x0A || last == 0x0D || last == 0x20 || last == 0x09 {
            text = text.dropLast()
        }
        if let problem = keyProblem(String(decoding: text, as: UTF8.self)) {
            throw failure("does not hold a CURVE key: \(problem).")
        }
        return CurveKeyFile(path: path, key: String(decoding: text, as: UTF8.self), mode: UInt32(info.st_mode & 0o7777))
    }

    /// Why `text` is not a Z85 CURVE key, or `nil` if it is one. Never quotes the text, which may be a
    /// secret key.
    public static func keyProblem(_ text: String) -> String? {
        let length = text.utf8.count
        if length == 0 { return "it is empty" }
        guard length == 40 else { return "it has \(length) characters where a key has 40" }
        do {
            _ = try ZMQCurve.Key(z85: text)
        } catch {
            return "it has characters outside the Z85 alphabet, or groups that overflow 32 bits"
        }
        return nil
    }

    static func errorText(_ code: Int32) -> String { "\(String(cString: strerror(code))) (errno \(code))" }
}

extension CurveCredentials {
    /// The credentials of a client key pair written by `segue keygen --out NAME`: the secret key from
    /// `NAME.key`, checked against `NAME.pub` when that file exists (the public key is a function of
    /// the secret one, so it is derived rather than trusted). `name` may also end in `.key` or `.pub`.
    ///
    /// - Returns: the credentials and the secret key file (whose `mode` the caller may judge).
    public static func keyPair(named name: String, serverPublicKey: String) throws(SegueClientError) -> (
        credentials: CurveCredentials, secretFile: CurveKeyFile
    ) {
        let base = name.hasSuffix(".key") || name.hasSuffix(".pub") ? String(name.dropLast(4)) : name
        let secret = try CurveKeyFile.read(base + ".key")
        guard let derived = try? ZMQCurve.publicKey(fromSecret: secret.key) else {
            throw .keyFile(path: secret.path, problem: "does not hold a usable CURVE secret key.")
        }
        let publicPath = base + ".pub"
        if access(publicPath, F_OK) == 0 {
            let published = try CurveKeyFile.read(publicPath)
            guard published.key == derived else {
                throw .keyFile(
                    path: publicPath,
                    problem: "is not the public half of \(secret.path); the two files come from different pairs.")
            }
        }
        return (CurveCredentials(serverPublicKey: serverPublicKey, publicKey: derived, secretKey: secret.key), secret)
    }
}
