import Foundation

/// The file that keeps `segue raw`'s prompt lines between sessions: `$SEGUE_HISTORY`, else
/// `~/.segue_history`.
///
/// Written in place, never replaced: a symlink (`~/.segue_history -> dotfiles/…`) stays a symlink,
/// an existing file keeps its mode, a new one is 0600 (its lines may hold tokens, as redis-cli and
/// psql assume). Each line is appended under `flock`, so that sessions running at once keep each
/// other's lines; the file is cut back to `limit` lines only once it has grown well past it.
struct HistoryFile {
    let path: String
    let limit: Int
    /// Lines in the file as this session knows them: read at `load`, plus its own appends.
    private(set) var lines = 0

    init(path: String, limit: Int = 1000) {
        self.path = path
        self.limit = limit
    }

    /// Where history goes, or why there is none: an empty `SEGUE_HISTORY`, or one naming something
    /// other than a regular file (`/dev/null`, as for bash and redis-cli), turns it off; with
    /// neither it nor `HOME` there is no place for it.
    static func chosen(environment: [String: String]) -> Result<HistoryFile, Absence> {
        let path: String
        if let given = environment["SEGUE_HISTORY"] {
            guard !given.isEmpty else { return .failure(.off) }
            path = given
        } else if let home = environment["HOME"], !home.isEmpty {
            path = home + "/.segue_history"
        } else {
            return .failure(.noHome)
        }
        var info = stat()
        if stat(path, &info) == 0, info.st_mode & S_IFMT != S_IFREG { return .failure(.off) }
        return .success(HistoryFile(path: path))
    }

    enum Absence: Error, Equatable { case off, noHome }

    /// The lines kept, oldest first; none when the file does not exist yet.
    mutating func load() throws(HistoryFailure) -> [String] {
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else {
            if errno == ENOENT { return [] }
            throw HistoryFailure(path: path, errno: errno)
        }
        defer { close(fd) }
        let all = try Self.lines(of: fd, path: path)
        lines = all.count
        return Array(all.suffix(limit))
    }

    /// Appends `line`; once the file holds half as many lines again as `limit`, keeps the last `limit`.
    mutating func append(_ line: String) throws(HistoryFailure) {
        let fd = open(path, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0o600)
        guard fd >= 0 else { throw HistoryFailure(path: path, errno: errno) }
        defer { close(fd) }
        try Self.locked(fd, path: path) { () throws(HistoryFailure) in
            try Self.write(Array((line + "\n").utf8), to: fd, path: path)
        }
        lines += 1
        if lines > limit + limit / 2 { try trim() }
    }

    /// Cuts the file to its last `limit` lines, read again under the lock for the lines other
    /// sessions added. The lines kept are copied as bytes to the start of the file and only then is
    /// its end cut off: a kill in between leaves lines twice, never an empty history, and bytes
    /// that are not UTF-8 stay as they were.
    private mutating func trim() throws(HistoryFailure) {
        let fd = open(path, O_RDWR | O_CLOEXEC)
        guard fd >= 0 else { throw HistoryFailure(path: path, errno: errno) }
        defer { close(fd) }
        lines = try Self.locked(fd, path: path) { () throws(HistoryFailure) -> Int in
            let bytes = try Self.contents(of: fd, path: path)
            let all = bytes.split(separator: UInt8(ascii: "\n"))
            guard all.count > limit else { return all.count }
            let kept = Array(bytes[all[all.count - limit].startIndex...])
            guard lseek(fd, 0, SEEK_SET) == 0 else { throw HistoryFailure(path: path, errno: errno) }
            try Self.write(kept, to: fd, path: path)
            guard ftruncate(fd, off_t(kept.count)) == 0 else { throw HistoryFailure(path: path, errno: errno) }
            return limit
        }
    }

    private static func locked<T>(_ fd: Int32, path: String, _ body: () throws(HistoryFailure) -> T)
        throws(HistoryFailure) -> T
    {
        var result: Int32
        repeat { result = flock(fd, LOCK_EX) } while result != 0 && errno == EINTR
        guard result == 0 else { throw HistoryFailure(path: path, errno: errno) }
        defer { flock(fd, LOCK_UN) }
        return try body()
    }

    private static func lines(of fd: Int32, path: String) throws(HistoryFailure) -> [String] {
        String(decoding: try contents(of: fd, path: path), as: UTF8.self).split(separator: "\n").map(String.init)
    }

    private static func contents(of fd: Int32, path: String) throws(HistoryFailure) -> [UInt8] {
        var bytes: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 65536)
        while true {
            let count = read(fd, &chunk, chunk.count)
            if count < 0, errno == EINTR { continue }
            guard count >= 0 else { throw HistoryFailure(path: path, errno: errno) }
            if count == 0 { return bytes }
            bytes += chunk[..<count]
        }
    }

    private static func write(_ bytes: [UInt8], to fd: Int32, path: String) throws(HistoryFailure) {
        var offset = 0
        while offset < bytes.count {
            let count = bytes[offset...].withUnsafeBytes { Glibc.write(fd, $0.baseAddress, $0.count) }
            if count < 0, errno == EINTR { continue }
            guard count > 0 else { throw HistoryFailure(path: path, errno: errno) }
            offset += count
        }
    }
}

/// A history file that could not be read or written, with the system's reason.
struct HistoryFailure: Error, Equatable, CustomStringConvertible {
    let path: String
    let errno: Int32
    var description: String { "\(path): \(String(cString: strerror(errno)))" }
}
