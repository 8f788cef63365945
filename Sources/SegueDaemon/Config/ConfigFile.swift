import Glibc

/// Reads the small files a config names (the config itself, CURVE key files) with errno in the error,
/// so "No such file or directory" or "Permission denied" reaches the operator verbatim.
enum ConfigFile {
    /// Config and key files are a few KiB; a bound keeps a mistaken path (a log, a device) from
    /// being read whole.
    static let maxBytes = 1_048_576

    /// The file's bytes. `location` names what referred to the file (a JSON path), for the error.
    static func contents(_ path: String, location: ConfigPath? = nil) throws(ConfigError) -> [UInt8] {
        func failure(_ message: String) -> ConfigError {
            ConfigError(.config, at: location?.description, message)
        }
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { throw failure("cannot open \(path): \(errorText(errno))") }
        defer { close(fd) }
        var bytes: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 65_536)
        while true {
            let count = chunk.withUnsafeMutableBytes { Glibc.read(fd, $0.baseAddress, $0.count) }
            if count == 0 { break }
            if count < 0 {
                if errno == EINTR { continue }
                throw failure("cannot read \(path): \(errorText(errno))")
            }
            bytes += chunk[0..<count]
            guard bytes.count <= maxBytes else { throw failure("\(path) is larger than \(maxBytes) bytes") }
        }
        return bytes
    }

    /// Permission bits of a file, or nil if it cannot be examined.
    static func mode(_ path: String) -> mode_t? {
        var info = stat()
        guard stat(path, &info) == 0 else { return nil }
        return info.st_mode & 0o7777
    }

    static func errorText(_ code: Int32) -> String { "\(String(cString: strerror(code))) (errno \(code))" }
}
