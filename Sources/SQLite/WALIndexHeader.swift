#if canImport(Glibc)
    import Glibc
#endif

/// The WAL's state as every connection to a database shares it: the wal-index header at the start of the `-shm`
/// file (SQLite's `wal.c`: `WalIndexHdr`, two copies of 48 bytes, then `WalCkptInfo`), in the machine's byte order.
/// The `-wal` file's own size only ever grows; these fall back when the WAL starts over. Storage's checkpointer and
/// the tests and benchmarks that watch the WAL read it here, once.
public struct WALIndexHeader: Sendable, Equatable {
    /// Frames in the WAL since it last started over (`mxFrame`).
    public var frames: Int
    /// How many of them a checkpoint has copied back into the database file (`nBackfill`).
    public var backfilled: Int
    /// The database's page size in bytes.
    public var pageSize: Int

    /// The bytes of the header this reads.
    public static let length = 100

    /// The header in `bytes` (the first ``length`` bytes of a `-shm` file); nil when there are fewer.
    public init?(bytes: [UInt8]) {
        guard bytes.count >= Self.length else { return nil }
        func word(_ offset: Int) -> Int {
            bytes.withUnsafeBytes { Int($0.loadUnaligned(fromByteOffset: offset, as: UInt32.self)) }
        }
        let size = bytes.withUnsafeBytes { Int($0.loadUnaligned(fromByteOffset: 14, as: UInt16.self)) }
        frames = word(16)
        backfilled = word(96)
        pageSize = size == 1 ? 65_536 : size
    }

    /// The header of `database`'s `-shm` file; nil when it cannot be read.
    public static func read(database: String) -> WALIndexHeader? {
        let descriptor = open(database + "-shm", O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else { return nil }
        defer { close(descriptor) }
        return read(descriptor: descriptor)
    }

    /// The header read from an open `-shm` file.
    public static func read(descriptor: Int32) -> WALIndexHeader? {
        var bytes = [UInt8](repeating: 0, count: length)
        guard pread(descriptor, &bytes, length, 0) == length else { return nil }
        return WALIndexHeader(bytes: bytes)
    }

    /// The WAL in use, in MiB: its frames, each a page and a 24-byte header.
    public var mebibytesInUse: Double { Double(frames) * Double(pageSize + 24) / 1_048_576 }
}
