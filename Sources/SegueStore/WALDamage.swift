import Foundation

/// Committed transactions left in the WAL after a damaged frame, which SQLite's recovery drops.
///
/// SQLite takes a WAL's frames as valid up to the first whose checksum (cumulative over every frame
/// before it) or salts do not match, and ignores everything after it: one flipped bit in the middle
/// of the WAL silently drops every commit written after it, acknowledged ones included. A torn
/// write at a crash damages at most the transaction being written, which was never acknowledged;
/// so after the frames SQLite kept, frames of this WAL's generation (its header's salts) that end a
/// transaction, beyond the first, are commits lost to damage. Read from the file before anything
/// writes to the WAL again (the writer then starts over at the first frame SQLite dropped).
package struct WALDamage: Equatable, Sendable {
    /// The frames SQLite took as valid (the log ends with the last commit among them).
    package var validFrames: Int
    /// Transactions committed after the damaged frame, the one it belongs to not counted.
    package var lostCommits: Int
    /// Where a copy of the damaged WAL was kept, for a restore or a look (nil if it could not be made).
    package var copy: String?

    /// Looks for commits beyond the `validFrames` SQLite kept in the WAL at `walPath`; nil when none.
    static func find(walPath: String, validFrames: Int) -> WALDamage? {
        guard let look = look(walPath: walPath, validFrames: validFrames), look.commits > 1 else { return nil }
        return WALDamage(validFrames: validFrames, lostCommits: look.commits - 1, copy: nil)
    }

    /// How many frames past the valid ones end a commit of this WAL's generation, and how many frames
    /// the look read; nil for a file that is not a WAL.
    ///
    /// SQLite writes a generation's frames one after the other from the start of the file, so the
    /// frames after a damaged one that still belong to it follow it. A run of 64 frames that do not
    /// (never written: the preallocated WAL is zeros; or left by an earlier generation, which a WAL
    /// reset writes over from the start) ends the look: a WAL that has been reset many times holds
    /// older frames to its end, and reading them all made every start read the whole file (22 MB
    /// after a log of 10 million events, ~13 ms of a 32 ms start).
    static func look(walPath: String, validFrames: Int) -> (commits: Int, framesRead: Int)? {
        let fd = Glibc.open(walPath, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { return nil }
        defer { close(fd) }
        guard let header = read(fd, upTo: 32, at: 0), header.count == 32,
            [0x377f_0682, 0x377f_0683].contains(bigEndian(header, 0))
        else { return nil }
        let pageSize = Int(bigEndian(header, 8))
        guard pageSize >= 512, pageSize <= 65536 else { return nil }
        let salts = (bigEndian(header, 16), bigEndian(header, 20))
        let frameSize = 24 + pageSize
        var commits = 0
        var framesRead = 0
        var foreign = 0
        var offset = 32 + validFrames * frameSize
        // 64 frames at a time, the length of a run that ends the look. Frame headers: page number,
        // the database size after a commit (0 inside a transaction), the two salts, the two checksums.
        let framesPerRead = 64
        scan: while let chunk = read(fd, upTo: framesPerRead * frameSize, at: off_t(offset)) {
            for start in stride(from: 0, to: chunk.count - 23, by: frameSize) {
                framesRead += 1
                guard (bigEndian(chunk, start + 8), bigEndian(chunk, start + 12)) == salts else {
                    foreign += 1
                    if foreign >= 64 { break scan }
                    continue
                }
                foreign = 0
                if bigEndian(chunk, start + 4) != 0 { commits += 1 }
            }
            offset += chunk.count
            if chunk.count < framesPerRead * frameSize { break }
        }
        return (commits, framesRead)
    }

    /// Keeps a copy of the WAL beside it (`…-wal.damaged-<unix time>`), before the writer reuses it.
    mutating func keepCopy(of walPath: String) {
        let copyPath = walPath + ".damaged-\(Int(Date().timeIntervalSince1970))"
        copy = (try? FileManager.default.copyItem(atPath: walPath, toPath: copyPath)) == nil ? nil : copyPath
    }

    /// Up to `count` bytes at `offset`; nil at the end of the file or on an error.
    private static func read(_ fd: Int32, upTo count: Int, at offset: off_t) -> [UInt8]? {
        var bytes = [UInt8](repeating: 0, count: count)
        let got = bytes.withUnsafeMutableBytes { pread(fd, $0.baseAddress, count, offset) }
        guard got > 0 else { return nil }
        bytes.removeLast(count - got)
        return bytes
    }

    private static func bigEndian(_ bytes: [UInt8], _ at: Int) -> UInt32 {
        bytes[at..<at + 4].reduce(0) { $0 << 8 | UInt32($1) }
    }
}
