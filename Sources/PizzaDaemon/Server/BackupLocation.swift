import Foundation

/// Where a backup may go so that it outlives the service.
///
/// Under systemd (`StateDirectory=` sets `$STATE_DIRECTORY`) the unit's `PrivateTmp=yes` gives pizzad its own
/// `/tmp` and `/var/tmp`, emptied when the service stops, and `/dev/shm` and `/run` are memory: a backup written
/// there would be acknowledged and then vanish. Those paths are refused with the folder that does keep files.
enum BackupLocation {
    static let volatileFolders = ["/tmp", "/var/tmp", "/dev/shm", "/run"]

    /// Why `path` cannot keep a backup, with what to use instead, under the daemon's `environment`; nil when it
    /// can.
    static func refusal(for path: String, environment: [String: String]) -> (reason: String, allowed: String)? {
        guard let state = environment["STATE_DIRECTORY"]?.split(separator: ":").first.map(String.init) else {
            return nil
        }
        let normalized = (path as NSString).standardizingPath
        let stateFolder = (state as NSString).standardizingPath
        if normalized.hasPrefix(stateFolder + "/") { return nil }
        guard let folder = volatileFolders.first(where: { normalized == $0 || normalized.hasPrefix($0 + "/") }) else {
            return nil
        }
        return (
            "\(folder) is private to the pizzad service (or memory) and lost when it stops: back up below \(state) "
                + "and copy the file away from there",
            "a path below \(state)"
        )
    }
}
