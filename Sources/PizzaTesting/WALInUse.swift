import SQLite

/// How much of a database's WAL is in use now (``WALIndexHeader/mebibytesInUse``): the `-wal` file's own size only
/// ever grows; this falls back when the WAL starts over.
public enum WALInUse {
    /// The WAL in use, in MiB; nil when its `-shm` file cannot be read (a reading of 0 would pass any bound).
    public static func mebibytes(_ database: String) -> Double? {
        WALIndexHeader.read(database: database)?.mebibytesInUse
    }
}
