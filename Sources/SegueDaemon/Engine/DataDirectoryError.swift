import Foundation

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
        let reason = (underlying as NSError).localizedFailureReason ?? (underlying as NSError).localizedDescription
        return "The data directory \(path) cannot be created: \(reason)"
    }

    /// The path itself or the nearest existing ancestor of it, when that is not a directory.
    static func fileInTheWay(of path: String) -> String? {
        var candidate = (path as NSString).standardizingPath
        while !candidate.isEmpty, candidate != "/" {
            var isDirectory: ObjCBool = false
            if FileManager.default.fileExists(atPath: candidate, isDirectory: &isDirectory) {
                return isDirectory.boolValue ? nil : candidate
            }
            candidate = (candidate as NSString).deletingLastPathComponent
        }
        return nil
    }
}
