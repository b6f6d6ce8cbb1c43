import Foundation
import SQLite

/// The writer's reader of the wal-index header (``WALIndexHeader``) on a descriptor it keeps open: how many frames
/// the WAL holds and how many a checkpoint copied back.
final class WALIndex: @unchecked Sendable {
    private let path: String
    /// Only used on the writer's queue.
    private var descriptor: Int32 = -1

    init(path: String) { self.path = path }

    deinit { if descriptor >= 0 { close(descriptor) } }

    /// The frames in the WAL and how many are backfilled; nil when the file cannot be read.
    func read() -> (frames: Int, backfilled: Int)? {
        if descriptor < 0 { descriptor = open(path, O_RDONLY | O_CLOEXEC) }
        guard descriptor >= 0, let header = WALIndexHeader.read(descriptor: descriptor) else { return nil }
        return (header.frames, header.backfilled)
    }
}
