import SegueCore
import SegueStore

extension EngineCore {
    /// A batch whose commit outcome was lost (PostgreSQL's connection dropped before COMMIT's
    /// result) fails, and its clients get `unavailable`; when the store later reads it back and
    /// finds it committed, the log holds events the fleet rolled back. The fleet folds them in from
    /// the store before it numbers anything else, so it never numbers a seq the log already holds
    /// nor acknowledges on the strength of events it does not have.
    ///
    /// Their events are published then, as every stored event is: a subscriber sees the log's
    /// events in seq order, whatever their commands were answered.
    ///
    /// When the store cannot be read now, the durable seq stays at the fleet's: nothing is released
    /// past what the fleet holds, the next commit fails on the numbering, and this runs again.
    ///
    /// `ours`: with several daemons on the log, the voided events' bodies by seq. An event there
    /// with other bytes is another daemon's (one that took a shard while this one was cut off): it
    /// is folded in but not published again, since its daemon published it. Nil: one writer, so
    /// every event past the fleet is this daemon's.
    func takeCommittedFromStore(through durable: Int64, ours: [Int64: [UInt8]]? = nil) {
        var fleet = self.fleet
        let from = fleet.lastSeq + 1
        var own = 0
        var publications: [Outbox.Message] = []
        do {
            try store.forEachEvent(after: fleet.lastSeq) { record throws(StoreError) in
                guard record.seq <= durable else { return }
                // With shards, events of navigators led elsewhere are other daemons': position only.
                // Published as applied, with its digest: the store keeps none.
                guard let applied = try Self.take(record, into: &fleet, applying: leads(record.navigator)) else {
                    return
                }
                dirty.insert(record.navigator)
                let body = applied.encodedWithData().bytes
                guard ours.map({ $0[record.seq] == body }) ?? true else { return }
                own += 1
                publications.append(.publish(topic: eventTopic(record.navigator), body: body))
            }
            fleet.markDurable(through: durable)
            self.fleet = fleet
            if !publications.isEmpty { actions.append(.send(publications)) }
            if own > 0 {
                log(
                    .notice,
                    "A batch whose commit outcome was lost was found committed after all: \(own.counted("event")) from seq "
                        + "\(from) to \(durable) taken from the log (their commands were answered unavailable; a "
                        + "retry gets the stored reply).")
            }
        } catch {
            log(.warning, "Cannot read the events a lost commit stored (\(error)); commands wait for the next try.")
        }
        durableSeq = min(durable, self.fleet.lastSeq)
    }
}
