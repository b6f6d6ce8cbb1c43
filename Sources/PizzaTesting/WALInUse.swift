import Foundation

/// How much of a database's WAL is in use now, read as every connection shares it: `mxFrame` of the wal-index
/// header (the start of the `-shm` file, in the machine's byte order) times the frame size. The `-wal` file's own
/// size only ever grows; this falls back when the WAL starts over.
public enum WALInUse {
    public static func mebibytes(_ database: String) -> Double {
        guard let handle = FileHandle(forReadingAtPath: database + "-shm"),
            let header = try? handle.read(upToCount: 20), header.count == 20
        else { return 0 }
        try? handle.close()
        let pageSize = Double(UInt16(header[14]) | UInt16(header[15]) << 8)
        let frames = header[16..<20].enumerated().reduce(UInt32(0)) { $0 | UInt32($1.element) << (8 * $1.offset) }
        return Double(frames) * ((pageSize == 1 ? 65_536 : pageSize) + 24) / 1_048_576
    }
}
