import PizzaReplication

/// Shipping's keys (`replication.*`, CONTRACT section 11), one constant each; listed in ``ConfigurationSchema/keys``.
extension ConfigurationKey {
    /// `replication.shopId`.
    static let replicationShopID = ConfigurationKey(
        path: "replication.shopId", kind: .text,
        allowed: "lowercase letters, digits, '-' and '_', at most 63, starting with a letter or digit",
        applied: .onRestart,
        summary: "This shop's id at the centre; required when replication.postgres.host is set.")

    /// `replication.batchSize`.
    static let replicationBatchSize = ConfigurationKey(
        path: "replication.batchSize",
        kind: .integer(range: 1...10_000, noun: "a whole number of audit entries"),
        defaultValue: "500", allowed: "", applied: .onRestart, summary: "Audit entries per central transaction.")

    /// `replication.timeoutSeconds`.
    static let replicationTimeoutSeconds = ConfigurationKey(
        path: "replication.timeoutSeconds", kind: .integer(range: 1...600, noun: "a whole number of seconds"),
        defaultValue: "30", allowed: "", applied: .onRestart,
        summary: "How long connecting or one central request may take before the connection is retried.")

    /// `replication.idleCheckSeconds`.
    static let replicationIdleCheckSeconds = ConfigurationKey(
        path: "replication.idleCheckSeconds",
        kind: .integer(range: 1...3600, noun: "a whole number of seconds"),
        defaultValue: "5", allowed: "", applied: .onRestart,
        summary: "How long the connection may sit with nothing to ship before a round trip checks it.")

    /// `replication.postgres.host`.
    static let replicationHost = ConfigurationKey(
        path: "replication.postgres.host", kind: .text, defaultText: "off",
        allowed: "set together: host, database and user (and replication.shopId) turn shipping on",
        applied: .onRestart, summary: "The central PostgreSQL (or PgBouncer); setting it turns shipping on.")

    /// `replication.postgres.port`.
    static let replicationPort = ConfigurationKey(
        path: "replication.postgres.port", kind: .integer(range: 1...65535, noun: "a TCP port"),
        defaultValue: "5432", allowed: "", applied: .onRestart, summary: "The centre's TCP port.")

    /// `replication.postgres.database`.
    static let replicationDatabase = ConfigurationKey(
        path: "replication.postgres.database", kind: .text,
        allowed: "set together: host, database and user (and replication.shopId) turn shipping on",
        applied: .onRestart, summary: "The central database.")

    /// `replication.postgres.user`.
    static let replicationUser = ConfigurationKey(
        path: "replication.postgres.user", kind: .text,
        allowed: "set together: host, database and user (and replication.shopId) turn shipping on",
        applied: .onRestart, summary: "The shop's own role at the centre.")

    /// `replication.postgres.passwordFile`.
    static let replicationPasswordFile = ConfigurationKey(
        path: "replication.postgres.passwordFile", kind: .text,
        defaultText: "$CREDENTIALS_DIRECTORY/pgpassword (systemd LoadCredential=), else none",
        allowed: "a readable file", applied: .onRestart, summary: "A file holding the role's password.")

    /// `replication.postgres.tls`.
    static let replicationTLS = ConfigurationKey(
        path: "replication.postgres.tls", kind: .text, defaultValue: "prefer",
        allowed: ReplicationConfiguration.TLSMode.allCases.map(\.rawValue).joined(separator: ", "),
        applied: .onRestart,
        summary: "TLS to the centre; prefer and require verify the server's certificate and name.")

    /// `replication.postgres.caFile`.
    static let replicationCAFile = ConfigurationKey(
        path: "replication.postgres.caFile", kind: .text, defaultText: "the system's certificate store",
        allowed: "a readable file holding PEM certificates", applied: .onRestart,
        summary: "Certificates to trust for the centre (a private CA, or its self-signed certificate).")
}
