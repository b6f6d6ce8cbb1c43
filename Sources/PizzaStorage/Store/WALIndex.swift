import Foundation

/// Reads the WAL's state from the wal-index header at the start of the `-shm` file, as every connection to the
/// database shares it: how many frames the WAL holds since it last started over (`mxFrame`), and how many of them
/// a checkpoint has copied back into the database file (`nBackfill`). See SQLite's `wal.c` (`WalIndexHdr`, two
/// copies of 48 bytes, then `WalCkptInfo`), in the machine's byte order.
final class WALIndex: @unchecked Sendable {
    private let path: String
    /// Only used on the writer's queue.
    private var descriptor: Int32 = -1

    init(path: String) { self.path = path }

    deinit { if descriptor >= 0 { close(descriptor) } }

    /// The frames in the WAL and how many are backfilled; nil when the file cannot be read.
    func read() -> (frames: Int, backfilled: Int)? {
        if descriptor < 0 { descriptor = open(path, O_RDONLY | O_CLOEXEC) }
        guard descriptor >= 0 else { return nil }
        var header = [UInt8](repeating: 0, count: 100)
        guard pread(descriptor, &header, header.count, 0) == header.count else { return nil }
        func word(_ offset: Int) -> Int {
            header.withUnsafeBytes { Int($0.loadUnaligned(fromByteOffset: offset, as: UInt32.self)) }
        }
        return (word(16), word(96))
    }
}
