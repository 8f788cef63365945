import Foundation
import Glibc

/// The data dir could not be created or used, said the way an operator reads it (Foundation's
/// own description is `Error Domain=NSCocoaErrorDomain Code=516 …`).
struct DataDirectoryError: Error, CustomStringConvertible {
    let path: String
    let underlying: Error

    var description: String {
        if let file = Self.fileInTheWay(of: path) {
            return file == (path as NSString).standardizingPath
                ? "\(path) is a file, not a directory; give --data-dir (dataDir) a directory."
                : "The data directory \(path) cannot be created: \(file) is a file, not a directory."
        }
        // Foundation's own words ("You don't have permission.") name neither the directory nor the user.
        if let problem = Self.accessProblem(path) { return problem.prefix(1).uppercased() + problem.dropFirst() + "." }
        let reason = (underlying as NSError).localizedFailureReason ?? (underlying as NSError).localizedDescription
        return "The data directory \(path) cannot be created: \(reason)"
    }

    /// Why this process could not keep its files in the data dir at `path`, or nil: the directory (or,
    /// when it is missing, the nearest ancestor it would be created in) must be writable, and an
    /// existing store file and its `-wal` and `-shm` readable and writable. What `--check-config`
    /// says where the start would fail (`access(2)`, so a read-only file system counts too).
    static func accessProblem(_ path: String) -> String? {
        let user = "this process (uid \(getuid()))"
        let directory = nearestExisting(path)
        let missing = directory != (path as NSString).standardizingPath
        if access(directory, W_OK | X_OK) != 0 {
            let reason = String(cString: strerror(errno))
            return missing
                ? "the data directory \(path) cannot be created by \(user): \(directory) is not writable (\(reason))"
                : "the data directory \(path) cannot be written by \(user) (\(reason))"
        }
        guard !missing else { return nil }
        for name in ["segue.db", "segue.db-wal", "segue.db-shm"] {
            let file = (path as NSString).appendingPathComponent(name)
            guard FileManager.default.fileExists(atPath: file), access(file, R_OK | W_OK) != 0 else { continue }
            return "the event store file \(file) cannot be written by \(user) (\(String(cString: strerror(errno)))); "
                + "give that user the file and its -wal and -shm files (for the packaged service: chown segue:segue)"
        }
        return nil
    }

    /// The path itself or the nearest existing ancestor of it, when that is not a directory.
    static func fileInTheWay(of path: String) -> String? {
        let candidate = nearestExisting(path)
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: candidate, isDirectory: &isDirectory) else { return nil }
        return isDirectory.boolValue ? nil : candidate
    }

    /// The path, standardized, or its nearest ancestor that exists (`.` for a relative path none of
    /// whose parts exists).
    static func nearestExisting(_ path: String) -> String {
        var candidate = (path as NSString).standardizingPath
        while !FileManager.default.fileExists(atPath: candidate), candidate != "/", !candidate.isEmpty {
            candidate = (candidate as NSString).deletingLastPathComponent
        }
        return candidate.isEmpty ? "." : candidate
    }
}
