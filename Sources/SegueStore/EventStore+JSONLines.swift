import Foundation
import SegueCore

/// Export and import as JSON Lines (jsonlines.org): one event per line, exactly the wire event body.
///
/// Because export writes `EventRecord.json` with the protocol's serializer and import stores what it
/// reads, export → import into a fresh store → export reproduces the file byte for byte. Only events
/// travel in the file: snapshots are derived data, and the stored command ids are not in it (`segue
/// migrate` copies them store to store, `CommandRecord`).
/// A log read in seq order: what an export needs, from a store or from a read-only `EventLog`.
package protocol EventSequence {
    func forEachEvent(after seq: Int64, _ body: (EventRecord) throws(StoreError) -> Void) throws(StoreError)
}

extension EventStore: EventSequence {}

extension EventSequence {
    /// Writes every event, in seq order, to a new file at `path` (replacing it); returns the count.
    @discardableResult
    package func exportJSONLines(to path: String) throws(StoreError) -> Int {
        guard FileManager.default.createFile(atPath: path, contents: nil),
            let handle = FileHandle(forWritingAtPath: path)
        else {
            throw StoreError(
                kind: .io, message: "Cannot create the export file \(path). Check the directory and its permissions.")
        }
        defer { try? handle.close() }
        var buffer: [UInt8] = []
        buffer.reserveCapacity(1 << 20)
        var count = 0
        func drain() throws(StoreError) {
            do {
                try handle.write(contentsOf: buffer)
            } catch {
                throw StoreError(kind: .io, message: "Cannot write the export file \(path): \(error).")
            }
            buffer.removeAll(keepingCapacity: true)
        }
        try forEachEvent(after: 0) { event throws(StoreError) in
            event.json.serialize(into: &buffer)
            buffer.append(UInt8(ascii: "\n"))
            count += 1
            if buffer.count >= 1 << 20 { try drain() }
        }
        try drain()
        do {
            try handle.synchronize()
        } catch {
            throw StoreError(kind: .io, message: "Cannot sync the export file \(path): \(error).")
        }
        return count
    }

}

extension EventStore {
    /// Appends the events of the JSON Lines file at `path`, and `commands` with them, all or none, in
    /// one transaction; returns the count of events.
    ///
    /// The file must continue this log: its first seq is `lastSeq + 1` (1 for a fresh store), seqs
    /// are gapless, and every navigator's revisions continue from its last stored one. The first
    /// line that breaks a rule (or is not an event) is reported with its 1-based line number.
    @discardableResult
    package func importJSONLines(from path: String, commands: [CommandRecord]) throws(StoreError) -> Int {
        let events = try Self.readJSONLines(from: path)
        return try withWriter { writer throws(StoreError) in
            try Self.checkContinuity(events, after: writer.lastSeq) { navigator throws(StoreError) in
                try writer.withDatabase { database throws(StoreError) in
                    let statement = try database.prepare("SELECT MAX(revision) FROM events WHERE navigator = ?")
                    statement.bind(navigator, at: 1)
                    _ = try statement.step()
                    return statement.int64(at: 0)
                }
            }
            return try Self.commitImport(events, commands: commands) { units in writer.commit(units) }
        }
    }

    /// Commits an import's `events` and `commands` through `commit` (one transaction); returns the
    /// count of events.
    package static func commitImport(
        _ events: [(line: Int, event: EventRecord)], commands: [CommandRecord],
        _ commit: ([AppendUnit]) -> [Result<Void, StoreError>]
    ) throws(StoreError) -> Int {
        guard !events.isEmpty || !commands.isEmpty else { return 0 }
        let units = try AppendUnit.units(of: events.map(\.event), commands: commands)
        for result in commit(units) { try result.get() }
        return events.count
    }

    /// The events of the JSON Lines file at `path`, each with its 1-based line number.
    package static func readJSONLines(from path: String) throws(StoreError) -> [(line: Int, event: EventRecord)] {
        guard let contents = FileManager.default.contents(atPath: path) else {
            throw StoreError(
                kind: .io, message: "Cannot read the import file \(path). Check that it exists and is readable.")
        }
        return try parseJSONLines(Array(contents))
    }

    /// Splits `bytes` into lines and reads each as an event; a final newline is optional.
    package static func parseJSONLines(_ bytes: [UInt8]) throws(StoreError) -> [(line: Int, event: EventRecord)] {
        var events: [(line: Int, event: EventRecord)] = []
        var lines = bytes.split(separator: UInt8(ascii: "\n"), omittingEmptySubsequences: false)
        if lines.last?.isEmpty == true { lines.removeLast() }
        for (index, line) in lines.enumerated() {
            let number = index + 1
            let json: JSON
            do throws(JSONError) {
                json = try JSON.parse(line)
            } catch {
                let column = error.position(in: Array(line)).column
                throw StoreError(
                    kind: .invalidData, message: "Line \(number), column \(column): not valid JSON: \(error.message).",
                    line: number)
            }
            // Import stores what it reads: a member this build does not know would be lost.
            do throws(CoreError) {
                events.append((number, try EventRecord(json: json, unknownMembers: .reject)))
            } catch {
                let seq = json["seq"]?.int64Value.map { " (seq \($0))" } ?? ""
                throw StoreError(
                    kind: .invalidData,
                    message: "Line \(number)\(seq): "
                        + error.message(askingIfUnknown: "was it exported by a newer segue?"), line: number)
            }
        }
        return events
    }

    /// Checks that `events` continue a log ending at `lastSeq`, whose navigators end at the
    /// revisions `lastRevision` returns.
    package static func checkContinuity(
        _ events: [(line: Int, event: EventRecord)], after lastSeq: Int64,
        lastRevision: (String) throws(StoreError) -> Int64
    ) throws(StoreError) {
        var seq = lastSeq
        var revisions: [String: Int64] = [:]
        for (line, event) in events {
            guard event.seq == seq + 1 else {
                throw StoreError(
                    kind: .outOfSequence,
                    message: "Line \(line) has seq \(event.seq), but the log continues at seq \(seq + 1).", line: line)
            }
            let last: Int64
            if let known = revisions[event.navigator] { last = known } else { last = try lastRevision(event.navigator) }
            guard event.revision == last + 1 else {
                throw StoreError(
                    kind: .outOfSequence,
                    message: "Line \(line) has revision \(event.revision) for navigator \"\(event.navigator)\", "
                        + "but that navigator continues at revision \(last + 1).", line: line)
            }
            revisions[event.navigator] = event.revision
            seq = event.seq
        }
    }
}
