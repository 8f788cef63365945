import SegueCore
import SegueProtocol
import SegueStore

/// The log's past, folded: a navigator's state as of a seq (`state` with `at`), and `history` pages
/// with the digest of each event (the log stores none). Reads only what is committed, through any
/// `PastReading`: the core's reader for `state`, the loop's history thread's own for `history`.
struct PastFold {
    let clock: FrameClock
    let reader: any PastReading

    /// The newest snapshot at or before `seq`, then the navigator's events up to it.
    func state(of name: String, at seq: Int64) throws(CoreError) -> NavigatorState {
        do {
            var state = Navigator.initialState(name: name, clock: clock)
            var from: Int64 = 0
            if let snapshot = try reader.snapshot(of: name, atOrBefore: seq) {
                state = try NavigatorState(json: snapshot.state)
                from = snapshot.seq
            }
            for record in try reader.events(of: name, after: from, upTo: seq) {
                state = Navigator.evolve(state, try NavigationEvent(record: record))
            }
            return state
        } catch let error as CoreError {
            throw error
        } catch let error as StoreError {
            throw error.coreError
        } catch {
            throw CoreError(.internal, "Reading the log failed: \(error).")
        }
    }

    /// Each record with the digest it was published with: each navigator is folded from its state
    /// just before its first record here (a snapshot and a short tail), then record by record. A
    /// navigator whose event this build cannot decode (written by a newer one) keeps its records
    /// from there without a digest, rather than failing the page a gap-filling client needs.
    func withDigests(_ records: [EventRecord]) throws(CoreError) -> [EventRecord] {
        var states: [String: NavigatorState] = [:]
        var undecodable: Set<String> = []
        var digested = records
        for index in digested.indices {
            let record = digested[index]
            guard !undecodable.contains(record.navigator) else { continue }
            var state: NavigatorState
            if let folded = states[record.navigator] {
                state = folded
            } else if record.revision == 1 {
                state = Navigator.initialState(name: record.navigator, clock: clock)
            } else {
                state = try self.state(of: record.navigator, at: record.seq - 1)
            }
            guard let event = try? NavigationEvent(record: record) else {
                undecodable.insert(record.navigator)
                continue
            }
            state = Navigator.evolve(state, event)
            states[record.navigator] = state
            digested[index].digest = StateDigest.digest(of: state).hex
        }
        return digested
    }
}

/// A `history` request, as the core hands it to the loop to answer off its thread.
struct HistoryQuery: Equatable, Sendable {
    var id: String?
    var navigator: String?
    var after: Int64
    var limit: Int
    /// The run that answers (`HistoryPage.instance`).
    var instance: String
    var clock: FrameClock

    /// The page of durable events after `after`, with their digests, or the error reply.
    func reply(from reader: any PastReading) -> JSON {
        do throws(CoreError) {
            let events: [EventRecord]
            do throws(StoreError) {
                events = try reader.events(after: after, navigator: navigator, limit: limit + 1)
            } catch {
                throw error.coreError
            }
            let page = try PastFold(clock: clock, reader: reader).withDigests(Array(events.prefix(limit)))
            return HistoryPage(
                events: page, next: page.last?.seq ?? after, more: events.count > limit, instance: instance
            ).json(id: id)
        } catch {
            return Reply.error(id: id, WireError(error))
        }
    }
}
