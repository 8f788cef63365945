import Foundation
import SegueCore

/// The events of a JSON Lines file (an export), read one line at a time: what import, verify and
/// migrate hold is one read buffer and the event at hand, whatever the file's size.
///
///     let lines = try EventLines(path)
///     while let (line, event) = try lines.next() { ... }
package final class EventLines {
    /// How much is read from the file at a time.
    static let readSize = 1 << 20

    let path: String
    private let fd: Int32
    private let ownsDescriptor: Bool
    private var buffer: [UInt8] = []
    /// Where the next line starts in `buffer`, and where to look for its newline.
    private var start = 0
    private var scanned = 0
    private var number = 0
    private var atEnd = false

    /// Opens the file at `path` (`-`: standard input).
    package init(_ path: String) throws(StoreError) {
        self.path = path
        ownsDescriptor = path != "-"
        fd = ownsDescriptor ? open(path, O_RDONLY | O_CLOEXEC) : STDIN_FILENO
        guard fd >= 0 else {
            throw StoreError(
                kind: .io,
                message: "Cannot read the import file \(path): \(String(cString: strerror(errno))). "
                    + "Check that it exists and is readable.")
        }
    }

    deinit { if ownsDescriptor { close(fd) } }

    /// Calls `body` with each event of the file at `path` and its 1-based line, in file order.
    package static func forEach(
        in path: String, _ body: (_ line: Int, _ event: EventRecord) throws(StoreError) -> Void
    ) throws(StoreError) {
        let lines = try EventLines(path)
        while let (line, event) = try lines.next() { try body(line, event) }
    }

    /// The next event and its 1-based line; nil after the last. A line that is not an event, a blank
    /// one included, fails with `invalidData` (its line, and the column for JSON that does not
    /// parse); a member this build does not know is refused, since storing the event would lose it.
    package func next() throws(StoreError) -> (line: Int, event: EventRecord)? {
        guard let (number, line) = try nextLine() else { return nil }
        guard !line.isEmpty else {
            throw StoreError(
                kind: .invalidData, message: "Line \(number) is blank; an export holds one event on every line.",
                line: number)
        }
        return (number, try Self.event(line, number: number))
    }

    /// One line read as an event, its faults said with its line number.
    private static func event(_ line: ArraySlice<UInt8>, number: Int) throws(StoreError) -> EventRecord {
        // A line that does not even open an object (a log line, a note pasted in) is said as what it
        // is: the parser would read "not json" as a misspelt `null`.
        if let start = line.first(where: { $0 != 0x20 && $0 != 0x09 }), start != UInt8(ascii: "{") {
            let text = String(decoding: line.prefix(40), as: UTF8.self)
            throw StoreError(
                kind: .invalidData,
                message: "Line \(number) is not an event: an export holds one JSON object per line, and this one "
                    + "starts \(JSON.string(text).serialized())\(line.count > 40 ? "…" : "").",
                line: number)
        }
        let json: JSON
        do throws(JSONError) {
            json = try JSON.parse(line)
        } catch {
            let column = error.position(in: Array(line)).column
            throw StoreError(
                kind: .invalidData, message: "Line \(number), column \(column): not valid JSON: \(error.message).",
                line: number)
        }
        do throws(CoreError) {
            return try EventRecord(json: json, unknownMembers: .reject)
        } catch {
            let seq = json["seq"]?.int64Value.map { " (seq \($0))" } ?? ""
            throw StoreError(
                kind: .invalidData,
                message: "Line \(number)\(seq): " + error.message(askingIfUnknown: "was it exported by a newer segue?"),
                line: number)
        }
    }

    /// The next line's number and bytes (without its newline); a final line without one counts.
    private func nextLine() throws(StoreError) -> (Int, ArraySlice<UInt8>)? {
        while true {
            if let newline = buffer[scanned...].firstIndex(of: UInt8(ascii: "\n")) {
                defer {
                    start = newline + 1
                    scanned = start
                }
                number += 1
                return (number, buffer[start..<newline])
            }
            scanned = buffer.count
            if atEnd {
                guard start < buffer.count else { return nil }
                defer { start = buffer.count }
                number += 1
                return (number, buffer[start...])
            }
            try refill()
        }
    }

    /// Drops the lines already read and appends the next read's bytes.
    private func refill() throws(StoreError) {
        buffer.removeSubrange(0..<start)
        scanned -= start
        start = 0
        let held = buffer.count
        buffer.append(contentsOf: repeatElement(0, count: Self.readSize))
        var count = 0
        repeat {
            count = buffer.withUnsafeMutableBytes { bytes in read(fd, bytes.baseAddress! + held, Self.readSize) }
        } while count < 0 && errno == EINTR
        guard count >= 0 else {
            let reason = String(cString: strerror(errno))
            buffer.removeSubrange(held...)
            throw StoreError(kind: .io, message: "Cannot read the import file \(path): \(reason).")
        }
        buffer.removeSubrange((held + count)...)
        atEnd = count == 0
    }
}

@available(*, unavailable)
extension EventLines: Sendable {}
