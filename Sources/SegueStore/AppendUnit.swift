import SegueCore

/// What one command appends: its events, all or none, plus the reply to replay for its id.
///
/// The caller (the daemon) has already numbered the events (`seq` right after the log, `revision`
/// right after each navigator's) because it publishes them; the store checks the numbering and
/// rejects a unit that does not continue the log, writing nothing of it.
package struct AppendUnit: Sendable, Equatable {
    package var events: [EventRecord]
    /// The client's idempotency key; with it, `reply` is stored in the same transaction as the events.
    package var commandID: String?
    package var navigator: String?
    package var reply: JSON?
    /// The fingerprint of the request behind `commandID` (`JSON.fingerprint`), stored with the reply so
    /// that a different request reusing the id is refused even after a restart.
    package var fingerprint: UInt64?
    /// The events' wire bodies (`EventRecord.encodedWithData()`, one per event), when the caller
    /// already wrote them to publish: each row's `data` column is copied from them instead of being
    /// encoded again. The same bytes either way (a test holds the two encodings together).
    package var encoded: [EncodedEvent]?
    /// The caller's count of failed commits when it decided the unit (the daemon's engine epoch), or
    /// nil. Once a unit of generation `g` fails, later units of generation `g` or less are refused
    /// unrun (`GroupCommitter`): they were decided on top of the failed one, so they may build on
    /// events the log does not hold, and their times may go back from events another writer
    /// appended meanwhile, even where their seqs happen to fit the log's new end.
    package var generation: Int?

    package init(
        events: [EventRecord], commandID: String? = nil, navigator: String? = nil, reply: JSON? = nil,
        fingerprint: UInt64? = nil, encoded: [EncodedEvent]? = nil, generation: Int? = nil
    ) {
        precondition(encoded == nil || encoded!.count == events.count, "one encoded body per event")
        self.encoded = encoded
        self.events = events
        self.commandID = commandID
        self.navigator = navigator
        self.reply = reply
        self.fingerprint = fingerprint
        self.generation = generation
    }
}

/// A command applied under an id: its reply and the fingerprint of its request (nil for commands
/// stored before schema version 2, which kept no fingerprint).
package struct StoredCommand: Sendable, Equatable {
    package var reply: JSON?
    package var fingerprint: UInt64?

    package init(reply: JSON?, fingerprint: UInt64?) {
        self.reply = reply
        self.fingerprint = fingerprint
    }
}

/// A navigator's folded state as of `seq`, saved so that open does not refold the whole log.
///
/// The store does not know what `state` means: the caller folds events into it and hands it back.
package struct Snapshot: Sendable, Equatable {
    package var navigator: String
    /// The last event folded into `state`.
    package var seq: Int64
    package var revision: Int64
    package var state: JSON

    package init(navigator: String, seq: Int64, revision: Int64, state: JSON) {
        self.navigator = navigator
        self.seq = seq
        self.revision = revision
        self.state = state
    }
}

/// How much an acknowledged append survives (docs/design.md, "The store").
package enum Durability: String, Sendable, CaseIterable {
    /// `synchronous=FULL`: every commit is fsynced before it is acknowledged; survives power loss.
    case full
    /// `synchronous=NORMAL` in WAL mode: acknowledged once in the WAL; survives a process crash, and
    /// a power loss may lose the last commits (never corrupts).
    case relaxed
}
