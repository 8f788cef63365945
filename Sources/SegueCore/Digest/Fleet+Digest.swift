extension Fleet {
    /// Records `name`'s new digest, of its state at `revision` (`nil`: the navigator is gone), in
    /// the fleet's sum: one lookup, which also hands back the digest it replaces.
    mutating func noteDigest(of name: String, _ digest: SHA256.Digest?, revision: Int64?) {
        let replaced: (revision: Int64, digest: SHA256.Digest)?
        if let digest, let revision {
            replaced = digests.updateValue((revision, digest), forKey: name)
            digestSum &+= digest.leading64
        } else {
            replaced = digests.removeValue(forKey: name)
        }
        digestSum &-= replaced?.digest.leading64 ?? 0
    }

    /// The fleet digest (`StateDigest.fleetHex`) as of `seq`: what a subscriber that folded every
    /// event up to `seq` computes. The daemon's fleet runs ahead of what is durable (and published),
    /// so the navigators changed after `seq` count with the states the journal kept for them.
    /// `nil` when the journal does not reach back to `seq`.
    package func digest(asOf seq: Int64) -> String? {
        guard seq < lastSeq else { return StateDigest.fleetHex(digestSum) }
        let undurable = journal[durableJournalEntries...]
        guard journaling, let first = undurable.first, first.seq <= seq + 1 else { return nil }
        var sum = digestSum
        var seen: Set<String> = []
        for entry in undurable where entry.seq > seq && seen.insert(entry.name).inserted {
            sum &-= digests[entry.name]?.digest.leading64 ?? 0
            if let previous = entry.previous { sum &+= StateDigest.digest(of: previous).leading64 }
        }
        return StateDigest.fleetHex(sum)
    }
}
