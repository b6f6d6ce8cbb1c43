import Foundation
import PizzaCore
import PizzaProtocol
import PizzaStorage
import PizzaWire

extension RPCDispatcher {
    /// `db.*`: the SQLite file.
    static func addDatabaseMethods(to table: inout MethodTable, _ state: DaemonState) {
        let store = state.store
        table.add(.check, .reader) { params, _ in
            try params.onlyKnown([])
            let result = try store.check()
            return try CheckAnswer(ok: result.ok, messages: result.messages).json
        }
        table.add(.backup, .operator) { params, _ in
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
            if let refusal = BackupLocation.refusal(for: path, environment: state.environment) {
                throw RPCError.validation("path", refusal.reason, allowed: [refusal.allowed])
            }
            let bytes: Int64
            do {
                bytes = try await store.backup(to: path)
            } catch let error as StorageError {
                // Where the copy goes is the caller's choice: a bad one is a bad parameter, not failing storage.
                switch error {
                case .backupTargetExists:
                    throw RPCError.validation("path", "\(error)", allowed: ["a path that does not exist"])
                case .backupInProgress:
                    throw RPCError.validation("path", "\(error)", allowed: ["a path no other backup is writing"])
                case .backupFolderUnusable:
                    throw RPCError.validation("path", "\(error)", allowed: ["a path in an existing folder"])
                default: throw error
                }
            }
            state.logger.info("backup written", metadata: ["path": "\(path)", "bytes": "\(bytes)"])
            return try BackupAnswer(path: path, bytes: bytes).json
        }
    }
}
