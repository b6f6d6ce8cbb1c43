import Foundation
import PizzaCore
import PizzaProtocol
import PizzaStorage

extension RPCDispatcher {
    /// `db.*`: the SQLite file.
    static func addDatabaseMethods(to table: inout MethodTable, _ state: DaemonState) {
        let store = state.store
        table.add("db.check", .reader) { params, _ in
            try params.onlyKnown([])
            let result = try store.check()
            return ["ok": .bool(result.ok), "messages": .array(result.messages.map(JSONValue.string))]
        }
        table.add("db.backup", .operator) { params, _ in
            try params.onlyKnown(["path"])
            let path = try params.requiredString("path")
            guard path.hasPrefix("/") else {
                throw RPCError.validation(
                    "path", "the backup path must be absolute (the daemon's working directory is not yours)",
                    allowed: ["an absolute path"])
            }
            guard !path.hasSuffix("/") else {
                throw RPCError.validation(
                    "path", "\(path) names a folder; give the copy's file name, e.g. \(path)pizzad-backup.sqlite",
                    allowed: ["a file's path"])
            }
            guard !FileManager.default.fileExists(atPath: path) else {
                throw RPCError.validation(
                    "path", "\(path) exists; pizzad never overwrites a file", allowed: ["a path that does not exist"])
            }
            let folder = (path as NSString).deletingLastPathComponent
            var isFolder: ObjCBool = false
            guard FileManager.default.fileExists(atPath: folder, isDirectory: &isFolder) else {
                throw RPCError.validation(
                    "path", "the folder \(folder) does not exist; pizzad makes no folders for a backup",
                    allowed: ["a path in an existing folder"])
            }
            guard isFolder.boolValue else {
                throw RPCError.validation(
                    "path", "\(folder) is a file, not a folder", allowed: ["a path in an existing folder"])
            }
            guard access(folder, W_OK | X_OK) == 0 else {
                throw RPCError.validation(
                    "path", "pizzad (uid \(getuid())) may not write into \(folder)",
                    allowed: ["a path in a folder pizzad may write"])
            }
            if let refusal = BackupLocation.refusal(for: path) {
                throw RPCError.validation("path", refusal.reason, allowed: [refusal.allowed])
            }
            let bytes = try await store.backup(to: path)
            state.logger.info("backup written", metadata: ["path": "\(path)", "bytes": "\(bytes)"])
            return ["path": .string(path), "bytes": .int(bytes)]
        }
    }
}
