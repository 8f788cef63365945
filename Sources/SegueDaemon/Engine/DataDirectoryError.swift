import Foundation

/// The data dir could not be created or used, said the way an operator reads it (Foundation's
/// own description is `Error Domain=NSCocoaErrorDomain Code=516 …`).
struct DataDirectoryError: Error, CustomStringConvertible {
    let path: String
    let underlying: Error

    var description: String {
        var isDirectory: ObjCBool = false
        if FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory), !isDirectory.boolValue {
            return "\(path) is a file, not a directory; give --data-dir (dataDir) a directory."
        }
        let reason = (underlying as NSError).localizedFailureReason ?? (underlying as NSError).localizedDescription
        return "The data directory \(path) cannot be created: \(reason)"
    }
}
