/// Why shipping to the centre failed, each said so an operator knows what to do.
public enum ReplicationError: Error, CustomStringConvertible, Sendable, Equatable {
    /// The password file named in configuration (or passed by systemd) cannot be read.
    case passwordFile(path: String)
    /// No connection: refused, unreachable, timed out, TLS failed.
    case unreachable(peer: String, detail: String)
    /// PostgreSQL refused the role or its password.
    case authentication(peer: String, detail: String)
    /// The database holds tables of the central schema's names that pizzad did not create.
    case foreignDatabase(database: String, tables: [String])
    /// The central schema is behind and this role may not migrate it.
    case schemaBehind(found: Int, needed: Int, detail: String)
    /// The central schema was made by a newer pizzad, or an applied migration differs from ours.
    case schemaMismatch(detail: String)
    /// The centre holds other entries at this shop's sequence numbers (e.g. the shop was restored from an old
    /// backup): shipping stops so nothing central is overwritten.
    case diverged(detail: String)
    /// Another pizzad database ships under this shop id (or another role does).
    case shopCollision(detail: String)
    /// An audit entry no longer matches its hash (it was edited behind pizzad's back): it is not shipped, so the
    /// centre never holds a forged entry.
    case tampered(seq: Int64, detail: String)
    /// A central request took longer than allowed (a slow or partitioned peer).
    case timedOut(operation: String, seconds: Int)
    /// PostgreSQL refused a request (a full disk, a dropped function, …).
    case central(detail: String)

    /// Whether retrying cannot help until an operator acts: shipping stops until the next start.
    public var isFatal: Bool {
        switch self {
        case .foreignDatabase, .schemaMismatch, .diverged, .shopCollision, .tampered: true
        default: false
        }
    }

    /// A short name for the kind, for the `reason` of metrics and for tests.
    public var name: String {
        switch self {
        case .passwordFile: "password_file"
        case .unreachable: "unreachable"
        case .authentication: "authentication"
        case .foreignDatabase: "foreign_database"
        case .schemaBehind: "schema_behind"
        case .schemaMismatch: "schema_mismatch"
        case .diverged: "diverged"
        case .shopCollision: "shop_collision"
        case .tampered: "tampered"
        case .timedOut: "timed_out"
        case .central: "central"
        }
    }

    public var description: String {
        switch self {
        case .passwordFile(let path):
            "cannot read the PostgreSQL password file \(path) (replication.postgres.passwordFile; it must be readable by pizzad)"
        case .unreachable(let peer, let detail): "cannot reach PostgreSQL at \(peer): \(detail)"
        case .authentication(let peer, let detail):
            "PostgreSQL at \(peer) refused the login: \(detail) (check replication.postgres.user and the password file)"
        case .foreignDatabase(let database, let tables):
            "database \(database) already holds \(tables.joined(separator: ", ")) that pizzad did not create; "
                + "point replication.postgres.database at a database of pizzad's own"
        case .schemaBehind(let found, let needed, let detail):
            "the central schema is at version \(found) and this pizzad needs \(needed), but this role may not migrate it "
                + "(\(detail)); run `pizzad migrate-central` once with the database owner's role"
        case .schemaMismatch(let detail): "the central schema does not match this pizzad: \(detail)"
        case .diverged(let detail):
            "diverged: \(detail); shipping stopped, nothing central was overwritten. The way back: stop pizzad and run "
                + "`pizzad restore --from-central --force` (this database is kept beside it; see OPERATIONS.md, "
                + "\"Backups and restore\")"
        case .shopCollision(let detail): "shop collision: \(detail); shipping stopped"
        case .tampered(let seq, let detail):
            "audit entry \(seq) \(detail); shipping stopped before it, everything earlier is central "
                + "(run `pizzactl audit verify` and see OPERATIONS.md, \"Replication\")"
        case .timedOut(let operation, let seconds): "\(operation) got no answer from PostgreSQL within \(seconds) s"
        case .central(let detail): "PostgreSQL refused the batch: \(detail)"
        }
    }
}
